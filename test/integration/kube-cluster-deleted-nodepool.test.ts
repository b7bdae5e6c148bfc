import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CustomObjectsApi } from "@kubernetes/client-node";
import { ClusterState } from "../../operator/adapters/kube/cluster-state.ts";
import { KubeCluster } from "../../operator/adapters/kube/kube-cluster.ts";
import type { CustomObjectLike } from "../../operator/ports/cluster.ts";
import { NODEPOOL } from "../conformance/case.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { installKarpenterCrds } from "./operator-fixtures.ts";

const nodePools = { group: "karpenter.sh", version: "v1", plural: "nodepools" };

void describe("NodePool status writes on the real apiserver", () => {
  let env: TestEnvironment;
  let state: ClusterState;

  before(async () => {
    env = await useEnvironment({ kwok: false, moto: false });
    await installKarpenterCrds(env);
    state = new ClusterState({ kubeConfig: env.kubeConfig });
  });
  after(async () => {
    await state.stop();
  });

  void it("should end quietly when the NodePool was deleted after the cache saw it (404), not fail", async () => {
    const api = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const seen = (await api.createClusterCustomObject({
      ...nodePools,
      body: { ...NODEPOOL, metadata: { name: "deleted-meanwhile" } },
    })) as CustomObjectLike;
    await api.deleteClusterCustomObject({ ...nodePools, name: "deleted-meanwhile" });
    const cluster = new KubeCluster(env.kubeConfig, state);
    await cluster.patchNodePoolStatus(seen, { nodes: 0, resources: { nodes: "0" } });
  });

  void it("should still fail on a stale NodePool that exists (409), so the controller re-reads it", async () => {
    const api = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const seen = (await api.createClusterCustomObject({
      ...nodePools,
      body: { ...NODEPOOL, metadata: { name: "changed-meanwhile" } },
    })) as CustomObjectLike;
    await api.patchClusterCustomObject({
      ...nodePools,
      name: "changed-meanwhile",
      body: [{ op: "add", path: "/metadata/labels", value: { changed: "yes" } }],
    });
    const cluster = new KubeCluster(env.kubeConfig, state);
    await assert.rejects(cluster.patchNodePoolStatus(seen, { nodes: 0 }), { name: "ConflictError" });
  });
});
