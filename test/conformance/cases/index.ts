// The whole conformance corpus, reused by the unit run (test/unit/conformance.test.ts) and the apiserver run.
import type { ConformanceCase } from "../case.ts";
import { EC2NODECLASS_CEL_CASES, EC2NODECLASS_OTHER_CASES } from "./ec2nodeclass.ts";
import { INT64_CASES, NULL_CASES, PROTOTYPE_KEY_CASES } from "./json-values.ts";
import { METADATA_CASES } from "./metadata.ts";
import { RE2_CASES } from "./regex.ts";
import { NODECLAIM_CASES } from "./nodeclaim.ts";
import { NODEPOOL_BUDGET_CASES, NODEPOOL_POLICY_CASES, NODEPOOL_RUNTIME_CASES } from "./nodepool-kerf.ts";
import { NODEPOOL_CEL_CASES, NODEPOOL_SCHEMA_CASES } from "./nodepool-parity.ts";

/** Every case. */
export const CASES: readonly ConformanceCase[] = [
  ...NODEPOOL_SCHEMA_CASES,
  ...NODEPOOL_CEL_CASES,
  ...NODEPOOL_RUNTIME_CASES,
  ...NODEPOOL_BUDGET_CASES,
  ...NODEPOOL_POLICY_CASES,
  ...EC2NODECLASS_CEL_CASES,
  ...EC2NODECLASS_OTHER_CASES,
  ...NODECLAIM_CASES,
  ...INT64_CASES,
  ...NULL_CASES,
  ...PROTOTYPE_KEY_CASES,
  ...METADATA_CASES,
  ...RE2_CASES,
];
