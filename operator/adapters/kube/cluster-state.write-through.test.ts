import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { KubeConfig } from "@kubernetes/client-node";
import type { NodeClaim } from "../../core/lifecycle/objects.ts";
import { ClusterState } from "./cluster-state.ts";

/** A state whose informers are never started: only the write-through path can fill it. */
function unstartedState(): ClusterState {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server: "https://127.0.0.1:1" }],
    users: [{ name: "u" }],
    contexts: [{ name: "x", cluster: "c", user: "u" }],
    currentContext: "x",
  });
  return new ClusterState({ kubeConfig: kc });
}

const claim: NodeClaim = {
  metadata: { name: "default-abc", uid: "u-1", resourceVersion: "7", labels: { "karpenter.sh/nodepool": "default" } },
} as NodeClaim;

void describe("the cluster state's write-through of created NodeClaims", () => {
  void it("should make a NodeClaim it was told about readable before the informer delivers it", () => {
    const state = unstartedState();
    state.recordCreated(claim);
    assert.equal(state.nodeClaim("default-abc"), claim);
    assert.deepEqual(
      state.nodeClaims().map((c) => c.metadata?.name),
      ["default-abc"],
    );
    assert.deepEqual(
      state.objects("nodeclaims").map((c) => c.metadata?.name),
      ["default-abc"],
    );
  });

  void it("should announce it to change listeners as an add, so its launch starts at once", () => {
    const state = unstartedState();
    const seen: string[] = [];
    state.onChange((kind, verb, obj) => seen.push(`${kind}/${verb}/${obj.metadata?.name ?? ""}`));
    state.recordCreated(claim);
    assert.deepEqual(seen, ["nodeclaims/add/default-abc"]);
  });

  void it("should ignore a NodeClaim without a name", () => {
    const state = unstartedState();
    state.recordCreated({ metadata: {} } as NodeClaim);
    assert.deepEqual(state.nodeClaims(), []);
  });
});
