import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  CLUSTER_NAME_TAGGED_ANNOTATION,
  TAGGED_ANNOTATION,
  TAGGED_ANNOTATIONS,
  isTaggable,
  missingInstanceTags,
} from "./instance-tagging.ts";
import type { NodeClaim } from "./objects.ts";

function claim(o: { nodeName?: string; annotations?: Record<string, string>; deleting?: boolean } = {}): NodeClaim {
  const annotations = o.annotations === undefined ? {} : { annotations: o.annotations };
  const deleting = o.deleting === true ? { deletionTimestamp: "2026-11-26T00:00:00Z" } : {};
  const nodeName = o.nodeName === undefined ? {} : { nodeName: o.nodeName };
  return {
    metadata: { name: "default-abcde", ...annotations, ...deleting },
    status: { providerID: "aws:///us-east-1a/i-0123", ...nodeName },
  };
}

const NODE = "ip-10-0-1-23.ec2.internal";
const CLAIM_TAGS = { "karpenter.sh/nodeclaim": "default-abcde", "eks:eks-cluster-name": "demo" };

void describe("which instance tags a registered NodeClaim adds", () => {
  void it("should tag only NodeClaims whose Node registered, not yet tagged and not terminating", () => {
    assert.equal(isTaggable(claim({ nodeName: NODE })), true);
    assert.equal(isTaggable(claim()), false, "no Node name yet");
    assert.equal(isTaggable(claim({ nodeName: NODE, deleting: true })), false);
    assert.equal(isTaggable(claim({ nodeName: NODE, annotations: { ...TAGGED_ANNOTATIONS } })), false);
    const beforeClusterName = claim({ nodeName: NODE, annotations: { [TAGGED_ANNOTATION]: "true" } });
    assert.equal(isTaggable(beforeClusterName), true, "tagged before the cluster-name tag existed");
    assert.equal(TAGGED_ANNOTATIONS[CLUSTER_NAME_TAGGED_ANNOTATION], "true");
  });

  void it("should add Name (the Node's name), the nodeclaim and cluster-name tags when the instance lacks them", () => {
    assert.deepEqual(missingInstanceTags(claim({ nodeName: NODE }), "demo", {}), { Name: NODE, ...CLAIM_TAGS });
  });

  void it("should leave tags the instance already has, a user's Name included", () => {
    const registered = claim({ nodeName: NODE });
    assert.deepEqual(missingInstanceTags(registered, "demo", { Name: "team-a-worker", ...CLAIM_TAGS }), {});
    assert.deepEqual(missingInstanceTags(registered, "demo", { Name: "team-a-worker" }), CLAIM_TAGS);
  });

  void it("should replace the placeholder Name earlier kerf versions set at launch", () => {
    const existing = { Name: "karpenter.sh/nodepool/default", ...CLAIM_TAGS };
    assert.deepEqual(missingInstanceTags(claim({ nodeName: NODE }), "demo", existing), { Name: NODE });
  });
});
