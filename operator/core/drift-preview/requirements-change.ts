/**
 * Which requirement changes drift nodes (RequirementsDrifted, behaviour §4.10): a NodeClaim drifts when
 * a label it carries no longer satisfies the pool's requirement on that key. Its labels satisfied the
 * old requirement, so a key drifts nodes exactly when some value the old requirement allowed is one the
 * new one refuses — the requirement narrowed. Widening (or dropping) a requirement drifts nothing.
 */
import { Requirement, Requirements, type NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";

/** A narrowed requirement and the nodes it drifts, in words (the nodes themselves are unknown offline). */
export interface Narrowing {
  readonly key: string;
  readonly requirement: string;
  readonly nodes: string;
}

/** `key Exists`: what an absent requirement allows of a label that is present. */
const anyValue = (key: string): Requirement => new Requirement({ key, complement: true, values: new Set() });

/** Values the old requirement allowed that the new one refuses, when there are finitely many to name. */
function refused(before: Requirement, after: Requirement): string[] | undefined {
  if (!before.complement) return [...before.values].filter((v) => before.has(v) && !after.has(v)).sort();
  if (!after.complement) return undefined;
  return [...after.values].filter((v) => before.has(v)).sort();
}

/** Whether a bound of the new requirement cuts off values the old one allowed. */
function boundsNarrowed(before: Requirement, after: Requirement): boolean {
  const gt =
    after.greaterThan !== undefined && (before.greaterThan === undefined || after.greaterThan > before.greaterThan);
  const lt = after.lessThan !== undefined && (before.lessThan === undefined || after.lessThan < before.lessThan);
  return gt || lt;
}

function describeNodes(after: Requirement, values: readonly string[] | undefined): string {
  const op = after.operator();
  if (op === "DoesNotExist") return `nodes that carry the label ${after.key}`;
  if (op === "In" && after.greaterThan === undefined && after.lessThan === undefined) {
    const removed = values === undefined || values.length === 0 ? "" : ` (${values.join(", ")} no longer allowed)`;
    return `nodes whose ${after.key} is no longer in [${[...after.values].sort().join(", ")}]${removed}`;
  }
  if (op === "NotIn" && values !== undefined && values.length > 0)
    return `nodes whose ${after.key} is one of [${values.join(", ")}]`;
  return `nodes whose ${after.key} no longer satisfies ${after.toString()}`;
}

function narrowing(before: Requirement, after: Requirement): Narrowing | undefined {
  const values = refused(before, after);
  const cut =
    values === undefined ||
    values.length > 0 ||
    (before.complement && after.complement && boundsNarrowed(before, after));
  return cut ? { key: after.key, requirement: after.toString(), nodes: describeNodes(after, values) } : undefined;
}

/**
 * The keys whose requirement narrowed from `before` to `after` (Kubernetes shapes; beta keys normalised
 * as the operator does). Throws RequirementError for a requirement the operator could not read either.
 */
export function narrowedRequirements(
  before: readonly NodeSelectorRequirement[],
  after: readonly NodeSelectorRequirement[],
): Narrowing[] {
  const old = Requirements.fromSelectors(before);
  const out: Narrowing[] = [];
  for (const requirement of Requirements.fromSelectors(after)) {
    const found = narrowing(old.get(requirement.key) ?? anyValue(requirement.key), requirement);
    if (found !== undefined) out.push(found);
  }
  return out;
}
