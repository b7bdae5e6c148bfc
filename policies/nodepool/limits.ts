// limits-required: spec.limits sets cpu and memory; advisory warning when a limit is below the smallest matching node.
import { catalogView, matchingTypes, requirementsOf, templateRequirements } from "../catalog-index.ts";
import type { InstanceType } from "../domain/instance-types.ts";
import { formatResource, resourceValue, tryParseQuantity } from "../domain/quantity.ts";
import { asObject, get } from "../object.ts";
import type { Issue, Policy, PolicyInput } from "../types.ts";

const REQUIRED = ["cpu", "memory"] as const;

const smallestMemo = new WeakMap<readonly InstanceType[], Map<string, InstanceType | undefined>>();

/** The type with the least capacity of `resource`; memoised per (memoised) match list. */
function smallest(types: readonly InstanceType[], resource: string): InstanceType | undefined {
  let memo = smallestMemo.get(types);
  if (memo === undefined) smallestMemo.set(types, (memo = new Map()));
  if (!memo.has(resource)) memo.set(resource, scanSmallest(types, resource));
  return memo.get(resource);
}

function scanSmallest(types: readonly InstanceType[], resource: string): InstanceType | undefined {
  let best: InstanceType | undefined;
  for (const t of types) {
    const value = t.capacity[resource] ?? Number.POSITIVE_INFINITY;
    if (best === undefined || value < (best.capacity[resource] ?? Number.POSITIVE_INFINITY)) best = t;
  }
  return best;
}

function belowSmallest(input: PolicyInput, limits: Record<string, unknown>): Issue[] {
  const reqs = templateRequirements(input);
  if (reqs === undefined) return [];
  const types = matchingTypes(catalogView(input.context.catalog), requirementsOf(reqs));
  return REQUIRED.flatMap((resource) => {
    const raw = limits[resource];
    const limit = tryParseQuantity(raw) === undefined ? undefined : resourceValue(resource, raw as string | number);
    const type = smallest(types, resource);
    const capacity = type?.capacity[resource];
    if (limit === undefined || type === undefined || capacity === undefined || limit >= capacity) return [];
    const message =
      `limit ${resource}=${String(limits[resource])} is below the smallest matching instance type ` +
      `(${type.name}: ${formatResource(resource, capacity)}): the NodePool cannot launch any node`;
    return [{ path: `spec.limits.${resource}`, message, advisory: true }];
  });
}

function limitIssues(input: PolicyInput): Issue[] {
  const spec = input.object["spec"];
  if (get(spec, "replicas") !== undefined) return []; // static NodePools may only limit nodes (CEL rule 2)
  const limits = asObject(get(spec, "limits"));
  const missing = REQUIRED.filter((r) => limits?.[r] === undefined);
  const issues: Issue[] = missing.map((resource) => ({
    path: limits === undefined ? "spec.limits" : `spec.limits.${resource}`,
    message: `spec.limits.${resource} is not set: the NodePool can grow without bound`,
  }));
  if (limits === undefined)
    return [
      {
        path: "spec.limits",
        message: "spec.limits must set cpu and memory: without limits the NodePool can grow without bound",
      },
    ];
  return [...issues, ...belowSmallest(input, limits)];
}

/** The limits-required policy. */
export const LIMITS_REQUIRED_POLICY: Policy = {
  id: "limits-required",
  kinds: ["NodePool"],
  defaultSeverity: "deny",
  description: "spec.limits sets cpu and memory, and not below one node of the smallest matching instance type",
  check: limitIssues,
};
