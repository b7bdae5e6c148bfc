/**
 * Completes the image's CycloneDX SBOM: cyclonedx-npm writes the npm packages of the image's /app, and this adds
 * the image's Debian packages (dpkg-query output) as components made and normalised by the CycloneDX library
 * (@cyclonedx/cyclonedx-library, installed beside cyclonedx-npm by sbom.sh), so no field is formatted by hand.
 *
 * Usage: node scripts/release/sbom.ts TOOLS-NODE-MODULES NPM-BOM.json DPKG.tsv OUT.json
 *   DPKG.tsv: dpkg-query -W -f '${Package}\t${Version}\t${Architecture}\t${source:Package}\n'
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** The part of @cyclonedx/cyclonedx-library this script uses. */
interface CycloneDx {
  Models: {
    Component: new (type: string, name: string, op: { version: string; purl: unknown; bomRef: string }) => object;
  };
  Enums: { ComponentType: { Library: string; OperatingSystem: string } };
  Spec: { SpecVersionDict: Record<string, object | undefined> };
  Serialize: {
    JSON: {
      Normalize: {
        Factory: new (spec: object) => {
          makeForComponent(): { normalize(c: object, o: { sortLists: boolean }): unknown };
        };
      };
    };
  };
}
type PackageUrlClass = new (
  type: string,
  namespace: string,
  name: string,
  version: string,
  qualifiers: Record<string, string>,
  subpath: undefined,
) => object;

/** One installed Debian package. */
export interface DebianPackage {
  name: string;
  version: string;
  arch: string;
  source: string;
}

/** Parses dpkg-query lines; a line without a name and version is an error naming its line number. */
export function parseDpkg(text: string): DebianPackage[] {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((line, i) => {
      const [name = "", version = "", arch = "", source = ""] = line.split("\t");
      if (name === "" || version === "")
        throw new Error(`reading dpkg-query output line ${i + 1}: no package or version`);
      return { name, version, arch, source: source === "" ? name : source };
    });
}

function main(argv: string[]): void {
  const [tools, npmBomFile, dpkgFile, out] = argv;
  if (tools === undefined || npmBomFile === undefined || dpkgFile === undefined || out === undefined) {
    throw new Error("usage: sbom.ts TOOLS-NODE-MODULES NPM-BOM.json DPKG.tsv OUT.json");
  }
  const load = createRequire(path.join(tools, "noop.js"));
  const cdx = load("@cyclonedx/cyclonedx-library") as CycloneDx;
  const { PackageURL } = load("packageurl-js") as { PackageURL: PackageUrlClass };
  const bom = JSON.parse(readFileSync(npmBomFile, "utf8")) as { specVersion: string; components?: unknown[] };
  const spec = cdx.Spec.SpecVersionDict[bom.specVersion];
  if (spec === undefined) throw new Error(`reading ${npmBomFile}: unknown CycloneDX specVersion ${bom.specVersion}`);
  const normalizer = new cdx.Serialize.JSON.Normalize.Factory(spec).makeForComponent();
  const debs = parseDpkg(readFileSync(dpkgFile, "utf8")).map((p) => {
    const qualifiers: Record<string, string> = { distro: "debian-12", arch: p.arch };
    if (p.source !== p.name) qualifiers.upstream = p.source;
    const purl = new PackageURL("deb", "debian", p.name, p.version, qualifiers, undefined);
    const component = new cdx.Models.Component(cdx.Enums.ComponentType.Library, p.name, {
      version: p.version,
      purl,
      bomRef: String(purl),
    });
    return normalizer.normalize(component, { sortLists: true });
  });
  bom.components = [...(bom.components ?? []), ...debs];
  writeFileSync(out, JSON.stringify(bom, null, 2) + "\n");
}

if (import.meta.main) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`[release] writing the SBOM: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
