// The 10 NodeClaim CEL rules (v1.14.1 AWS copy): spec immutability plus the NodePool requirement rules.
import { NODECLAIM_CEL_RULES } from "../api/cel-rules.ts";
import { celPolicy, type CelPredicate } from "../cel.ts";
import { REQUIREMENT_PREDICATES as R, specUnchanged } from "../nodepool/parity.ts";
import type { Policy } from "../types.ts";

/** Predicates by NodeClaim rule id. */
export const NODECLAIM_PREDICATES: Readonly<Record<string, CelPredicate>> = {
  "NodeClaim/1": specUnchanged,
  "NodeClaim/2": R.notEmpty,
  "NodeClaim/3": R.notEmpty,
  "NodeClaim/4": R.notEmpty,
  "NodeClaim/5": R.inHasValues,
  "NodeClaim/6": R.orderHasOneInteger,
  "NodeClaim/7": R.minValuesHasValues,
  "NodeClaim/8": R.coreDomain,
  "NodeClaim/9": R.notHostname,
  "NodeClaim/10": R.awsDomain,
};

/** The NodeClaim "cel" policy. */
export const NODECLAIM_CEL_POLICY: Policy = celPolicy("NodeClaim", NODECLAIM_CEL_RULES, NODECLAIM_PREDICATES);
