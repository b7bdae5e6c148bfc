/**
 * Reads the pinned public package data the bundled catalog is built from (I/O only, no derivation):
 *
 * - moto's EC2 resource files, from the moto wheel installed by .ci/testenv/ensure.sh (the test
 *   environment's pinned moto, in $KERF_CACHE_DIR/venv). Every file read is checked against the sha256
 *   the wheel's own RECORD lists, and RECORD itself against the hash pinned here, so a file is used only
 *   when it is byte-for-byte the file of that wheel.
 * - Karpenter's AWS provider Go module, through `go mod download -json` (the Go module cache, else the
 *   proxy; go verifies the zip against the checksum database), whose `Sum` must equal the pinned h1
 *   hash; files are read from the verified zip.
 *
 * Contract: every function either returns the exact bytes of the pinned file or throws a
 * CatalogSourceError saying which source, which file and why (never a silent fallback).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, globSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";

/** The moto release read (the test environment's MOTO_VERSION, .ci/testenv/versions.sh). */
export const MOTO = {
  package: "moto",
  version: "5.2.3",
  /** sha256 of moto-5.2.3.dist-info/RECORD, the wheel's list of its files and their sha256. */
  recordSha256: "72b5807d4dd9a9803a4677db858b20cecbd942963278d0818c48ff13c6c67a32",
  registry: "PyPI (https://pypi.org/project/moto/5.2.3/)",
  license: "Apache-2.0",
} as const;

/** The Karpenter AWS provider module read. */
export const KARPENTER = {
  module: "github.com/aws/karpenter-provider-aws",
  version: "v1.15.1",
  /** The module zip's go.sum hash (dirhash h1), as the checksum database records it. */
  sum: "h1:6eH///KgWKDwD2R6wHRnKGN8Vu8OHueaXjNdx64TnuY=",
  registry: "Go module proxy (https://proxy.golang.org)",
  license: "Apache-2.0",
} as const;

export const MOTO_RESOURCES = "moto/ec2/resources";

/** A pinned source that cannot be read or does not match its pin. */
export class CatalogSourceError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(`reading catalog sources: ${message}`, options);
    this.name = "CatalogSourceError";
  }
}

/** One file read from a source, with the sha256 of its bytes (recorded in the data's source block). */
export interface SourceFile {
  readonly path: string;
  readonly sha256: string;
  readonly bytes: Buffer;
}

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function cacheDir(env: NodeJS.ProcessEnv): string {
  return env["KERF_CACHE_DIR"] ?? path.join(os.homedir(), ".cache", "kerf");
}

/** The installed moto wheel: its site-packages folder and the RECORD's sha256 per file. */
export interface MotoWheel {
  readonly sitePackages: string;
  readonly record: ReadonlyMap<string, string>;
  readonly read: (relativePath: string) => SourceFile;
}

/** RECORD lines are `path,sha256=<urlsafe base64, no padding>,size`. */
function parseRecord(text: string): Map<string, string> {
  const record = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = /^(.+),sha256=([A-Za-z0-9_-]+),\d+$/.exec(line.trim());
    if (match?.[1] !== undefined && match[2] !== undefined) {
      record.set(match[1], Buffer.from(match[2], "base64url").toString("hex"));
    }
  }
  return record;
}

/**
 * The pinned moto wheel installed under `sitePackages`, or found in the test environment's venv
 * ($KERF_CACHE_DIR/venv/moto-<version>-py*); KERF_MOTO_SITE_PACKAGES overrides the search.
 */
export function openMoto(env: NodeJS.ProcessEnv = process.env): MotoWheel {
  const explicit = env["KERF_MOTO_SITE_PACKAGES"];
  const pattern = `venv/moto-${MOTO.version}-py*/lib/python*/site-packages`;
  const candidates = explicit !== undefined ? [explicit] : globSync(pattern, { cwd: cacheDir(env) }).map((p) => path.join(cacheDir(env), p));
  const distInfo = `moto-${MOTO.version}.dist-info`;
  const sitePackages = candidates.find((dir) => existsSync(path.join(dir, distInfo, "RECORD")));
  if (sitePackages === undefined) {
    throw new CatalogSourceError(`moto ${MOTO.version} is not installed (looked for ${distInfo} in ` +
      `${explicit ?? path.join(cacheDir(env), pattern)}); install it with \`bash .ci/testenv/ensure.sh\` ` +
      `(pip install moto==${MOTO.version} into that venv) or set KERF_MOTO_SITE_PACKAGES`);
  }
  const recordBytes = readFileSync(path.join(sitePackages, distInfo, "RECORD"));
  if (sha256(recordBytes) !== MOTO.recordSha256) {
    throw new CatalogSourceError(`${path.join(sitePackages, distInfo, "RECORD")} has sha256 ${sha256(recordBytes)}, ` +
      `not the pinned ${MOTO.recordSha256}: not the moto ${MOTO.version} wheel`);
  }
  const record = parseRecord(recordBytes.toString("utf8"));
  const read = (relativePath: string): SourceFile => {
    const expected = record.get(relativePath);
    if (expected === undefined) throw new CatalogSourceError(`moto ${MOTO.version}'s RECORD does not list ${relativePath}`);
    const file = path.join(sitePackages, relativePath);
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch (error) {
      throw new CatalogSourceError(`reading ${file}: ${(error as Error).message}`, { cause: error });
    }
    if (sha256(bytes) !== expected) {
      throw new CatalogSourceError(`${file} has sha256 ${sha256(bytes)}, not ${expected} as moto ${MOTO.version}'s RECORD says`);
    }
    return { path: relativePath, sha256: expected, bytes };
  };
  return { sitePackages, record, read };
}

/** A moto resource file's JSON (gunzipped when the wheel ships it as .json.gz). */
export function motoJson(wheel: MotoWheel, file: SourceFile): unknown {
  const text = file.path.endsWith(".gz") ? gunzipSync(file.bytes).toString("utf8") : file.bytes.toString("utf8");
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CatalogSourceError(`parsing ${path.join(wheel.sitePackages, file.path)}: ${(error as Error).message}`, { cause: error });
  }
}

/** The regions moto has per-zone offering files for (commercial regions, sorted). */
export function motoRegions(wheel: MotoWheel): string[] {
  const prefix = `${MOTO_RESOURCES}/instance_type_offerings/availability-zone/`;
  return [...wheel.record.keys()]
    .filter((p) => p.startsWith(prefix) && p.endsWith(".json.gz"))
    .map((p) => p.slice(prefix.length, -".json.gz".length))
    .sort();
}

/** The verified Karpenter module zip and a reader of its files. */
export interface GoModule {
  readonly zip: string;
  readonly read: (relativePath: string) => SourceFile;
}

/**
 * The pinned Karpenter module through `go mod download -json` (offline when the module cache has it:
 * GOMODCACHE, else $KERF_CACHE_DIR/go/mod, which the test environment fills). As in
 * .ci/crds/fetch-upstream-crds.sh the zip is read, not the extracted tree: go verifies the zip, and
 * refuses to extract a module asking for a newer Go than the local one.
 */
export function openKarpenterModule(env: NodeJS.ProcessEnv = process.env): GoModule {
  const target = `${KARPENTER.module}@${KARPENTER.version}`;
  const goEnv = { ...env, GOFLAGS: "-modcacherw", GOTOOLCHAIN: "local", GOMODCACHE: env["GOMODCACHE"] ?? path.join(cacheDir(env), "go", "mod") };
  // go exits non-zero when it refuses to extract a module that asks for a newer Go, yet still reports the verified
  // zip and its sum: the answer is read either way, and only a missing zip or sum is an error.
  let output: string;
  try {
    output = execFileSync("go", ["mod", "download", "-json", target], { cwd: os.tmpdir(), env: goEnv, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    output = (error as { stdout?: string }).stdout ?? "";
    if (output === "") throw new CatalogSourceError(`go mod download ${target}: ${(error as Error).message}`, { cause: error });
  }
  let info: { Zip?: string; Sum?: string; Error?: string };
  try {
    info = JSON.parse(output) as typeof info;
  } catch (error) {
    throw new CatalogSourceError(`go mod download ${target}: unreadable answer: ${output.slice(0, 200)}`, { cause: error });
  }
  if (info.Zip === undefined || !existsSync(info.Zip)) throw new CatalogSourceError(`go mod download ${target} gave no zip (${info.Error ?? "no error"})`);
  if (info.Sum !== KARPENTER.sum) throw new CatalogSourceError(`${target} has sum ${info.Sum ?? "none"}, not the pinned ${KARPENTER.sum}`);
  const zip = info.Zip;
  const read = (relativePath: string): SourceFile => {
    let bytes: Buffer;
    try {
      bytes = execFileSync("unzip", ["-p", zip, `${target}/${relativePath}`], { maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"] });
    } catch (error) {
      throw new CatalogSourceError(`reading ${relativePath} from ${zip}: ${(error as Error).message}`, { cause: error });
    }
    if (bytes.length === 0) throw new CatalogSourceError(`${zip} has no ${relativePath}`);
    return { path: relativePath, sha256: sha256(bytes), bytes };
  };
  return { zip, read };
}
