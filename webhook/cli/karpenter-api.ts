/**
 * `kerf check --karpenter-version VERSION | --karpenter-crds PATH`: the Karpenter API manifests are judged against,
 * a bundled release or CRDs exported from a cluster (`kubectl get crd nodepools.karpenter.sh … -o yaml`).
 */
import { KARPENTER_CRD_NAMES, karpenterApiFromCrds, v1SchemaOf } from "../../policies/api/releases/from-crds.ts";
import { bundledKarpenterApi, type KarpenterApi } from "../../policies/api/releases/index.ts";
import { causeText, KerfError } from "../errors.ts";
import type { SourceObject } from "./documents.ts";
import { readInputs } from "./inputs.ts";

const CRD_NAMES = new Set(Object.values(KARPENTER_CRD_NAMES));

function crdName(value: unknown): string | undefined {
  const object = value as { kind?: unknown; metadata?: { name?: unknown } } | null;
  const name = object?.kind === "CustomResourceDefinition" ? object.metadata?.name : undefined;
  return typeof name === "string" && CRD_NAMES.has(name) ? name : undefined;
}

function unusable(source: SourceObject, problem: string): KerfError {
  const location = { file: source.file, line: source.position.line };
  return new KerfError("KERF_ERR_INPUT_UNPARSEABLE", `reading Karpenter CRDs at ${source.file}:${source.position.line}: ${problem}`, { location });
}

/** Each Karpenter CRD once; a duplicate, or one without a v1 schema, fails with its file:line. */
function karpenterCrds(sources: readonly SourceObject[]): unknown[] {
  const seen = new Map<string, SourceObject>();
  for (const source of sources) {
    const name = crdName(source.value);
    if (name === undefined) continue;
    const earlier = seen.get(name);
    if (earlier !== undefined) throw unusable(source, `${name} again (first at ${earlier.file}:${earlier.position.line})`);
    if (v1SchemaOf(source.value) === undefined) throw unusable(source, `${name} has no v1 schema (Karpenter before v1.0?)`);
    seen.set(name, source);
  }
  return [...seen.values()].map((s) => s.value);
}

/** Reads the three CRDs from a file or folder (other documents are ignored). Throws KerfError naming the file. */
export async function readKarpenterCrds(path: string): Promise<KarpenterApi> {
  const crds = karpenterCrds(await readInputs([path], () => Promise.reject(new Error("standard input holds the manifests"))));
  try {
    return karpenterApiFromCrds(crds, path);
  } catch (error) {
    throw new KerfError("KERF_ERR_INPUT_UNPARSEABLE", `reading Karpenter CRDs from ${path}: ${causeText(error)}`, { cause: error, location: { file: path } });
  }
}

/** The API the flags select; undefined (the bundled default) when neither is given. */
export async function selectKarpenterApi(version: string | undefined, crds: string | undefined): Promise<KarpenterApi | undefined> {
  if (crds !== undefined) return readKarpenterCrds(crds);
  return version === undefined ? undefined : bundledKarpenterApi(version);
}
