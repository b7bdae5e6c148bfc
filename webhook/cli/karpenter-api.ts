/**
 * `kerf check --karpenter-version VERSION | --karpenter-crds PATH`: the Karpenter API manifests are judged against,
 * a bundled release or CRDs exported from a cluster (`kubectl get crd nodepools.karpenter.sh … -o yaml`).
 */
import { KARPENTER_CRD_NAMES, karpenterApiFromCrds, v1SchemaOf } from "../../policies/api/releases/from-crds.ts";
import { bundledKarpenterApi, type KarpenterApi } from "../../policies/api/releases/index.ts";
import { causeText, KerfError } from "../errors.ts";
import type { SourceObject } from "./documents.ts";
import { readInputs } from "./inputs.ts";
import { CustomObjectsApi } from "@kubernetes/client-node";
import { loadKubeConfig } from "./diff/cluster.ts";

const CRD_NAMES = new Set(Object.values(KARPENTER_CRD_NAMES));

function crdName(value: unknown): string | undefined {
  const object = value as { kind?: unknown; metadata?: { name?: unknown } } | null;
  const name = object?.kind === "CustomResourceDefinition" ? object.metadata?.name : undefined;
  return typeof name === "string" && CRD_NAMES.has(name) ? name : undefined;
}

function unusable(source: SourceObject, problem: string): KerfError {
  const location = { file: source.file, line: source.position.line };
  return new KerfError(
    "KERF_ERR_INPUT_UNPARSEABLE",
    `reading Karpenter CRDs at ${source.file}:${source.position.line}: ${problem}`,
    { location },
  );
}

/** Each Karpenter CRD once; a duplicate, or one without a v1 schema, fails with its file:line. */
function karpenterCrds(sources: readonly SourceObject[]): unknown[] {
  const seen = new Map<string, SourceObject>();
  for (const source of sources) {
    const name = crdName(source.value);
    if (name === undefined) continue;
    const earlier = seen.get(name);
    if (earlier !== undefined)
      throw unusable(source, `${name} again (first at ${earlier.file}:${earlier.position.line})`);
    if (v1SchemaOf(source.value) === undefined)
      throw unusable(source, `${name} has no v1 schema (Karpenter before v1.0?)`);
    seen.set(name, source);
  }
  return [...seen.values()].map((s) => s.value);
}

/** Reads the three CRDs from a file or folder (other documents are ignored). Throws KerfError naming the file. */
export async function readKarpenterCrds(path: string): Promise<KarpenterApi> {
  const crds = karpenterCrds(
    await readInputs([path], () => Promise.reject(new Error("standard input holds the manifests"))),
  );
  try {
    return karpenterApiFromCrds(crds, path);
  } catch (error) {
    throw new KerfError("KERF_ERR_INPUT_UNPARSEABLE", `reading Karpenter CRDs from ${path}: ${causeText(error)}`, {
      cause: error,
      location: { file: path },
    });
  }
}

/** The three Karpenter CRDs installed in the cluster (each read by name), as the webhook reads them. */
export async function readClusterKarpenterApi(kubeconfig: string | undefined): Promise<KarpenterApi> {
  const kc = loadKubeConfig(kubeconfig);
  const server = kc.getCurrentCluster()?.server ?? "(no current cluster)";
  const api = kc.makeApiClient(CustomObjectsApi);
  try {
    const lists = await Promise.all(
      Object.values(KARPENTER_CRD_NAMES).map(
        (name) =>
          api.listClusterCustomObject({
            group: "apiextensions.k8s.io",
            version: "v1",
            plural: "customresourcedefinitions",
            fieldSelector: `metadata.name=${name}`,
          }) as Promise<{ items: object[] }>,
      ),
    );
    // A list's items carry no kind.
    return karpenterApiFromCrds(
      lists.flatMap((l) => l.items.map((item) => ({ ...item, kind: "CustomResourceDefinition" }))),
    );
  } catch (error) {
    throw new KerfError(
      "KERF_ERR_INPUT_UNREADABLE",
      `reading the Karpenter CRDs from ${server}: ${causeText(error).split("\n")[0] ?? ""}`,
      { cause: error },
    );
  }
}

/** Which API `kerf check` judges against: the flags' choice, else (with --cluster) the cluster's CRDs. */
export interface ApiChoice {
  readonly version: string | undefined;
  readonly crds: string | undefined;
  /** --cluster: read the cluster's CRDs when neither flag is given. */
  readonly cluster: boolean;
  readonly kubeconfig: string | undefined;
  /** Where to say that the cluster's CRDs could not be read (the default release is used then). */
  readonly warn: (line: string) => void;
}

/** The API the flags select; undefined (the bundled default) when nothing is said. */
export async function selectKarpenterApi(choice: ApiChoice): Promise<KarpenterApi | undefined> {
  if (choice.crds !== undefined) return readKarpenterCrds(choice.crds);
  if (choice.version !== undefined) return bundledKarpenterApi(choice.version);
  if (!choice.cluster) return undefined;
  try {
    return await readClusterKarpenterApi(choice.kubeconfig);
  } catch (error) {
    const fallback = bundledKarpenterApi();
    choice.warn(
      `kerf check: ${causeText(error)}; ` +
        `judging against the bundled Karpenter ${fallback.version} (--karpenter-version to choose)\n`,
    );
    return fallback;
  }
}
