// Reads Karpenter's CRD YAML files and reduces them to the schemas kerf evaluates (shared by the vendoring
// script and the test that checks the vendored files against the Go module proxy).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";

interface Crd {
  kind?: string;
  spec?: { names?: { kind?: string }; versions?: { name: string; storage?: boolean; schema?: { openAPIV3Schema?: unknown } }[] };
}

export function readCrdDir(dir: string): Crd[] {
  return readdirSync(dir).filter((f) => f.endsWith(".yaml")).sort().flatMap((f) =>
    parseAllDocuments(readFileSync(path.join(dir, f), "utf8")).map((d) => d.toJS() as Crd).filter((d) => d?.kind === "CustomResourceDefinition"));
}

/** Drops `description` (documentation, ~70% of the bytes) everywhere except where it is a property name. */
export function stripDescriptions(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripDescriptions);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "description" && typeof value === "string") continue;
    out[key] = key === "properties" ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, stripDescriptions(v)])) : stripDescriptions(value);
  }
  return out;
}

const KINDS = ["NodePool", "NodeClaim", "EC2NodeClass"] as const;

/** The release file's content: the v1 (storage) schema of each kind. */
export function releaseFromCrds(version: string, crds: Crd[]): { version: string; schemas: Record<string, unknown> } {
  const schemas: Record<string, unknown> = {};
  for (const kind of KINDS) {
    const crd = crds.find((c) => c.spec?.names?.kind === kind);
    const v1 = crd?.spec?.versions?.find((v) => v.name === "v1");
    if (v1?.schema?.openAPIV3Schema === undefined) throw new Error(`reading Karpenter v${version} CRDs: no v1 schema for ${kind}`);
    schemas[kind] = stripDescriptions(v1.schema.openAPIV3Schema);
  }
  return { version, schemas };
}
