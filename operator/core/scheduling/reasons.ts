/**
 * Unschedulable-pod reasons a person can act on ("no instance type in NodePool gpu has 8
 * nvidia.com/gpu with arch arm64").
 */
import { formatResource } from "../../../policies/domain/quantity.ts";
import type { Requirements } from "../../../policies/domain/requirements.ts";
import { andBits, isEmptyBits, type Bitset } from "./bitset.ts";
import type { PoolTypes } from "./pool-types.ts";
import type { ResourceSpace } from "./resource-space.ts";

/** "arch arm64", "instance-family c5,m5", "zone NotIn [us-east-1a]". */
export function describeRequirements(reqs: Requirements): string {
  return [...reqs]
    .map((r) => {
      const short = r.key.slice(r.key.lastIndexOf("/") + 1);
      return r.operator() === "In" ? `${short} ${[...r.values].sort().join(",")}` : r.toString().replace(r.key, short);
    })
    .join(", ");
}

/** Why no instance type of the pool can take the pod (with the pool's limits applied through `allowed`). */
export function noFitReason(init: {
  pool: PoolTypes;
  podReqs: Requirements;
  vector: Float64Array;
  space: ResourceSpace;
  allowed: Bitset;
}): string {
  const { pool, podReqs, vector, space } = init;
  const name = pool.pool.name;
  const withReqs = podReqs.size === 0 ? "" : ` with ${describeRequirements(podReqs)}`;
  if (pool.types.length === 0) return `NodePool ${name} has no instance type that satisfies its own requirements`;
  const compatible = andBits(init.allowed, pool.typesFor(pool.requirements.intersect(podReqs)));
  if (isEmptyBits(compatible))
    return `no instance type in NodePool ${name} satisfies the pod's requirements${withReqs}`;
  const max = pool.maxOf(compatible);
  const parts = space.names
    .filter((_, i) => vector[i]! > max[i]!)
    .map((n) => `${formatResource(n, vector[space.names.indexOf(n)]!)} ${n}`);
  const limited = init.allowed !== pool.all;
  if (
    limited &&
    !isEmptyBits(pool.fitting(andBits(pool.all, pool.typesFor(pool.requirements.intersect(podReqs))), vector))
  ) {
    return `NodePool ${name} limits leave no instance type with room for the pod${withReqs}`;
  }
  if (parts.length === 0)
    return `no instance type in NodePool ${name} has room for the pod${withReqs} and its daemonsets together`;
  return `no instance type in NodePool ${name} has ${parts.join(" and ")}${withReqs}`;
}
