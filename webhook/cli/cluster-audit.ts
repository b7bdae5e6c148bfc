/**
 * `kerf check --cluster` (without --diff): the cluster's stored NodePools and EC2NodeClasses as sources for the
 * check, each rendered as YAML so a finding's line and column point into `kerf`'s rendering of the object (the
 * file names it `<context>/<plural>/<name>`). managedFields are left out: no policy reads them.
 */
import { stringify } from "yaml";
import { causeText, KerfError } from "../errors.ts";
import { listStoredObjects } from "../audit/stored.ts";
import { parseDocuments, type SourceObject } from "./documents.ts";
import { loadKubeConfig } from "./diff/cluster.ts";

/** The stored objects as sources, and the cluster they come from. */
export interface ClusterSources {
  readonly sources: SourceObject[];
  /** The current context's name and API server, for the report. */
  readonly context: string;
  readonly server: string;
}

function withoutManagedFields(object: Record<string, unknown>): Record<string, unknown> {
  const metadata = object["metadata"];
  if (typeof metadata !== "object" || metadata === null) return object;
  const { managedFields: _managed, ...rest } = metadata as Record<string, unknown>;
  return { ...object, metadata: rest };
}

/** Reads the stored objects; a KerfError (exit 2) naming the server when the cluster cannot be read. */
export async function readClusterSources(kubeconfig: string | undefined): Promise<ClusterSources> {
  const kc = loadKubeConfig(kubeconfig);
  const server = kc.getCurrentCluster()?.server ?? "(no current cluster)";
  const context = kc.getCurrentContext() || "(no context)";
  let stored;
  try {
    stored = await listStoredObjects(kc);
  } catch (error) {
    const reason = causeText(error).split("\n")[0] ?? "";
    throw new KerfError("KERF_ERR_INPUT_UNREADABLE", `reading NodePools and EC2NodeClasses from ${server}: ${reason}`, {
      cause: error,
    });
  }
  const sources = stored.flatMap((s) => {
    const name = (s.object["metadata"] as { name?: unknown } | undefined)?.name;
    return parseDocuments(`${context}/${s.plural}/${String(name)}`, stringify(withoutManagedFields(s.object)));
  });
  return { sources, context, server };
}
