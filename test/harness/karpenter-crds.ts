/**
 * Karpenter CRDs for integration tests: kerf's generated ones (manifests/crds) and upstream's
 * (fetched from the Go module proxy).
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import type { V1CustomResourceDefinition } from "@kubernetes/client-node";

const root = path.resolve(import.meta.dirname, "..", "..");

function readCrdDir(dir: string): V1CustomResourceDefinition[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .flatMap((f) =>
      parseAllDocuments(readFileSync(path.join(dir, f), "utf8"))
        .map((d) => d.toJS() as V1CustomResourceDefinition)
        .filter((d) => d?.kind === "CustomResourceDefinition"),
    );
}

/** kerf's generated CRDs for NodePool, NodeClaim and EC2NodeClass. */
export function generatedCrds(): V1CustomResourceDefinition[] {
  return readCrdDir(path.join(root, "manifests", "crds"));
}

/** Karpenter's own CRDs of a release, fetched (once, cached) by .ci/crds/fetch-upstream-crds.sh. */
export async function upstreamCrds(version = "1.14.1"): Promise<V1CustomResourceDefinition[]> {
  const { stdout } = await promisify(execFile)("bash", [
    path.join(root, ".ci", "crds", "fetch-upstream-crds.sh"),
    version,
  ]);
  return readCrdDir(stdout.trim());
}
