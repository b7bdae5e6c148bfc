import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { ClusterState } from "../../operator/adapters/kube/cluster-state.ts";
import { KubeCluster } from "../../operator/adapters/kube/kube-cluster.ts";
import type { NodeClaimManifest } from "../../operator/core/provisioning/plan.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { installKarpenterCrds } from "./operator-fixtures.ts";

const manifest: NodeClaimManifest = {
  apiVersion: "karpenter.sh/v1",
  kind: "NodeClaim",
  metadata: {
    generateName: "default-",
    labels: { "karpenter.sh/nodepool": "default" },
    finalizers: ["karpenter.sh/termination"],
  },
  spec: {
    nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
    requirements: [{ key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] }],
    resources: { requests: { cpu: "1" } },
  },
};

void describe("NodeClaims the operator creates on the real apiserver", () => {
  let env: TestEnvironment;
  let state: ClusterState;

  before(async () => {
    env = await useEnvironment();
    await installKarpenterCrds(env);
    state = new ClusterState({ kubeConfig: env.kubeConfig });
  });
  after(async () => {
    await state.stop();
  });

  void it("should be readable from the cluster state at once, before any informer runs", async () => {
    const cluster = new KubeCluster(env.kubeConfig, state);
    const created = await cluster.createNodeClaim(manifest);
    const name = created.metadata?.name ?? "";
    assert.match(name, /^default-/);
    assert.equal(cluster.nodeClaim(name)?.metadata?.uid, created.metadata?.uid);
    assert.deepEqual(cluster.nodeClaim(name)?.metadata?.finalizers, ["karpenter.sh/termination"]);
  });

  void it("should report a created NodeClaim as unlaunched exactly once, and no other", async () => {
    const cluster = new KubeCluster(env.kubeConfig, state);
    const created = await cluster.createNodeClaim(manifest);
    const uid = created.metadata?.uid ?? "";
    assert.equal(cluster.takeUnlaunched(uid), true);
    assert.equal(cluster.takeUnlaunched(uid), false);
    assert.equal(cluster.takeUnlaunched("uid-of-a-nodeclaim-created-elsewhere"), false);
    assert.equal(
      new KubeCluster(env.kubeConfig, state).takeUnlaunched(uid),
      false,
      "a restarted process knows nothing",
    );
  });
});
