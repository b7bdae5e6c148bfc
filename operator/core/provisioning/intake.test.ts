import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { optsOutOfKarpenter, type SchedulingPod } from "./intake.ts";

const NOT_KARPENTER = { key: "karpenter.sh/nodepool", operator: "DoesNotExist" };
const ZONE_A = { key: "topology.kubernetes.io/zone", operator: "In", values: ["us-east-1a"] };

function pod(o: {
  selector?: Record<string, string>;
  required?: object[][];
  preferred?: { weight: number; expressions: object[] }[];
}): SchedulingPod {
  return {
    spec: {
      ...(o.selector === undefined ? {} : { nodeSelector: o.selector }),
      affinity: {
        nodeAffinity: {
          ...(o.required === undefined
            ? {}
            : {
                requiredDuringSchedulingIgnoredDuringExecution: {
                  nodeSelectorTerms: o.required.map((matchExpressions) => ({ matchExpressions })),
                },
              }),
          ...(o.preferred === undefined
            ? {}
            : {
                preferredDuringSchedulingIgnoredDuringExecution: o.preferred.map((p) => ({
                  weight: p.weight,
                  preference: { matchExpressions: p.expressions },
                })),
              }),
        },
      },
    } as SchedulingPod["spec"],
  };
}

void describe("pods that ask not to run on a Karpenter node", () => {
  const cases: { name: string; pod: SchedulingPod; ignored: boolean }[] = [
    {
      name: "a required karpenter.sh/nodepool DoesNotExist term",
      pod: pod({ required: [[NOT_KARPENTER]] }),
      ignored: true,
    },
    {
      name: "DoesNotExist next to other expressions of the first required term",
      pod: pod({ required: [[ZONE_A, NOT_KARPENTER]] }),
      ignored: true,
    },
    {
      name: "the heaviest preferred term asking for DoesNotExist (Karpenter treats it as required)",
      pod: pod({
        preferred: [
          { weight: 1, expressions: [ZONE_A] },
          { weight: 50, expressions: [NOT_KARPENTER] },
        ],
      }),
      ignored: true,
    },
    {
      name: "DoesNotExist only in a lighter preferred term",
      pod: pod({
        preferred: [
          { weight: 50, expressions: [ZONE_A] },
          { weight: 1, expressions: [NOT_KARPENTER] },
        ],
      }),
      ignored: false,
    },
    {
      name: "DoesNotExist only in a later required term (an alternative)",
      pod: pod({ required: [[ZONE_A], [NOT_KARPENTER]] }),
      ignored: false,
    },
    {
      name: "karpenter.sh/nodepool Exists",
      pod: pod({ required: [[{ key: "karpenter.sh/nodepool", operator: "Exists" }]] }),
      ignored: false,
    },
    {
      name: "a nodeSelector on one NodePool",
      pod: pod({ selector: { "karpenter.sh/nodepool": "default" } }),
      ignored: false,
    },
    { name: "no node affinity at all", pod: {}, ignored: false },
    {
      name: "a malformed requirement (left to the validation that reports it)",
      pod: pod({ required: [[{ key: "karpenter.k8s.aws/instance-cpu", operator: "Gt", values: ["many"] }]] }),
      ignored: false,
    },
  ];
  for (const c of cases) {
    void it(`should ${c.ignored ? "ignore" : "take"} a pod with ${c.name}`, () =>
      assert.equal(optsOutOfKarpenter(c.pod), c.ignored));
  }
});
