/**
 * Honest refusal on a real kube-apiserver (issue 23 item 7): kerf's bundled CRDs keep the Karpenter v1.15 fields
 * kerf's operator does not implement (nothing pruned), and the operator says so: the IgnoredFields condition on the
 * NodePool and the EC2NodeClass names each field, one log line per object however often it reconciles, the
 * condition goes when the fields go; feature gates kerf lacks or does not know are logged at start.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CustomObjectsApi } from "@kubernetes/client-node";
import { mergePatch } from "../../operator/adapters/kube/client.ts";
import { startOperator, type RunningOperator } from "../../operator/main.ts";
import { createLogger } from "../../operator/observability/logger.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { nodeClass, SSM_PREFIX } from "./aws-fixtures.ts";
import { operatorConfig } from "./operator-fixtures.ts";
import { prepareCluster } from "./provisioning-fixtures.ts";

const NODEPOOLS = { group: "karpenter.sh", version: "v1", plural: "nodepools" };
const NODECLASSES = { group: "karpenter.k8s.aws", version: "v1", plural: "ec2nodeclasses" };

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}
interface Stored {
  spec: Record<string, unknown>;
  status?: { conditions?: Condition[] };
}

void describe("the operator on objects that set fields kerf ignores", () => {
  let env: TestEnvironment;
  let operator: RunningOperator;
  const logs: Record<string, unknown>[] = [];
  const api = (): CustomObjectsApi => env.kubeConfig.makeApiClient(CustomObjectsApi);
  const get = async (kind: typeof NODEPOOLS | typeof NODECLASSES, name: string): Promise<Stored> =>
    (await api().getClusterCustomObject({ ...kind, name })) as Stored;
  const ignoredCondition = async (
    kind: typeof NODEPOOLS | typeof NODECLASSES,
    name: string,
  ): Promise<Condition | undefined> =>
    (await get(kind, name)).status?.conditions?.find((c) => c.type === "IgnoredFields");
  const logged = (field: string, name: string): Record<string, unknown>[] =>
    logs.filter((l) => l["msg"] === "kerf's operator ignores these fields" && l[field] === name);

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    await prepareCluster(env);
    const destination = {
      write: (line: string): void => {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      },
    };
    const config = operatorConfig(env, "ignored-fields", {
      DISABLE_LEADER_ELECTION: "true",
      FEATURE_GATES: "PodDeletionCostManagement=true,SpotToSpotConsolidation=false,NodeRepiar=true",
    });
    operator = await startOperator(config, {
      kubeConfig: env.kubeConfig,
      logger: createLogger("info", destination),
      serveHttp: false,
      awsCredentials: env.aws().credentials,
      ssmPrefix: SSM_PREFIX,
    });
  });
  after(async () => {
    await operator.stop();
  });

  void it("should log at start the feature gates it ignores and the ones it does not know", () => {
    const ignored = logs.find(
      (l) => l["msg"] === "kerf's operator ignores these feature gates: kerf does not implement them",
    );
    assert.deepEqual(
      ignored?.["featureGates"],
      [{ gate: "PodDeletionCostManagement", karpenter: "writing controller.kubernetes.io/pod-deletion-cost" }],
      JSON.stringify(logs.slice(0, 20)),
    );
    assert.deepEqual(
      logs.find((l) => l["msg"] === "unknown feature gates: neither Karpenter's nor kerf's; ignored")?.["featureGates"],
      ["NodeRepiar"],
    );
  });

  void it("should keep an EC2NodeClass's v1.15 fields and name each ignored one in IgnoredFields, logging the class once", async () => {
    const spec = {
      ...nodeClass("extras").spec,
      ipPrefixCount: 1,
      enclaveOptions: { enabled: true },
      kubelet: { maxPods: 110, shutdownGracePeriod: "30s" },
    };
    await api().createClusterCustomObject({
      ...NODECLASSES,
      body: { apiVersion: "karpenter.k8s.aws/v1", kind: "EC2NodeClass", metadata: { name: "extras" }, spec },
    });
    const stored = await get(NODECLASSES, "extras");
    assert.deepEqual(
      stored.spec["kubelet"],
      { maxPods: 110, shutdownGracePeriod: "30s" },
      "the free-form v1.15 kubelet is not pruned",
    );
    assert.deepEqual(stored.spec["enclaveOptions"], { enabled: true });
    const condition = await eventually("IgnoredFields on the EC2NodeClass", () =>
      ignoredCondition(NODECLASSES, "extras"),
    );
    assert.deepEqual([condition.status, condition.reason], ["True", "NotImplemented"]);
    for (const field of ["spec.enclaveOptions (Nitro Enclaves)", "spec.ipPrefixCount"])
      assert.ok(condition.message.includes(field), condition.message);
    // AL2023 passes the free-form kubelet through to its NodeConfig, as Karpenter v1.15: nothing of it is ignored.
    assert.ok(
      !condition.message.includes("maxPods") && !condition.message.includes("shutdownGracePeriod"),
      condition.message,
    );

    // Reconciles that change nothing kerf ignores (annotation touches) log nothing; a change of the list logs it
    // again. The touches come first, so when the second line shows, they have been reconciled.
    for (const value of ["1", "2"]) {
      await api().patchClusterCustomObject(
        { ...NODECLASSES, name: "extras", body: { metadata: { annotations: { "kerf.test/touch": value } } } },
        mergePatch,
      );
    }
    await api().patchClusterCustomObject(
      { ...NODECLASSES, name: "extras", body: { spec: { ipPrefixCount: null } } },
      mergePatch,
    );
    await eventually("the changed list to be logged", () =>
      logged("ec2nodeclass", "extras").length >= 2 ? true : undefined,
    );
    const lines = logged("ec2nodeclass", "extras").map((l) => (l["fields"] as { path: string }[]).map((f) => f.path));
    assert.deepEqual(lines, [["spec.enclaveOptions", "spec.ipPrefixCount"], ["spec.enclaveOptions"]]);
    await eventually("IgnoredFields without ipPrefixCount", async () =>
      !((await ignoredCondition(NODECLASSES, "extras"))?.message ?? "spec.ipPrefixCount").includes("spec.ipPrefixCount")
        ? true
        : undefined,
    );
  });

  void it("should set IgnoredFields on a NodePool while it asks for repair features kerf lacks, and drop it when it stops", async () => {
    await api().createClusterCustomObject({
      ...NODEPOOLS,
      body: {
        apiVersion: "karpenter.sh/v1",
        kind: "NodePool",
        metadata: { name: "repairing" },
        spec: {
          disruption: { budgets: [{ nodes: "1", reasons: ["Unhealthy"] }] },
          template: {
            metadata: { annotations: { "karpenter.sh/do-not-repair": "true" } },
            spec: {
              nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
              requirements: [],
            },
          },
        },
      },
    });
    const condition = await eventually("IgnoredFields on the NodePool", () => ignoredCondition(NODEPOOLS, "repairing"));
    assert.equal(condition.status, "True");
    assert.match(condition.message, /spec\.disruption\.budgets\[0\]\.reasons \(pacing node repair by budgets/);
    assert.match(condition.message, /spec\.template\.metadata\.annotations\.karpenter\.sh\/do-not-repair/);
    assert.equal(logged("nodepool", "repairing").length, 1);

    await api().patchClusterCustomObject(
      {
        ...NODEPOOLS,
        name: "repairing",
        body: {
          spec: { disruption: { budgets: [{ nodes: "1" }] }, template: { metadata: { annotations: null } } },
        },
      },
      mergePatch,
    );
    await eventually("IgnoredFields to go", async () =>
      (await ignoredCondition(NODEPOOLS, "repairing")) === undefined ? true : undefined,
    );
    const ready = (await get(NODEPOOLS, "repairing")).status?.conditions?.find((c) => c.type === "ValidationSucceeded");
    assert.equal(ready?.status, "True", "the other conditions stay");
  });
});
