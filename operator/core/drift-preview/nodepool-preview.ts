/**
 * The preview of a changed NodePool: the static hash (all of spec.template but requirements) drifts every
 * node (NodePoolDrifted), a narrowed requirement the nodes whose label falls outside (RequirementsDrifted),
 * and nothing else — disruption, limits, weight and widened requirements replace no node.
 */
import type { NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";
import { canonicalJson } from "../launch-template/hash.ts";
import { hashedTemplate, NodePoolHash } from "../nodepool/hash.ts";
import { at, nameOf, type PreviewContext } from "./context.ts";
import { fieldChanges, shown } from "./field-diff.ts";
import { narrowedRequirements } from "./requirements-change.ts";
import type { DriftCause, FieldChange, ObjectPreview, PreviewInput, Replacement } from "./types.ts";

type Obj = Readonly<Record<string, unknown>>;

const requirementsOf = (pool: unknown): NodeSelectorRequirement[] => {
  const r = at(pool, "spec", "template", "spec", "requirements");
  return Array.isArray(r) ? (r as NodeSelectorRequirement[]) : [];
};

/**
 * What the hash does not cover: the pool's own labels and annotations (but its hash
 * stamps), and spec but the template.
 */
function unhashedPart(pool: Obj): unknown {
  const {
    [NodePoolHash.key]: _h,
    [NodePoolHash.versionKey]: _v,
    ...annotations
  } = (at(pool, "metadata", "annotations") ?? {}) as Record<string, unknown>;
  const { template: _t, ...spec } = (at(pool, "spec") ?? {}) as Record<string, unknown>;
  return { metadata: { labels: at(pool, "metadata", "labels"), annotations }, spec };
}

function templateCause(before: Obj, after: Obj): DriftCause | undefined {
  const template = (p: Obj): unknown => at(p, "spec", "template");
  const fields = fieldChanges("spec.template", {
    before: hashedTemplate(before),
    after: hashedTemplate(after),
    rawBefore: template(before),
    rawAfter: template(after),
  });
  if (fields.length === 0) return undefined;
  return {
    reason: "NodePoolDrifted",
    scope: "every node",
    detail: "the template hash changes: every node of the pool is replaced",
    fields,
  };
}

function requirementCauses(before: Obj, after: Obj): DriftCause[] {
  const old = requirementsOf(before);
  try {
    return narrowedRequirements(old, requirementsOf(after)).map((n) => {
      const was = old
        .filter((r) => r.key === n.key)
        .map((r) => `${r.operator}${r.values === undefined ? "" : ` [${r.values.join(" ")}]`}`)
        .join(", ");
      const now = n.requirement.startsWith(`${n.key} `) ? n.requirement.slice(n.key.length + 1) : n.requirement;
      const fields: FieldChange[] = [
        { path: `spec.template.spec.requirements[${n.key}]`, before: was === "" ? "(unset)" : was, after: now },
      ];
      return { reason: "RequirementsDrifted", scope: "some nodes", detail: n.nodes, fields };
    });
  } catch (error) {
    return [
      {
        reason: "RequirementsDrifted",
        scope: "maybe",
        detail: `the new requirements cannot be read (${(error as Error).message})`,
        fields: [],
      },
    ];
  }
}

function unhashedChanges(before: Obj, after: Obj, narrowed: boolean): FieldChange[] {
  const fields = fieldChanges("", { before: unhashedPart(before), after: unhashedPart(after) });
  const [old, now] = [requirementsOf(before), requirementsOf(after)];
  if (!narrowed && canonicalJson(old) !== canonicalJson(now))
    fields.push({ path: "spec.template.spec.requirements", before: shown(old), after: shown(now) });
  return fields;
}

function verdict(replaces: Replacement, causes: readonly DriftCause[], unhashed: readonly FieldChange[]): string {
  if (replaces === "all") return `replaces every node (${causes.map((c) => c.reason).join(", ")})`;
  if (replaces === "some") return `replaces ${causes.map((c) => c.detail).join("; ")} (RequirementsDrifted)`;
  if (replaces === "maybe") return causes.map((c) => c.detail).join("; ");
  if (unhashed.length === 0)
    return "no replacement: the template hash is unchanged (only order or spelling the hash ignores changed)";
  const top = [
    ...new Set(
      unhashed.map((f) => (f.path.startsWith("spec.template") ? f.path : f.path.split(/[.[]/).slice(0, 2).join("."))),
    ),
  ];
  return `no replacement: only ${top.join(", ")} changed, which the drift hash does not cover`;
}

/** The preview of a NodePool present on both sides and changed. */
export function nodePoolPreview(before: PreviewInput, after: PreviewInput, ctx: PreviewContext): ObjectPreview {
  const name = nameOf(after.value);
  const template = templateCause(before.value, after.value);
  const requirements = requirementCauses(before.value, after.value);
  const causes = [...(template === undefined ? [] : [template]), ...requirements];
  const replaces: Replacement =
    template !== undefined
      ? "all"
      : requirements.some((c) => c.scope === "some nodes")
        ? "some"
        : requirements.length > 0
          ? "maybe"
          : "none";
  const unhashed = unhashedChanges(before.value, after.value, requirements.length > 0);
  const live = ctx.liveCount(name, { kind: "NodePool", pool: after.value });
  return {
    kind: "NodePool",
    name,
    change: "modified",
    source: after.source,
    replaces,
    summary: verdict(replaces, causes, unhashed),
    causes,
    unhashed,
    nodePools: [name],
    pacing: replaces === "none" ? [] : [ctx.pacing(name, replaces, live)],
    ...(live === undefined ? {} : { live: [live] }),
  };
}
