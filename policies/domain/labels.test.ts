import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  AWS_ALLOWED_LABELS,
  isRestrictedByCel,
  isRestrictedLabel,
  normalizeLabelKey,
  WELL_KNOWN_LABELS,
} from "./labels.ts";

describe("labels", () => {
  it("normalises every beta key to its GA key", () => {
    const cases: [string, string][] = [
      ["failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone"],
      ["failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region"],
      ["beta.kubernetes.io/arch", "kubernetes.io/arch"],
      ["beta.kubernetes.io/os", "kubernetes.io/os"],
      ["beta.kubernetes.io/instance-type", "node.kubernetes.io/instance-type"],
      ["team", "team"],
    ];
    for (const [beta, ga] of cases) assert.equal(normalizeLabelKey(beta), ga);
  });
  it("lists the 28 AWS keys allowed in NodePools", () => assert.equal(AWS_ALLOWED_LABELS.size, 28));
  it("treats zone-id as well known but not ec2nodeclass", () => {
    assert.ok(WELL_KNOWN_LABELS.has("topology.k8s.aws/zone-id"));
    assert.ok(!WELL_KNOWN_LABELS.has("karpenter.k8s.aws/ec2nodeclass"));
  });
  const restricted: [string, boolean, boolean][] = [
    // key, Go runtime, CEL admission
    ["karpenter.sh/capacity-type", false, false],
    ["karpenter.sh/custom", true, true],
    ["notkarpenter.sh/x", false, true],
    ["sub.karpenter.sh/x", true, true],
    ["karpenter.k8s.aws/instance-family", false, false],
    ["karpenter.k8s.aws/made-up", true, true],
    ["example.com/team", false, false],
  ];
  for (const [key, go, cel] of restricted) {
    it(`classifies ${key} as ${go ? "" : "not "}restricted at runtime and ${cel ? "" : "not "}by CEL`, () => {
      assert.equal(isRestrictedLabel(key), go);
      assert.equal(isRestrictedByCel(key), cel);
    });
  }
});
