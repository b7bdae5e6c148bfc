/**
 * The audit of stored objects: each judged as admission judges a CREATE today (the policies, under the Karpenter
 * API the engine holds), with the cluster's own EC2NodeClass names for nodeclassref-resolves. What `kerf check
 * --cluster` reports and the webhook's periodic audit exports; no I/O here.
 */
import type { Engine, Kind, Verdict } from "../engine.ts";

/** One judged object. */
export interface AuditedObject {
  readonly kind: Kind;
  readonly name: string;
  readonly object: Record<string, unknown>;
  readonly verdict: Verdict;
}

function nameOf(object: Record<string, unknown>): string {
  const name = (object["metadata"] as { name?: unknown } | undefined)?.name;
  return typeof name === "string" ? name : "<unnamed>";
}

/** Judges every stored object; a NodePool's nodeClassRef resolves against the EC2NodeClasses among them. */
export function auditObjects(
  engine: Engine,
  stored: ReadonlyArray<{ kind: Kind; object: Record<string, unknown> }>,
): AuditedObject[] {
  const nodeClassNames = new Set(stored.filter((s) => s.kind === "EC2NodeClass").map((s) => nameOf(s.object)));
  const context = { ...engine.context, nodeClassNames };
  return stored.map(({ kind, object }) => ({
    kind,
    name: nameOf(object),
    object,
    verdict: engine.evaluate({ kind, operation: "CREATE", object, context }),
  }));
}

/** How many objects of a kind violate a policy at a severity. */
export interface ViolationCount {
  readonly policy: string;
  readonly kind: string;
  readonly severity: string;
  readonly objects: number;
}

/** Violating objects per policy, kind and severity (an object with two findings of one policy counts once). */
export function countViolations(audited: readonly AuditedObject[]): ViolationCount[] {
  const counts = new Map<string, ViolationCount>();
  for (const a of audited) {
    const seen = new Set<string>();
    for (const f of a.verdict.findings) {
      if (f.severity === "notice") continue;
      const key = `${f.policy}\u0000${a.kind}\u0000${f.severity}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const before = counts.get(key);
      counts.set(key, { policy: f.policy, kind: a.kind, severity: f.severity, objects: (before?.objects ?? 0) + 1 });
    }
  }
  return [...counts.values()];
}
