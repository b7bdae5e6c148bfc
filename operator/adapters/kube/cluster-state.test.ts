import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { isProvisionable } from "./cluster-state.ts";

/** A pod kube-scheduler has failed (PodScheduled=False/Unschedulable), with the given node affinity. */
function unschedulable(nodeAffinity?: NonNullable<NonNullable<V1Pod["spec"]>["affinity"]>["nodeAffinity"]): V1Pod {
  return {
    metadata: { name: "p", namespace: "default", uid: "p" },
    spec: { containers: [{ name: "c" }], ...(nodeAffinity === undefined ? {} : { affinity: { nodeAffinity } }) },
    status: { phase: "Pending", conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable" }] },
  };
}

void describe("pending-pod intake", () => {
  void it("should take a pod kube-scheduler failed", () => assert.equal(isProvisionable(unschedulable()), true));

  void it("should silently ignore a pod that requires karpenter.sh/nodepool DoesNotExist", () => {
    const pod = unschedulable({
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: "karpenter.sh/nodepool", operator: "DoesNotExist" }] }],
      },
    });
    assert.equal(isProvisionable(pod), false);
  });
});
