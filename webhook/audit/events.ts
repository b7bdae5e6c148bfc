/**
 * Kubernetes Events for the audit's findings, on the violating NodePool or EC2NodeClass (`kubectl describe
 * nodepool NAME` shows them). Each Event's name is derived from the object's uid and the finding, so replicas and
 * restarts create it once: a 409 means it is there already. The apiserver's event TTL (1 h by default) removes it;
 * the next audit after that creates it again while the violation lasts.
 */
import { createHash } from "node:crypto";
import { ApiException, CoreV1Api, type CoreV1Event, type KubeConfig } from "@kubernetes/client-node";
import type { AuditedObject } from "./audit.ts";

/** Events of cluster-scoped objects live in the default namespace, as client-go's recorder puts them. */
const EVENT_NAMESPACE = "default";
/** Findings of one object reported per audit at most: a NodePool failing everything must not flood etcd. */
const MAX_EVENTS_PER_OBJECT = 10;
export const EVENT_REASON = "PolicyViolation";
export const EVENT_COMPONENT = "kerf-webhook";

/** The Events the audited objects' findings call for (deny and warn; notices are not news on a live object). */
export function auditEvents(audited: readonly AuditedObject[], now: Date): CoreV1Event[] {
  return audited.flatMap((a) => {
    const metadata = (a.object["metadata"] ?? {}) as { name?: string; uid?: string; resourceVersion?: string };
    const findings = a.verdict.findings.filter((f) => f.severity !== "notice").slice(0, MAX_EVENTS_PER_OBJECT);
    return findings.map((f): CoreV1Event => {
      const digest = createHash("sha256")
        .update(`${metadata.uid ?? a.name}\u0000${f.policy}\u0000${f.path}\u0000${f.message}`)
        .digest("hex");
      return {
        metadata: { name: `${a.name.slice(0, 220)}.kerf-${digest.slice(0, 16)}`, namespace: EVENT_NAMESPACE },
        involvedObject: {
          apiVersion: String(a.object["apiVersion"]),
          kind: a.kind,
          name: a.name,
          ...(metadata.uid === undefined ? {} : { uid: metadata.uid }),
          ...(metadata.resourceVersion === undefined ? {} : { resourceVersion: metadata.resourceVersion }),
        },
        reason: EVENT_REASON,
        message: `${f.policy} (${f.severity}) ${f.path === "" ? "" : `${f.path}: `}${f.message}`.slice(0, 1024),
        type: "Warning",
        source: { component: EVENT_COMPONENT },
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      };
    });
  });
}

/** Creates the Events; resolves to how many were new and the first error other than "already exists". */
export async function publishEvents(
  kubeConfig: KubeConfig,
  events: readonly CoreV1Event[],
): Promise<{ created: number; error?: unknown }> {
  const api = kubeConfig.makeApiClient(CoreV1Api);
  let created = 0;
  let firstError: unknown;
  for (const body of events) {
    try {
      await api.createNamespacedEvent({ namespace: EVENT_NAMESPACE, body });
      created++;
    } catch (error) {
      if (error instanceof ApiException && error.code === 409) continue;
      firstError ??= error;
    }
  }
  return firstError === undefined ? { created } : { created, error: firstError };
}
