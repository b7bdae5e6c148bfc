// kerf "strict" EC2NodeClass checks for the released schema's gaps (karpenter-v1-api.md §10 items 1, 2, 3, 13).
import { VOLUME_SIZE } from "../api/patterns.ts";
import { asString, get, has, objects } from "./fields.ts";
import type { Issue, Policy, PolicyInput } from "../types.ts";

interface Exclusion {
  list: string;
  field: string;
  others: readonly string[];
  message: string;
}

/** Upstream checks these with `.all()`, so one good term hides a bad one (§10.1); kerf checks each term. */
const EXCLUSIONS: readonly Exclusion[] = [
  {
    list: "subnetSelectorTerms",
    field: "id",
    others: ["tags"],
    message: "'id' is mutually exclusive, cannot be set with a combination of other fields in a subnet selector term",
  },
  {
    list: "securityGroupSelectorTerms",
    field: "id",
    others: ["tags", "name"],
    message:
      "'id' is mutually exclusive, cannot be set with a combination of other fields in a security group selector term",
  },
  {
    list: "securityGroupSelectorTerms",
    field: "name",
    others: ["tags", "id"],
    message:
      "'name' is mutually exclusive, cannot be set with " +
      "a combination of other fields in a security group selector term",
  },
  {
    list: "capacityReservationSelectorTerms",
    field: "id",
    others: ["tags", "ownerID", "instanceMatchCriteria"],
    message:
      "'id' is mutually exclusive, cannot be set along with other fields in a capacity reservation selector term",
  },
];

/** Upstream id patterns are unanchored (§10.2): "xx ami-1 yy" passes. */
const ANCHORED_IDS: readonly { list: string; pattern: RegExp; example: string }[] = [
  { list: "amiSelectorTerms", pattern: /^ami-[0-9a-z]+$/, example: "ami-0123456789abcdef0" },
  { list: "securityGroupSelectorTerms", pattern: /^sg-[0-9a-z]+$/, example: "sg-0123456789abcdef0" },
  { list: "subnetSelectorTerms", pattern: /^subnet-[0-9a-z]+$/, example: "subnet-0123456789abcdef0" },
];

const VOLUME_SIZE_LIMITS: Readonly<Record<string, number>> = { Gi: 59000, G: 64000, Ti: 58, T: 64 };
const UPSTREAM_VOLUME_SIZE = new RegExp(VOLUME_SIZE);

function exclusionIssues(spec: unknown): Issue[] {
  return EXCLUSIONS.flatMap(({ list, field, others, message }) => {
    const terms = objects(get(spec, list));
    const bad = terms.flatMap((t, i) => (has(t, field) && others.some((o) => has(t, o)) ? [i] : []));
    // When every term is bad the upstream CEL rule already rejects the list.
    return bad.length === terms.length ? [] : bad.map((i) => ({ path: `spec.${list}[${i}]`, message }));
  });
}

function idIssues(spec: unknown): Issue[] {
  return ANCHORED_IDS.flatMap(({ list, pattern, example }) =>
    objects(get(spec, list)).flatMap((term, i) => {
      const id = asString(term["id"]);
      return id === undefined || pattern.test(id)
        ? []
        : [{ path: `spec.${list}[${i}].id`, message: `id "${id}" is not a bare id such as ${example}` }];
    }),
  );
}

/** A size the upstream regex accepts but EC2 does not: bare "Ti"/"T" (the pattern's empty alternatives, §10.3). */
function volumeSizeIssues(spec: unknown): Issue[] {
  return objects(get(spec, "blockDeviceMappings")).flatMap((mapping, i) => {
    const size = asString(get(mapping, "ebs", "volumeSize"));
    if (size === undefined || !UPSTREAM_VOLUME_SIZE.test(size)) return [];
    const match = /^([1-9][0-9]*)(Gi|G|Ti|T)$/.exec(size);
    const limit = VOLUME_SIZE_LIMITS[match?.[2] ?? ""];
    if (match !== null && limit !== undefined && Number(match[1]) <= limit) return [];
    return [
      {
        path: `spec.blockDeviceMappings[${i}].ebs.volumeSize`,
        message: `volumeSize "${size}" has no size; write a number with a unit, e.g. 100Gi`,
      },
    ];
  });
}

/** The EC2NodeClass "strict" policy. */
export const EC2NODECLASS_STRICT_POLICY: Policy = {
  id: "strict",
  kinds: ["EC2NodeClass"],
  defaultSeverity: "deny",
  description:
    "closes the released schema's gaps: per-term mutual exclusion, anchored ids, volumeSize holes, spec required",
  check: (input: PolicyInput) => {
    const spec = input.object["spec"];
    if (spec === undefined)
      return [{ path: "spec", message: "Required value: an EC2NodeClass without spec cannot launch nodes" }];
    return [...exclusionIssues(spec), ...idIssues(spec), ...volumeSizeIssues(spec)];
  },
};
