// Reads Karpenter's CRD YAML files and reduces them to the schemas kerf evaluates (shared by the vendoring
// script and the test that checks the vendored files against the Go module proxy).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";
import { schemasFromCrds } from "../../policies/api/releases/from-crds.ts";

export function readCrdDir(dir: string): unknown[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .flatMap((f) => parseAllDocuments(readFileSync(path.join(dir, f), "utf8")).map((d) => d.toJS() as unknown));
}

/** The release file's content: the v1 schema of each kind, in the order NodePool, NodeClaim, EC2NodeClass. */
export function releaseFromCrds(
  version: string,
  crds: readonly unknown[],
): { version: string; schemas: Record<string, unknown> } {
  try {
    return { version, schemas: schemasFromCrds(crds) };
  } catch (error) {
    throw new Error(`reading Karpenter v${version} CRDs: ${(error as Error).message}`, { cause: error });
  }
}
