// Where kerf's admission verdict differs from the apiserver's with Karpenter's own CRDs, by design: the one list the
// differential fuzz (test/integration/conformance-fuzz.test.ts) accepts a disagreement from. Anything else fails it.
import type { Finding } from "../../policies/types.ts";

/**
 * A documented disagreement. kerf is stricter when it denies what the apiserver accepts: every denying finding must
 * be matched by some entry. Entries name the kerf check and say why it is stricter on purpose.
 */
export interface KnownDifference {
  readonly name: string;
  readonly reason: string;
  /** Whether a denying kerf finding is this check. */
  readonly matches: (finding: Finding) => boolean;
}

const RUNTIME =
  "Karpenter validates this after admission (RuntimeValidate), " +
  "where the NodePool then fails readiness and launches nothing; kerf denies it at admission";
const STRICT = "Karpenter v1.14's CRD does not catch it, yet the object cannot work; kerf's strict policy denies it";

const is =
  (policy: string, message: RegExp) =>
  (f: Finding): boolean =>
    f.policy === policy && message.test(f.message);

export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [
  {
    name: "runtime: template label key not a qualified name",
    reason: RUNTIME,
    matches: is("runtime", /^invalid key name ".*" in labels, /s),
  },
  {
    name: "runtime: template label in a restricted domain",
    reason: RUNTIME,
    matches: is("runtime", /^label .* is restricted; specify a well known label/s),
  },
  {
    name: "runtime: requirement key not a qualified name",
    reason: RUNTIME,
    matches: is("runtime", /^key .* is not a qualified name, /s),
  },
  {
    name: "runtime: requirement key restricted",
    reason: RUNTIME,
    matches: is("runtime", /^invalid key name ".*" in requirements, restricted$/s),
  },
  {
    name: "runtime: requirement value not a label value",
    reason: RUNTIME,
    matches: is("runtime", /^invalid value .* for key .*, /s),
  },
  {
    name: "runtime: In requirement lists only unknown values of a closed label",
    reason: RUNTIME,
    matches: is("runtime", /^invalid value\(s\) .* for label .*, must be one of /s),
  },
  {
    name: "runtime: requirement operator and values",
    reason: RUNTIME,
    matches: is("runtime", /^key .* (has an unsupported operator|with operator)/s),
  },
  { name: "runtime: taints", reason: RUNTIME, matches: (f) => f.policy === "runtime" && /taint/i.test(f.message) },
  {
    name: "strict: taint value not a label value",
    reason: `${STRICT}: writing the taint to the Node fails`,
    matches: is("strict", /^taint value .* is not a valid label value/s),
  },
  {
    name: "strict: values on Exists/DoesNotExist",
    reason: `${STRICT}: Karpenter ignores the values, which hides a mistake`,
    matches: is("strict", /^values may not be specified when operator is /),
  },
  {
    name: "strict: negative limit",
    reason: `${STRICT}: a negative limit blocks every launch`,
    matches: is("strict", /^limit .* must not be negative/s),
  },
  {
    name: "strict: selector-term exclusivity checked with .all",
    reason: `${STRICT}: the CEL rule uses .all where each term must hold (§10.1)`,
    matches: is("strict", /is mutually exclusive/),
  },
  {
    name: "strict: unanchored AMI, subnet, security group id",
    reason: `${STRICT}: the id pattern is unanchored (§10.2)`,
    matches: is("strict", /^id ".*" is not a bare id/s),
  },
  {
    name: "strict: volumeSize EC2 cannot create",
    reason: `${STRICT}: the pattern accepts a bare unit and sizes above the EBS maximum (§10.3)`,
    matches: is("strict", /^volumeSize /),
  },
  {
    name: "schema: a list where a date-time string is expected",
    reason:
      "kube-openapi skips the type check for a list in a string field with a format (taints[].timeAdded), so " +
      "the apiserver stores it; Karpenter cannot decode a list into a metav1.Time, and the NodePool breaks its " +
      "informers. kerf keeps the type check",
    matches: (f) =>
      f.policy === "schema" && /\.timeAdded$/.test(f.path) && f.message.endsWith('must be of type string: "array"'),
  },
  {
    name: "strict: EC2NodeClass without spec",
    reason: `${STRICT}: nothing can launch from it`,
    matches: is("strict", /^Required value: an EC2NodeClass without spec/),
  },
];

/** The entries that explain a kerf denial the apiserver does not share, or undefined if some denial is unexplained. */
export function explainStricter(denials: readonly Finding[]): string[] | undefined {
  const names = new Set<string>();
  for (const finding of denials) {
    const entry = KNOWN_DIFFERENCES.find((d) => d.matches(finding));
    if (entry === undefined) return undefined;
    names.add(entry.name);
  }
  return [...names];
}
