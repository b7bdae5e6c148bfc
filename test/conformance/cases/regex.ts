// Upstream patterns are RE2: `\s` is [\t\n\f\r ] and `.` is anything but \n (found by the differential fuzz).
import { EC2NODECLASS, NODEPOOL, variant, type ConformanceCase } from "../case.ts";

const schedule = (s: string): Record<string, unknown> =>
  variant(NODEPOOL, (o) => (o.spec.disruption.budgets = [{ nodes: "0", schedule: s, duration: "1h" }]));
const alias = (a: string): Record<string, unknown> =>
  variant(EC2NODECLASS, (o) => (o.spec.amiSelectorTerms = [{ alias: a }]));
const SCHEDULE_PATH = "spec.disruption.budgets[0].schedule";

export const RE2_CASES: ConformanceCase[] = [
  {
    name: "rejects a budget schedule whose fields a vertical tab separates (not \\s in RE2)",
    kind: "NodePool",
    object: schedule("0 0 * *\v*"),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: SCHEDULE_PATH, message: "should match" }],
  },
  {
    name: "rejects a budget schedule whose fields a no-break space separates",
    kind: "NodePool",
    object: schedule("0 0 * *\u00a0*"),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: SCHEDULE_PATH, message: "should match" }],
  },
  {
    name: "accepts a budget schedule ending in a carriage return (. matches it in RE2; cron splits on it)",
    kind: "NodePool",
    object: schedule("0 0 * * *\r"),
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "accepts an alias whose version ends in a carriage return (. matches it in RE2)",
    kind: "EC2NodeClass",
    object: alias("al2023@latest\r"),
    apiserver: "accept",
    kerf: "allow",
  },
];
