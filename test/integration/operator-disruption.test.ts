/**
 * Disruption end to end (real apiserver, scheduler, controller-manager, kubelet simulation, moto):
 * emptiness, underutilized delete and replace, budgets (0, a cron window, 1 at a time), do-not-disrupt
 * and PDB blockers, drift by a NodePool label and by an EC2NodeClass AMI change, and an operator
 * restarted in the middle of a command. Each test has its own NodePool; its pods select it. The
 * validation delay and poll are shortened (2 s, 1 s) so the suite stays short; the logic is the same.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CreateSecurityGroupCommand, RegisterImageCommand } from "@aws-sdk/client-ec2";
import { CoreV1Api, CustomObjectsApi, PolicyV1Api } from "@kubernetes/client-node";
import { mergePatch } from "../../operator/adapters/kube/client.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { clients, K8S_VERSION } from "./aws-fixtures.ts";
import {
  createPool,
  deploy,
  NODEPOOLS,
  ofPool,
  patchPool,
  ready,
  running,
  scale,
  settled,
  typeOf,
} from "./disruption-fixtures.ts";
import { replica } from "./operator-fixtures.ts";
import {
  consistency,
  liveInstances,
  nodeClaims,
  runOperatorOnCluster,
  type Claim,
  type OperatorOnCluster,
} from "./provisioning-fixtures.ts";

const NODECLASSES = { group: "karpenter.k8s.aws", version: "v1", plural: "ec2nodeclasses" } as const;
const FAST = { disruption: { pollMs: 1000, validationDelayMs: 2000 } };

async function rolloutOf(
  env: TestEnvironment,
  pool: string,
): Promise<{ status: string; message?: string } | undefined> {
  const p = (await env.kubeConfig
    .makeApiClient(CustomObjectsApi)
    .getClusterCustomObject({ ...NODEPOOLS, name: pool })) as {
    status?: { conditions?: { type: string; status: string; message?: string }[] };
  };
  return p.status?.conditions?.find((c) => c.type === "Drifted");
}

async function events(env: TestEnvironment, name: string, reason: string): Promise<string[]> {
  const list = await env.kubeConfig
    .makeApiClient(CoreV1Api)
    .listEventForAllNamespaces({ fieldSelector: `involvedObject.name=${name},reason=${reason}` });
  return list.items.map((e) => e.message ?? "");
}

const metric = async (
  running_: OperatorOnCluster,
  name: "nodeClaimsDisrupted" | "disruptionDecisions",
  reason: string,
): Promise<number> =>
  (await running_.operator.metrics[name].get()).values
    .filter((v) => v.labels["reason"] === reason)
    .reduce((s, v) => s + v.value, 0);

async function noLeaks(env: TestEnvironment): Promise<void> {
  await eventually(
    "no leaked instance and no NodeClaim without one",
    async () => {
      const c = await consistency(env);
      return c.leaked.length === 0 && c.withoutInstance.filter((x) => (x.status?.providerID ?? "") !== "").length === 0;
    },
    60_000,
    250,
  );
}

void describe("disruption on the real environment", () => {
  let env: TestEnvironment;
  let op: OperatorOnCluster;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    op = await runOperatorOnCluster(env, "disruption", {}, FAST);
  });
  after(async () => {
    await op.stop();
  });

  void it("should delete the empty node once the Deployment scales to zero", async () => {
    await createPool(env, "empty");
    const namespace = await deploy(env, "empty", 5);
    const [claim] = await settled(env, "empty", namespace, { pods: 5, claims: 1 });
    await scale(env, namespace, "empty", 0);
    await eventually(
      "the empty NodeClaim is gone and its instance terminated",
      async () => {
        const instances = await liveInstances(env);
        return (
          (await ofPool(env, "empty")).length === 0 && !instances.some((i) => i.nodeClaim === claim?.metadata.name)
        );
      },
      60_000,
      250,
    );
    assert.ok((await metric(op, "nodeClaimsDisrupted", "empty")) >= 1);
    assert.ok((await events(env, claim?.metadata.name ?? "", "DisruptionTerminating")).length >= 1);
  });

  void it("should delete an empty node after kerf.dev/consolidate-empty-after while consolidateAfter is an hour", async () => {
    await createPool(env, "eager", {
      consolidateAfter: "1h",
      annotations: { "kerf.dev/consolidate-empty-after": "2s" },
    });
    const namespace = await deploy(env, "eager", 2);
    await settled(env, "eager", namespace, { pods: 2, claims: 1 });
    const before_ = await metric(op, "nodeClaimsDisrupted", "empty");
    await scale(env, namespace, "eager", 0);
    await eventually("the empty NodeClaim is gone", async () => (await ofPool(env, "eager")).length === 0, 60_000, 250);
    assert.equal(await metric(op, "nodeClaimsDisrupted", "empty"), before_ + 1, "removed by emptiness");
  });

  void it("should replace an underutilized node with a strictly cheaper one and keep the pod running", async () => {
    await createPool(env, "shrink");
    const namespace = await deploy(env, "shrink", 6);
    const [before_] = await settled(env, "shrink", namespace, { pods: 6, claims: 1 });
    assert.equal(typeOf(before_!), "m5.large");
    await scale(env, namespace, "shrink", 1);
    const [after_] = await eventually(
      "one c5.large NodeClaim holds the remaining pod",
      async () => {
        const claims = await ofPool(env, "shrink");
        const ok =
          claims.length === 1 &&
          claims[0]?.metadata.name !== before_?.metadata.name &&
          ready(claims[0]!) &&
          (await running(env, namespace)).length === 1;
        return ok ? claims : undefined;
      },
      90_000,
      250,
    );
    assert.equal(typeOf(after_!), "c5.large", "c5.large ($0.085/h) replaces m5.large ($0.096/h)");
    assert.ok((await metric(op, "nodeClaimsDisrupted", "underutilized")) >= 1);
    // Karpenter's labels: the pool's policy snake-cased, graceful without a terminationGracePeriod; the pod that moved.
    const shrunk = (await op.operator.metrics.nodeClaimsDisrupted.get()).values.find(
      (v) => v.labels["nodepool"] === "shrink",
    );
    assert.equal(shrunk?.labels["consolidation_policy"], "when_empty_or_underutilized");
    assert.equal(shrunk?.labels["termination_mode"], "graceful");
    const moved = (await op.operator.metrics.podsDisruptionInitiated.get()).values.filter(
      (v) => v.labels["nodepool"] === "shrink",
    );
    assert.deepEqual(
      moved.map((v) => [v.labels["reason"], v.value]),
      [["underutilized", 1]],
    );
    await noLeaks(env);
  });

  void it("should delete an underutilized node whose pods fit on another node", async () => {
    await createPool(env, "merge", { budgets: [{ nodes: "100%" }] });
    const a = await deploy(env, "merge", 5);
    await settled(env, "merge", a, { pods: 5, claims: 1 });
    const b = await deploy(env, "merge", 5);
    await eventually(
      "two NodeClaims",
      async () => (await ofPool(env, "merge")).filter(ready).length === 2 && (await running(env, b)).length === 5,
      60_000,
      250,
    );
    const deletes = async (): Promise<number> =>
      (await op.operator.metrics.disruptionDecisions.get()).values
        .filter((v) => v.labels["decision"] === "delete" && v.labels["reason"] === "underutilized")
        .reduce((s, v) => s + v.value, 0);
    const before_ = await deletes();
    // 1 + 4 pods: both nodes cannot become one cheaper node (an m5.large is the cheapest that holds 5 GiB, the
    // candidates' own type), but the single pod fits beside the four: a delete, no replacement.
    await scale(env, a, "merge", 1);
    await scale(env, b, "merge", 4);
    await eventually(
      "one NodeClaim holds all five pods",
      async () => {
        const claims = (await ofPool(env, "merge")).filter((c) => c.metadata.deletionTimestamp === undefined);
        return (
          claims.length === 1 &&
          ready(claims[0]!) &&
          (await running(env, a)).length === 1 &&
          (await running(env, b)).length === 4
        );
      },
      90_000,
      250,
    );
    assert.ok((await deletes()) > before_, "an underutilized delete decision");
    // No churn: a pass made while the second node's pods were still pending, or while the first delete was under
    // way, must not plan into room those pods need (it once deleted both nodes and launched a third).
    const created = (await op.operator.metrics.nodeClaimsCreated.get()).values
      .filter((v) => v.labels["nodepool"] === "merge")
      .reduce((s, v) => s + v.value, 0);
    assert.equal(created, 2, "two NodeClaims launched for the pool, no replacement");
    await noLeaks(env);
  });

  void it("should hold an empty node while a budget allows 0 (also inside an active cron window) and release it when lifted", async () => {
    await createPool(env, "frozen", {
      budgets: [{ nodes: "0", schedule: "* * * * *", duration: "1h" }, { nodes: "100%" }],
    });
    const namespace = await deploy(env, "frozen", 2);
    const [claim] = await settled(env, "frozen", namespace, { pods: 2, claims: 1 });
    await scale(env, namespace, "frozen", 0);
    await eventually(
      "a DisruptionBlocked event on the NodePool names the budget",
      async () => (await events(env, "frozen", "DisruptionBlocked")).some((m) => m.includes("budget")),
      30_000,
      250,
    );
    await new Promise((r) => setTimeout(r, 5000));
    assert.equal(
      (await ofPool(env, "frozen")).filter((c) => c.metadata.deletionTimestamp === undefined).length,
      1,
      "the budget keeps the empty node",
    );
    await patchPool(env, "frozen", { disruption: { budgets: [{ nodes: "0" }] } });
    await new Promise((r) => setTimeout(r, 4000));
    assert.ok(
      (await ofPool(env, "frozen")).some(
        (c) => c.metadata.name === claim?.metadata.name && c.metadata.deletionTimestamp === undefined,
      ),
      "nodes: 0 without a schedule keeps it too",
    );
    await patchPool(env, "frozen", { disruption: { budgets: [{ nodes: "100%" }] } });
    await eventually(
      "the node goes once the budget allows it",
      async () => (await ofPool(env, "frozen")).length === 0,
      60_000,
      250,
    );
  });

  void it('should never let two NodeClaims of a pool with nodes: "1" disrupt at once', async () => {
    await createPool(env, "one", { budgets: [{ nodes: "1" }] });
    const namespace = await deploy(env, "one", 3, { spreadOverNodes: true });
    await settled(env, "one", namespace, { pods: 3, claims: 3 });
    await scale(env, namespace, "one", 0);
    let most = 0;
    let samples = 0;
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    await eventually(
      "all three empty nodes are gone",
      async () => {
        const [claims, nodes] = await Promise.all([ofPool(env, "one"), core.listNode()]);
        const tainted = new Set(
          nodes.items
            .filter((n) => (n.spec?.taints ?? []).some((t) => t.key === "karpenter.sh/disrupted"))
            .map((n) => n.spec?.providerID ?? ""),
        );
        const disrupting = claims.filter(
          (c) => c.metadata.deletionTimestamp !== undefined || tainted.has(c.status?.providerID ?? ""),
        ).length;
        most = Math.max(most, disrupting);
        samples += 1;
        return claims.length === 0;
      },
      120_000,
      100,
    );
    assert.ok(samples > 20, `sampled ${samples} times`);
    assert.equal(most, 1, "at most one NodeClaim of the pool was disrupting at any sample");
  });

  void it("should leave an underutilized node whose pod has do-not-disrupt or is guarded by a PDB, and say why", async () => {
    await createPool(env, "guarded");
    const ns = await deploy(env, "guarded", 6, { annotations: { "karpenter.sh/do-not-disrupt": "true" } });
    const [claim] = await settled(env, "guarded", ns, { pods: 6, claims: 1 });
    await scale(env, ns, "guarded", 1);
    await eventually(
      "an event names do-not-disrupt",
      async () => {
        const messages = [
          ...(await events(env, claim?.metadata.name ?? "", "DisruptionBlocked")),
          ...(await events(env, claim?.metadata.name ?? "", "Unconsolidatable")),
        ];
        return messages.some((m) => m.includes("do-not-disrupt"));
      },
      30_000,
      250,
    );
    await createPool(env, "budgeted");
    const pdbNs = await deploy(env, "budgeted", 6);
    const [pdbClaim] = await settled(env, "budgeted", pdbNs, { pods: 6, claims: 1 });
    const policy = env.kubeConfig.makeApiClient(PolicyV1Api);
    await policy.createNamespacedPodDisruptionBudget({
      namespace: pdbNs,
      body: {
        metadata: { name: "all" },
        spec: { minAvailable: "100%", selector: { matchLabels: { app: "budgeted" } } },
      },
    });
    await scale(env, pdbNs, "budgeted", 1);
    await eventually(
      "an event names the PDB",
      async () =>
        (await events(env, pdbClaim?.metadata.name ?? "", "DisruptionBlocked")).some((m) =>
          m.includes("PodDisruptionBudget"),
        ),
      30_000,
      250,
    );
    await new Promise((r) => setTimeout(r, 4000));
    const left = (await nodeClaims(env)).map((c) => c.metadata.name);
    assert.ok(
      left.includes(claim?.metadata.name ?? "") && left.includes(pdbClaim?.metadata.name ?? ""),
      "both nodes stay",
    );
  });

  void it("should replace nodes after a NodePool label change, with the pods running on the new node", async () => {
    await createPool(env, "relabel");
    const namespace = await deploy(env, "relabel", 3);
    const [old] = await settled(env, "relabel", namespace, { pods: 3, claims: 1 });
    await patchPool(env, "relabel", { template: { metadata: { labels: { team: "b" } } } });
    const rollout: string[] = [];
    const [fresh] = await eventually(
      "a new NodeClaim labelled team=b runs the pods",
      async () => {
        const message = (await rolloutOf(env, "relabel"))?.message;
        if (message !== undefined && rollout.at(-1) !== message) rollout.push(message);
        const claims = await ofPool(env, "relabel");
        const pods = await running(env, namespace);
        const ok =
          claims.length === 1 &&
          claims[0]?.metadata.name !== old?.metadata.name &&
          claims[0]?.metadata.labels?.["team"] === "b" &&
          ready(claims[0]!) &&
          pods.length === 3 &&
          pods.every((p) => p.node === claims[0]?.status?.nodeName);
        return ok ? claims : undefined;
      },
      90_000,
      250,
    );
    assert.ok(fresh !== undefined);
    assert.ok((await metric(op, "nodeClaimsDisrupted", "drifted")) >= 1);
    assert.ok(
      rollout.some((m) => /^1 of \d NodeClaims drifted/.test(m)),
      `the NodePool reported the rollout: ${rollout.join(" | ")}`,
    );
    await eventually(
      "the NodePool's Drifted condition turns False",
      async () => (await rolloutOf(env, "relabel"))?.status === "False",
      30_000,
      250,
    );
    await noLeaks(env);
  });

  void it("should replace nodes whose image the EC2NodeClass no longer resolves (AMIDrift)", async () => {
    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const spec = (
      (await custom.getClusterCustomObject({ ...NODECLASSES, name: "default" })) as { spec: Record<string, unknown> }
    ).spec;
    await custom.createClusterCustomObject({
      ...NODECLASSES,
      body: { apiVersion: "karpenter.k8s.aws/v1", kind: "EC2NodeClass", metadata: { name: "pinned" }, spec },
    });
    await createPool(env, "pinned", { nodeClass: "pinned" });
    const namespace = await deploy(env, "pinned", 2);
    const [old] = await settled(env, "pinned", namespace, { pods: 2, claims: 1 });
    const image = await clients(env.aws()).ec2.send(
      new RegisterImageCommand({
        Name: `amazon-eks-node-al2023-x86_64-standard-${K8S_VERSION}-v20260101`,
        Architecture: "x86_64",
        RootDeviceName: "/dev/xvda",
        BlockDeviceMappings: [{ DeviceName: "/dev/xvda", Ebs: { VolumeSize: 20 } }],
      }),
    );
    await custom.patchClusterCustomObject(
      {
        ...NODECLASSES,
        name: "pinned",
        body: { spec: { amiFamily: "AL2023", amiSelectorTerms: [{ id: image.ImageId }] } },
      },
      mergePatch,
    );
    await eventually(
      "the NodeClaim is marked Drifted with AMIDrift",
      async () => {
        const claim = (await ofPool(env, "pinned")).find((c) => c.metadata.name === old?.metadata.name);
        return (
          claim === undefined ||
          (claim.status?.conditions ?? []).some(
            (c) => c.type === "Drifted" && (c as { reason?: string }).reason === "AMIDrift",
          )
        );
      },
      60_000,
      250,
    );
    await eventually(
      "a NodeClaim on the new image runs the pods",
      async () => {
        const claims = await ofPool(env, "pinned");
        const c = claims[0] as (Claim & { status?: { imageID?: string } }) | undefined;
        return (
          claims.length === 1 &&
          c?.metadata.name !== old?.metadata.name &&
          c?.status?.imageID === image.ImageId &&
          c !== undefined &&
          ready(c) &&
          (await running(env, namespace)).length === 2
        );
      },
      90_000,
      250,
    );
    await noLeaks(env);
  });

  void it("should replace nodes whose security groups the EC2NodeClass no longer selects (SecurityGroupDrift), and only those", async () => {
    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const spec = (
      (await custom.getClusterCustomObject({ ...NODECLASSES, name: "default" })) as { spec: Record<string, unknown> }
    ).spec;
    await custom.createClusterCustomObject({
      ...NODECLASSES,
      body: { apiVersion: "karpenter.k8s.aws/v1", kind: "EC2NodeClass", metadata: { name: "walled" }, spec },
    });
    await createPool(env, "walled", { nodeClass: "walled" });
    const namespace = await deploy(env, "walled", 2);
    const [old] = await settled(env, "walled", namespace, { pods: 2, claims: 1 });
    // Several status passes: a node whose groups moto reports only on its network interfaces must not look drifted.
    await new Promise((r) => setTimeout(r, 3000));
    assert.ok(
      !((await ofPool(env, "walled"))[0]?.status?.conditions ?? []).some((c) => c.type === "Drifted"),
      "no drift before the change",
    );
    const ec2 = clients(env.aws()).ec2;
    const group = await ec2.send(
      new CreateSecurityGroupCommand({ GroupName: "kerf-walled", Description: "disruption test" }),
    );
    await custom.patchClusterCustomObject(
      { ...NODECLASSES, name: "walled", body: { spec: { securityGroupSelectorTerms: [{ id: group.GroupId }] } } },
      mergePatch,
    );
    await eventually(
      "the NodeClaim is marked Drifted with SecurityGroupDrift",
      async () => {
        const claim = (await ofPool(env, "walled")).find((c) => c.metadata.name === old?.metadata.name);
        return (
          claim === undefined ||
          (claim.status?.conditions ?? []).some(
            (c) => c.type === "Drifted" && (c as { reason?: string }).reason === "SecurityGroupDrift",
          )
        );
      },
      60_000,
      250,
    );
    await eventually(
      "a new NodeClaim runs the pods",
      async () => {
        const claims = await ofPool(env, "walled");
        return (
          claims.length === 1 &&
          claims[0]?.metadata.name !== old?.metadata.name &&
          ready(claims[0]!) &&
          (await running(env, namespace)).length === 2
        );
      },
      90_000,
      250,
    );
    await noLeaks(env);
  });

  void it("should leave no leak, stale taint or pod without a place when the operator stops in the middle of a command", async () => {
    await createPool(env, "restart");
    const namespace = await deploy(env, "restart", 6);
    const [old] = await settled(env, "restart", namespace, { pods: 6, claims: 1 });
    await scale(env, namespace, "restart", 1);
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    await eventually(
      "the candidate node is tainted karpenter.sh/disrupted",
      async () => {
        const node = await core.readNode({ name: old?.status?.nodeName ?? "" }).catch(() => undefined);
        return (node?.spec?.taints ?? []).some((t) => t.key === "karpenter.sh/disrupted");
      },
      60_000,
      50,
    );
    await op.operator.stop();
    const second = await replica(env, "disruption-2", { DISABLE_LEADER_ELECTION: "true" }, FAST);
    const sim = op.sim;
    op = {
      operator: second,
      sim,
      stop: async () => {
        await sim.stop();
        await second.stop();
      },
    };
    await eventually(
      "one c5.large NodeClaim runs the pod, no node keeps a stale taint",
      async () => {
        const claims = await ofPool(env, "restart");
        const nodes = await core.listNode();
        const stale = nodes.items.filter(
          (n) =>
            n.metadata?.deletionTimestamp === undefined &&
            (n.spec?.taints ?? []).some((t) => t.key === "karpenter.sh/disrupted"),
        );
        return (
          claims.length === 1 &&
          typeOf(claims[0]!) === "c5.large" &&
          ready(claims[0]!) &&
          stale.length === 0 &&
          (await running(env, namespace)).length === 1
        );
      },
      120_000,
      250,
    );
    await noLeaks(env);
  });
});
