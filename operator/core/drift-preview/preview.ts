/**
 * Drift preview (`kerf check --diff`): what changing NodePools and EC2NodeClasses from `before` to `after`
 * does to running nodes, by the operator's own drift rules (behaviour §4.10) and Drifted budgets (§4.9).
 * Pure: the caller reads both sides (files, a git revision) and, optionally, the cluster's NodeClaims
 * and NodePools, applies the CRD defaults, and passes the time.
 */
import { canonicalJson } from "../launch-template/hash.ts";
import { NodeClassHash } from "../disruption/nodeclass-hash.ts";
import { NodePoolHash } from "../nodepool/hash.ts";
import { at, nameOf, PreviewContext } from "./context.ts";
import { nodeClassPreview } from "./nodeclass-preview.ts";
import { nodePoolPreview } from "./nodepool-preview.ts";
import type { DriftPreview, LiveState, ObjectPreview, PreviewInput } from "./types.ts";

export type * from "./types.ts";

export interface PreviewRequest {
  readonly before: readonly PreviewInput[];
  readonly after: readonly PreviewInput[];
  readonly now: Date;
  readonly live?: LiveState | undefined;
}

const keyOf = (o: PreviewInput): string => `${o.kind}/${nameOf(o.value)}`;

/** What the user controls: labels, annotations (but the operator's hash stamps) and spec. */
function comparable(o: PreviewInput): string {
  const stamps = new Set<string>([
    NodePoolHash.key,
    NodePoolHash.versionKey,
    NodeClassHash.key,
    NodeClassHash.versionKey,
  ]);
  const annotations = Object.entries((at(o.value, "metadata", "annotations") ?? {}) as Record<string, unknown>).filter(
    ([k]) => !stamps.has(k),
  );
  return canonicalJson({
    labels: at(o.value, "metadata", "labels"),
    annotations: Object.fromEntries(annotations),
    spec: at(o.value, "spec"),
  });
}

function added(o: PreviewInput): ObjectPreview {
  const name = nameOf(o.value);
  return {
    kind: o.kind,
    name,
    change: "added",
    source: o.source,
    replaces: "none",
    summary: "new: no existing node is replaced",
    causes: [],
    unhashed: [],
    nodePools: o.kind === "NodePool" ? [name] : [],
    pacing: [],
  };
}

function removed(o: PreviewInput, ctx: PreviewContext): ObjectPreview {
  const name = nameOf(o.value);
  const base = {
    kind: o.kind,
    name,
    change: "removed" as const,
    source: o.source,
    causes: [],
    unhashed: [],
    pacing: [],
  };
  if (o.kind === "NodePool") {
    const live = ctx.liveCount(name, { kind: "NodePool", pool: o.value });
    const summary =
      `deleted: its NodeClaims are deleted with it${live === undefined ? "" : ` (${live.nodeClaims} now)`}; ` +
      `every node is drained and terminated without replacement, not paced by budgets`;
    return {
      ...base,
      replaces: "removes",
      summary,
      nodePools: [name],
      ...(live === undefined ? {} : { live: [live] }),
    };
  }
  const users = ctx.referencing(name);
  const summary =
    `deleted: the deletion waits until no NodeClaim uses it` +
    `${users.length === 0 ? "" : `; ${users.join(", ")} still reference it and cannot launch nodes`}`;
  return { ...base, replaces: "none", summary, nodePools: users };
}

/** The preview of every object that differs between `before` and `after` (matched by kind and name). */
export function previewDrift(request: PreviewRequest): DriftPreview {
  const { before, after, now, live } = request;
  const ctx = new PreviewContext(
    now,
    after.filter((o) => o.kind === "NodePool").map((o) => o.value),
    live,
  );
  const old = new Map(before.map((o) => [keyOf(o), o]));
  const seen = new Set<string>();
  const changed: ObjectPreview[] = [];
  let unchanged = 0;
  for (const o of after) {
    const key = keyOf(o);
    if (seen.has(key)) continue;
    seen.add(key);
    const was = old.get(key);
    if (was === undefined) changed.push(added(o));
    else if (comparable(was) === comparable(o)) unchanged++;
    else changed.push(o.kind === "NodePool" ? nodePoolPreview(was, o, ctx) : nodeClassPreview(was, o, ctx));
  }
  for (const [key, o] of old) if (!seen.has(key)) changed.push(removed(o, ctx));
  return { now: now.toISOString(), changed, unchanged };
}
