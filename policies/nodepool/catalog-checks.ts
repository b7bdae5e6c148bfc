// Catalog policies: spot-diversity (enough instance types for spot) and
// requirements-satisfiable (≥ 1 type, minValues).
import {
  catalogView,
  distinctValues,
  matchingTypes,
  requirementsOf,
  templateRequirements,
  type CatalogView,
  type IndexedRequirement,
} from "../catalog-index.ts";
import { Label } from "../domain/labels.ts";
import { Requirement } from "../domain/requirements.ts";
import type { Issue, Policy, PolicyInput } from "../types.ts";

const REQUIREMENTS_PATH = "spec.template.spec.requirements";

interface Narrowest {
  index: number;
  countWithout: number;
  text: string;
}

/** The requirement whose removal lets the most types back in (leave-one-out), if any widens the set. */
function narrowest(
  view: CatalogView,
  reqs: readonly IndexedRequirement[],
  extra: readonly Requirement[],
  baseline: number,
): Narrowest | undefined {
  let best: Narrowest | undefined;
  for (const candidate of reqs) {
    const others = reqs.filter((r) => r !== candidate).map((r) => r.requirement);
    const count = matchingTypes(view, [...others, ...extra]).length;
    if (count > baseline && (best === undefined || count > best.countWithout)) {
      best = { index: candidate.index, countWithout: count, text: candidate.requirement.toString() };
    }
  }
  return best;
}

function narrowestText(n: Narrowest | undefined): string {
  return n === undefined
    ? "no single requirement accounts for it"
    : `the narrowest requirement is ${REQUIREMENTS_PATH}[${n.index}] (${n.text}); ` +
        `without it ${n.countWithout} types match`;
}

function allowsSpot(reqs: readonly IndexedRequirement[]): boolean {
  return reqs.filter((r) => r.requirement.key === Label.capacityType).every((r) => r.requirement.has("spot"));
}

function spotDiversity(input: PolicyInput): Issue[] {
  const reqs = templateRequirements(input);
  if (reqs === undefined || !allowsSpot(reqs)) return [];
  const view = catalogView(input.context.catalog);
  const spot = [Requirement.in(Label.capacityType, ["spot"])];
  const count = matchingTypes(view, [...reqs.map((r) => r.requirement), ...spot]).length;
  const threshold = input.context.config.spotDiversity.minInstanceTypes;
  if (count >= threshold) return [];
  const worst = narrowest(view, reqs, spot, count);
  const message =
    `the NodePool allows spot but only ${count} instance types of the ${view.region} catalog ` +
    `match its requirements as spot (at least ${threshold} needed to diversify against interruptions); ` +
    `${narrowestText(worst)}`;
  return [{ path: worst === undefined ? REQUIREMENTS_PATH : `${REQUIREMENTS_PATH}[${worst.index}]`, message }];
}

function minValuesIssues(view: CatalogView, reqs: readonly IndexedRequirement[]): Issue[] {
  const all = requirementsOf(reqs);
  const types = matchingTypes(view, all);
  return reqs.flatMap(({ index, requirement }) => {
    const needed = requirement.minValues;
    if (needed === undefined) return [];
    const values = distinctValues(view, requirement.key, all);
    if (values.size >= needed) return [];
    const shown = [...values].slice(0, 10).join(", ");
    const message =
      `minValues ${needed} for ${requirement.key} cannot be met: ` +
      `the ${types.length} matching instance types offer ${values.size} distinct values` +
      `${shown === "" ? "" : ` (${shown})`}`;
    return [{ path: `${REQUIREMENTS_PATH}[${index}].minValues`, message }];
  });
}

function satisfiable(input: PolicyInput): Issue[] {
  const reqs = templateRequirements(input);
  if (reqs === undefined) return [];
  const view = catalogView(input.context.catalog);
  const count = matchingTypes(view, requirementsOf(reqs)).length;
  if (count === 0) {
    const worst = narrowest(view, reqs, [], 0);
    const message =
      `the requirements match no instance type of the ${view.region} catalog, ` +
      `so the NodePool can never launch a node; ${narrowestText(worst)}`;
    return [{ path: worst === undefined ? REQUIREMENTS_PATH : `${REQUIREMENTS_PATH}[${worst.index}]`, message }];
  }
  return minValuesIssues(view, reqs);
}

/**
 * spot-diversity: a spot-capable NodePool allows at least
 * `spotDiversity.minInstanceTypes` (default 15) catalog types.
 */
export const SPOT_DIVERSITY_POLICY: Policy = {
  id: "spot-diversity",
  kinds: ["NodePool"],
  defaultSeverity: "deny",
  description: "a NodePool that allows spot allows enough instance types to diversify",
  check: spotDiversity,
};

/** requirements-satisfiable: the requirements match ≥ 1 catalog type and every minValues is achievable. */
export const REQUIREMENTS_SATISFIABLE_POLICY: Policy = {
  id: "requirements-satisfiable",
  kinds: ["NodePool"],
  defaultSeverity: "deny",
  description: "requirements match at least one instance type, with enough distinct values for minValues",
  check: satisfiable,
};
