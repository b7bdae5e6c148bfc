// The operator's cache watches Namespaces (name and labels) so that a pod-affinity term's namespaceSelector
// selects the same namespaces in the operator as in `kerf simulate` (issue 22 cause 4), on the real apiserver.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CoreV1Api } from "@kubernetes/client-node";
import { ClusterState } from "../../operator/adapters/kube/cluster-state.ts";
import { namespaceLabelMap } from "../../operator/core/provisioning/cluster-view.ts";
import { namespaceLabels } from "../../operator/core/scheduling/selector.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { installKarpenterCrds } from "./operator-fixtures.ts";

void describe("Namespaces in the operator's cluster state on the real apiserver", () => {
  let env: TestEnvironment;
  let state: ClusterState;

  before(async () => {
    env = await useEnvironment({ kwok: false, moto: false });
    await installKarpenterCrds(env);
    state = new ClusterState({ kubeConfig: env.kubeConfig });
    await state.start();
  });
  after(async () => {
    await state.stop();
  });

  void it("should carry each namespace's labels into the snapshot, following label changes", async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const name = `team-${Date.now().toString(36)}`;
    await core.createNamespace({ body: { metadata: { name, labels: { team: "a" } } } });
    const labelsNow = (): Readonly<Record<string, string>> =>
      namespaceLabels(namespaceLabelMap(state.snapshot().namespaces), name);
    await eventually(
      "the namespace with team=a in the snapshot",
      () => (labelsNow()["team"] === "a" ? true : undefined),
      30_000,
      100,
    );
    await core.patchNamespace({ name, body: [{ op: "replace", path: "/metadata/labels/team", value: "b" }] });
    await eventually(
      "the snapshot follows the label change",
      () => (labelsNow()["team"] === "b" ? true : undefined),
      30_000,
      100,
    );
    const cached = state.snapshot().namespaces.find((n) => n.metadata?.name === name);
    assert.deepEqual(Object.keys(cached ?? {}).sort(), ["apiVersion", "kind", "metadata"], "no spec or status kept");
    assert.deepEqual(Object.keys(cached?.metadata ?? {}).sort(), ["labels", "name", "resourceVersion", "uid"]);
  });
});
