/**
 * The preview of a changed EC2NodeClass: a hashed field (all of spec but the selector terms, amiFamily
 * and ipPrefixCount; the resolved AMI family is hashed) drifts every node launched from it
 * (NodeClassDrift); new AMI, subnet or security-group selector terms drift nodes only once they resolve
 * to other AMIs, subnets or groups than the nodes run with, which only the cluster's AWS account knows.
 */
import { hashedNodeClass, NodeClassHash } from "../disruption/nodeclass-hash.ts";
import type { DriftReason } from "../disruption/drift.ts";
import { at, nameOf, type PreviewContext } from "./context.ts";
import { fieldChanges, sameTermSet, shown } from "./field-diff.ts";
import type { DriftCause, FieldChange, LiveCount, ObjectPreview, PreviewInput, Replacement } from "./types.ts";

type Obj = Readonly<Record<string, unknown>>;

const RESOLVED_FAMILY = "spec.resolvedAMIFamily";

/** Selector terms checked against what they resolve to, and the drift each can cause. */
const SELECTORS: readonly { field: string; reason: DriftReason; what: string }[] = [
  { field: "amiSelectorTerms", reason: "AMIDrift", what: "AMIs" },
  { field: "subnetSelectorTerms", reason: "SubnetDrift", what: "subnets" },
  { field: "securityGroupSelectorTerms", reason: "SecurityGroupDrift", what: "security groups" },
  { field: "capacityReservationSelectorTerms", reason: "CapacityReservationDrift", what: "capacity reservations" },
];

function hashCause(before: Obj, after: Obj): DriftCause | undefined {
  const spec = (c: Obj): unknown => at(c, "spec");
  const fields = fieldChanges("spec", {
    before: hashedNodeClass(before),
    after: hashedNodeClass(after),
    rawBefore: spec(before),
    rawAfter: spec(after),
  }).map((f) =>
    f.path === RESOLVED_FAMILY ? { ...f, path: "AMI family (resolved from amiFamily and amiSelectorTerms)" } : f,
  );
  if (fields.length === 0) return undefined;
  return {
    reason: "NodeClassDrift",
    scope: "every node",
    detail: "the EC2NodeClass hash changes: every node launched from it is replaced",
    fields,
  };
}

function selectorCauses(before: Obj, after: Obj): DriftCause[] {
  return SELECTORS.flatMap(({ field, reason, what }) => {
    const [old, now] = [at(before, "spec", field), at(after, "spec", field)];
    if (sameTermSet(old, now)) return [];
    const detail = `may drift (${reason}) once the new terms resolve to different ${what} than the nodes run with`;
    return [
      {
        reason,
        scope: "maybe" as const,
        detail,
        fields: [{ path: `spec.${field}`, before: shown(old), after: shown(now) }],
      },
    ];
  });
}

/** Changes neither the hash nor a drift check sees: ipPrefixCount, metadata, amiFamily that resolves alike. */
function unhashedChanges(before: Obj, after: Obj, familyChanged: boolean): FieldChange[] {
  const part = (c: Obj): unknown => {
    const {
      [NodeClassHash.key]: _h,
      [NodeClassHash.versionKey]: _v,
      ...annotations
    } = (at(c, "metadata", "annotations") ?? {}) as Record<string, unknown>;
    const spec = {
      ipPrefixCount: at(c, "spec", "ipPrefixCount"),
      ...(familyChanged ? {} : { amiFamily: at(c, "spec", "amiFamily") }),
    };
    return { metadata: { labels: at(c, "metadata", "labels"), annotations }, spec };
  };
  return fieldChanges("", { before: part(before), after: part(after) });
}

function verdict(replaces: Replacement, causes: readonly DriftCause[], unhashed: readonly FieldChange[]): string {
  if (replaces === "all") return `replaces every node launched from it (${causes.map((c) => c.reason).join(", ")})`;
  if (replaces === "maybe")
    return (
      `may replace nodes: ${causes.map((c) => c.reason).join(", ")} ` +
      `once the new selector terms resolve to different resources`
    );
  if (unhashed.length === 0)
    return "no replacement: the EC2NodeClass hash is unchanged (only order or spelling the hash ignores changed)";
  return `no replacement: only ${unhashed.map((f) => f.path).join(", ")} changed, which no drift check covers`;
}

/** The preview of an EC2NodeClass present on both sides and changed. */
export function nodeClassPreview(before: PreviewInput, after: PreviewInput, ctx: PreviewContext): ObjectPreview {
  const name = nameOf(after.value);
  const hashed = hashCause(before.value, after.value);
  const causes = [...(hashed === undefined ? [] : [hashed]), ...selectorCauses(before.value, after.value)];
  const replaces: Replacement = hashed !== undefined ? "all" : causes.length > 0 ? "maybe" : "none";
  const familyChanged = hashed?.fields.some((f) => f.path.startsWith("AMI family")) ?? false;
  const unhashed = unhashedChanges(before.value, after.value, familyChanged);
  const nodePools = ctx.referencing(name);
  const live = nodePools
    .map((pool) => ctx.liveCount(pool, { kind: "EC2NodeClass", name, nodeClass: after.value }))
    .filter((l): l is LiveCount => l !== undefined);
  const pacing =
    replaces === "none"
      ? []
      : nodePools.map((pool) =>
          ctx.pacing(
            pool,
            replaces,
            live.find((l) => l.nodePool === pool),
          ),
        );
  return {
    kind: "EC2NodeClass",
    name,
    change: "modified",
    source: after.source,
    replaces,
    summary: verdict(replaces, causes, unhashed),
    causes,
    unhashed,
    nodePools,
    pacing,
    ...(ctx.hasLive ? { live } : {}),
  };
}
