/**
 * Reads the pinned public package data the bundled catalog is built from (I/O only, no derivation):
 *
 * - moto's EC2 resource files, from the pinned wheel (its PyPI sha256 pinned here) or the copy of it
 *   .ci/testenv/ensure.sh installs for the test environment ($KERF_CACHE_DIR/venv). Every file read is
 *   checked against the sha256 the wheel's RECORD lists for it.
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
  wheel: "moto-5.2.3-py3-none-any.whl",
  /** sha256 of the wheel PyPI serves (https://pypi.org/project/moto/5.2.3/#files). */
  wheelSha256: "5ec31b3cdbb383a19d46030157bd82aaaa7a9cc5f564200f995663d347bd4728",
  /** sha256 of the wheel's moto-5.2.3.dist-info/RECORD (pip rewrites the installed copy, so only a wheel has it). */
  wheelRecordSha256: "789be4f7677369be7d1c3a464af7d54594c77904561a78d8695cf6e577841879",
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

/** One file of a zip archive (`unzip -p`: the tests' environment installs unzip). */
function unzip(archive: string, member: string): Buffer {
  const options = { maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"] as ["ignore", "pipe", "pipe"] };
  return execFileSync("unzip", ["-p", archive, member], options);
}

function cacheDir(env: NodeJS.ProcessEnv): string {
  return env["KERF_CACHE_DIR"] ?? path.join(os.homedir(), ".cache", "kerf");
}

/** The pinned moto release's files: where they are read from, and the sha256 of each per the wheel's RECORD. */
export interface MotoWheel {
  /** For messages: the site-packages folder or the wheel file. */
  readonly location: string;
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

type Loader = (relativePath: string) => Buffer;

/** A reader that returns a file only when its sha256 is the one RECORD lists. */
function verifiedReader(location: string, record: ReadonlyMap<string, string>, load: Loader): MotoWheel["read"] {
  return (relativePath) => {
    const expected = record.get(relativePath);
    if (expected === undefined) {
      throw new CatalogSourceError(`moto ${MOTO.version}'s RECORD does not list ${relativePath}`);
    }
    let bytes: Buffer;
    try {
      bytes = load(relativePath);
    } catch (error) {
      const reason = (error as Error).message;
      throw new CatalogSourceError(`reading ${relativePath} from ${location}: ${reason}`, { cause: error });
    }
    if (sha256(bytes) !== expected) {
      throw new CatalogSourceError(
        `${relativePath} in ${location} has sha256 ${sha256(bytes)}, ` +
          `not ${expected} as moto ${MOTO.version}'s RECORD says`,
      );
    }
    return { path: relativePath, sha256: expected, bytes };
  };
}

const DIST_INFO = `moto-${MOTO.version}.dist-info`;

/** The pinned wheel file itself (e.g. from `pip download --no-deps moto==5.2.3`): its sha256 must be PyPI's. */
function openWheelFile(wheel: string): MotoWheel {
  const bytes = readFileSync(wheel);
  if (sha256(bytes) !== MOTO.wheelSha256) {
    throw new CatalogSourceError(
      `${wheel} has sha256 ${sha256(bytes)}, ` + `not PyPI's ${MOTO.wheelSha256} for ${MOTO.wheel}`,
    );
  }
  const load: Loader = (p) => unzip(wheel, p);
  const recordBytes = load(`${DIST_INFO}/RECORD`);
  if (sha256(recordBytes) !== MOTO.wheelRecordSha256) {
    throw new CatalogSourceError(`${wheel}: ${DIST_INFO}/RECORD is not the pinned one`);
  }
  const record = parseRecord(recordBytes.toString("utf8"));
  return { location: wheel, record, read: verifiedReader(wheel, record, load) };
}

/**
 * The site-packages of an installed copy: KERF_MOTO_SITE_PACKAGES, else the test environment's venv
 * ($KERF_CACHE_DIR/venv/moto-<version>-py*) once .ci/testenv/ensure.sh has stamped it complete (`npm test` installs
 * it while the unit tests run: a venv without the stamp may be half written).
 */
function installedCopy(env: NodeJS.ProcessEnv): string | undefined {
  const explicit = env["KERF_MOTO_SITE_PACKAGES"];
  if (explicit !== undefined) return explicit;
  return globSync(`venv/moto-${MOTO.version}-py*`, { cwd: cacheDir(env) })
    .map((venv) => path.join(cacheDir(env), venv))
    .filter((venv) => existsSync(path.join(venv, ".complete")))
    .flatMap((venv) => globSync("lib/python*/site-packages", { cwd: venv }).map((p) => path.join(venv, p)))
    .find((dir) => existsSync(path.join(dir, DIST_INFO, "RECORD")));
}

/** The pinned wheel in $KERF_CACHE_DIR/wheels, downloaded from PyPI with pip the first time (sha256 checked on use). */
function cachedWheel(env: NodeJS.ProcessEnv): string {
  const dir = path.join(cacheDir(env), "wheels");
  const wheel = path.join(dir, MOTO.wheel);
  if (existsSync(wheel)) return wheel;
  const args = ["-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "-d", dir];
  args.push(`moto==${MOTO.version}`);
  try {
    execFileSync("python3", args, { env, stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    const stderr =
      String((error as { stderr?: unknown }).stderr ?? "")
        .trim()
        .split("\n")
        .at(-1) ?? "";
    throw new CatalogSourceError(
      `moto ${MOTO.version} is not installed (no complete venv in ${cacheDir(env)}/venv, ` +
        `no KERF_MOTO_SITE_PACKAGES) and \`python3 ${args.join(" ")}\` failed: ` +
        `${stderr || (error as Error).message}; ` +
        `run \`bash .ci/testenv/ensure.sh\`, or set KERF_MOTO_WHEEL to a copy of ${MOTO.wheel}`,
      { cause: error },
    );
  }
  return wheel;
}

/**
 * The pinned moto release: the wheel named by KERF_MOTO_WHEEL; else an installed copy (installedCopy), which must
 * be that version (its METADATA) and whose files must have the sha256 its RECORD lists (pip copies those from the
 * wheel's RECORD); else the wheel from PyPI, cached. The re-derivation test then compares every file's sha256 with
 * the one the committed data records.
 */
export function openMoto(env: NodeJS.ProcessEnv = process.env): MotoWheel {
  const wheel = env["KERF_MOTO_WHEEL"];
  if (wheel !== undefined && wheel !== "") return openWheelFile(wheel);
  const sitePackages = installedCopy(env);
  if (sitePackages === undefined) return openWheelFile(cachedWheel(env));
  let metadata: string;
  try {
    metadata = readFileSync(path.join(sitePackages, DIST_INFO, "METADATA"), "utf8");
  } catch (error) {
    const reason = (error as Error).message;
    throw new CatalogSourceError(`moto ${MOTO.version} is not installed in ${sitePackages}: ${reason}`, {
      cause: error,
    });
  }
  if (!metadata.split("\n").includes(`Version: ${MOTO.version}`)) {
    throw new CatalogSourceError(`${path.join(sitePackages, DIST_INFO, "METADATA")} is not moto ${MOTO.version}`);
  }
  const record = parseRecord(readFileSync(path.join(sitePackages, DIST_INFO, "RECORD"), "utf8"));
  const load: Loader = (p) => readFileSync(path.join(sitePackages, p));
  return { location: sitePackages, record, read: verifiedReader(sitePackages, record, load) };
}

/** A moto resource file's JSON (gunzipped when the wheel ships it as .json.gz). */
export function motoJson(wheel: MotoWheel, file: SourceFile): unknown {
  const text = file.path.endsWith(".gz") ? gunzipSync(file.bytes).toString("utf8") : file.bytes.toString("utf8");
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const reason = (error as Error).message;
    throw new CatalogSourceError(`parsing ${file.path} from ${wheel.location}: ${reason}`, { cause: error });
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
  const modCache = env["GOMODCACHE"] ?? path.join(cacheDir(env), "go", "mod");
  const goEnv = { ...env, GOFLAGS: "-modcacherw", GOTOOLCHAIN: "local", GOMODCACHE: modCache };
  // go exits non-zero when it refuses to extract a module that asks for a newer Go, yet still reports the verified
  // zip and its sum: the answer is read either way, and only a missing zip or sum is an error.
  let output: string;
  try {
    output = execFileSync("go", ["mod", "download", "-json", target], {
      cwd: os.tmpdir(),
      env: goEnv,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    output = (error as { stdout?: string }).stdout ?? "";
    if (output === "") {
      throw new CatalogSourceError(`go mod download ${target}: ${(error as Error).message}`, { cause: error });
    }
  }
  let info: { Zip?: string; Sum?: string; Error?: string };
  try {
    info = JSON.parse(output) as typeof info;
  } catch (error) {
    const answer = output.slice(0, 200);
    throw new CatalogSourceError(`go mod download ${target}: unreadable answer: ${answer}`, { cause: error });
  }
  if (info.Zip === undefined || !existsSync(info.Zip)) {
    throw new CatalogSourceError(`go mod download ${target} gave no zip (${info.Error ?? "no error"})`);
  }
  if (info.Sum !== KARPENTER.sum) {
    throw new CatalogSourceError(`${target} has sum ${info.Sum ?? "none"}, not the pinned ${KARPENTER.sum}`);
  }
  const zip = info.Zip;
  const read = (relativePath: string): SourceFile => {
    let bytes: Buffer;
    try {
      bytes = unzip(zip, `${target}/${relativePath}`);
    } catch (error) {
      const reason = (error as Error).message;
      throw new CatalogSourceError(`reading ${relativePath} from ${zip}: ${reason}`, { cause: error });
    }
    if (bytes.length === 0) throw new CatalogSourceError(`${zip} has no ${relativePath}`);
    return { path: relativePath, sha256: sha256(bytes), bytes };
  };
  return { zip, read };
}
