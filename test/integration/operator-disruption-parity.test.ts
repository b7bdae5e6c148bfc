/**
 * Divergences S1–S8 of the disruption parity review, on the real environment (apiserver, scheduler,
 * controller-manager, kwok, moto): an Empty budget of 0 keeps empty nodes (S1); a cordoned drifted node
 * gets its replacement Initialized before it goes (S2); no consolidation onto a node under its
 * consolidateAfter (S3); consolidation commands one per validation delay (S4); a requirement on a new
 * key drifts the pool and the replacements carry its label (S6); a DaemonSet rollout does not postpone
 * consolidation (S8). One operator with Karpenter's 15 s validation delay (S4 measures it) and a 1 s
 * poll; the cases run concurrently, each on its own NodePool, so the file takes about as long as its
 * slowest case.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { AppsV1Api, CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { mergePatch } from "../../operator/adapters/kube/client.ts";
import { createTestNamespace } from "../harness/reset.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
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
import {
  ON_DEMAND,
  runOperatorOnCluster,
  WORKSHOP_FAMILIES,
  type Claim,
  type OperatorOnCluster,
} from "./provisioning-fixtures.ts";

const VALIDATION_MS = 15_000;
/** Longer than a validation plus a few passes: what the old behaviour needed to act. */
const HOLD_MS = VALIDATION_MS + 6_000;

const live = (claims: readonly Claim[]): Claim[] => claims.filter((c) => c.metadata.deletionTimestamp === undefined);
const condition = (c: Claim | undefined, type: string): { status: string; reason?: string } | undefined =>
  c?.status?.conditions?.find((x) => x.type === type) as { status: string; reason?: string } | undefined;
const stop = { stopped: false };

/** Fails unless `check` holds at every sample for `ms`. */
async function holdsFor(what: string, check: () => Promise<boolean>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    assert.ok(await check(), what);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Runs `step` every `everyMs` until the returned function is called (then waits for the running step). */
function repeat(step: () => Promise<void>, everyMs: number): () => Promise<void> {
  let running = true;
  const loop = (async () => {
    while (running && !stop.stopped) {
      await step().catch(() => undefined);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return async () => {
    running = false;
    await loop;
  };
}

async function tainted(env: TestEnvironment, claims: readonly Claim[]): Promise<boolean> {
  const nodes = await env.kubeConfig.makeApiClient(CoreV1Api).listNode();
  const names = new Set(claims.map((c) => c.status?.nodeName ?? ""));
  const disrupted = (n: (typeof nodes.items)[number]): boolean =>
    (n.spec?.taints ?? []).some((t) => t.key === "karpenter.sh/disrupted");
  return nodes.items.some((n) => names.has(n.metadata?.name ?? "") && disrupted(n));
}

/** A NodePool of one instance type (nothing cheaper to replace with: a delete is the only consolidation). */
async function createTypedPool(env: TestEnvironment, name: string, type: string, after_: string): Promise<void> {
  await env.kubeConfig.makeApiClient(CustomObjectsApi).createClusterCustomObject({
    ...NODEPOOLS,
    body: {
      apiVersion: "karpenter.sh/v1",
      kind: "NodePool",
      metadata: { name },
      spec: {
        disruption: {
          consolidationPolicy: "WhenEmptyOrUnderutilized",
          consolidateAfter: after_,
          budgets: [{ nodes: "100%" }],
        },
        template: {
          spec: {
            nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
            requirements: [ON_DEMAND, { key: "node.kubernetes.io/instance-type", operator: "In", values: [type] }],
          },
        },
      },
    },
  });
}

/** Two NodeClaims, one with Deployment a's pods, one with b's: 5 + 5 pods, then scaled to 1 + 4. */
async function twoNodes(env: TestEnvironment, pool: string): Promise<{ nodeA: string; nodeB: string }> {
  // a's pods leave node A no room for a 1Gi pod of b (m5.large holds about 6.7Gi for pods: 5 x 1200Mi, less
  // than 1Gi free), so kube-scheduler cannot put b's pods on A, whatever the timing; A's one remaining pod
  // still fits beside b's four on B after the scale-down.
  const a = await deploy(env, pool, 5, { memory: "1200Mi" });
  await settled(env, pool, a, { pods: 5, claims: 1 });
  const b = await deploy(env, pool, 5);
  await eventually(
    `two NodeClaims of ${pool}`,
    async () => (await ofPool(env, pool)).filter(ready).length === 2 && (await running(env, b)).length === 5,
    90_000,
    250,
  );
  const nodeA = (await running(env, a))[0]?.node ?? "";
  const nodeB = (await running(env, b))[0]?.node ?? "";
  assert.notEqual(nodeA, nodeB);
  await scale(env, a, pool, 1);
  await scale(env, b, pool, 4);
  await eventually(
    `1 + 4 pods of ${pool}`,
    async () => (await running(env, a)).length === 1 && (await running(env, b)).length === 4,
    60_000,
    250,
  );
  return { nodeA, nodeB };
}

void describe("disruption parity with Karpenter on the real environment", { concurrency: true }, () => {
  let env: TestEnvironment;
  let op: OperatorOnCluster;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    const disruption = { pollMs: 1000, validationDelayMs: VALIDATION_MS };
    op = await runOperatorOnCluster(env, "parity", {}, { disruption });
  });
  after(async () => {
    stop.stopped = true;
    await op.stop();
  });

  void it("S1: should keep empty nodes while the Empty budget is 0, and remove them once it is lifted", async () => {
    await createPool(env, "emptyzero", { budgets: [{ nodes: "0", reasons: ["Empty"] }, { nodes: "100%" }] });
    const namespace = await deploy(env, "emptyzero", 2, { spreadOverNodes: true });
    const claims = await settled(env, "emptyzero", namespace, { pods: 2, claims: 2 });
    await scale(env, namespace, "emptyzero", 0);
    await eventually(
      "both empty NodeClaims Consolidatable",
      async () =>
        (await ofPool(env, "emptyzero")).filter((c) => condition(c, "Consolidatable")?.status === "True").length === 2,
      60_000,
      250,
    );
    await holdsFor(
      "the Empty budget of 0 keeps both empty nodes (no Underutilized delete)",
      async () => {
        const now = await ofPool(env, "emptyzero");
        return live(now).length === 2 && !(await tainted(env, now));
      },
      HOLD_MS,
    );
    await patchPool(env, "emptyzero", { disruption: { budgets: [{ nodes: "100%" }] } });
    await eventually(
      "both empty NodeClaims gone once the budget allows it",
      async () => (await ofPool(env, "emptyzero")).length === 0,
      120_000,
      250,
    );
    const empty = (await op.operator.metrics.nodeClaimsDisrupted.get()).values
      .filter((v) => v.labels["nodepool"] === "emptyzero")
      .map((v) => String(v.labels["reason"]));
    assert.deepEqual([...new Set(empty)], ["empty"], `removed as empty, not underutilized (${claims.length} nodes)`);
  });

  void it("S2: should replace a cordoned drifted node, its replacement Initialized before the old one goes", async () => {
    await createPool(env, "cordoned", { consolidateAfter: "1h" });
    const namespace = await deploy(env, "cordoned", 2);
    const [old] = await settled(env, "cordoned", namespace, { pods: 2, claims: 1 });
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    await core.patchNode({ name: old?.status?.nodeName ?? "", body: { spec: { unschedulable: true } } }, mergePatch);
    await patchPool(env, "cordoned", { template: { metadata: { labels: { team: "b" } } } });
    let replacementReadyAt: number | undefined;
    let oldDeletingAt: number | undefined;
    const pendingSince = new Map<string, number>();
    let longestPending = 0;
    await eventually(
      "the pods run on the replacement and the old NodeClaim is gone",
      async () => {
        const claims = await ofPool(env, "cordoned");
        const now = Date.now();
        const replacement = claims.some((c) => c.metadata.name !== old?.metadata.name && ready(c));
        if (replacementReadyAt === undefined && replacement) replacementReadyAt = now;
        const mine = claims.find((c) => c.metadata.name === old?.metadata.name);
        const going = mine === undefined || mine.metadata.deletionTimestamp !== undefined;
        if (oldDeletingAt === undefined && going) oldDeletingAt = now;
        const pods = (await core.listNamespacedPod({ namespace })).items;
        for (const p of pods) {
          const name = p.metadata?.name ?? "";
          if (p.status?.phase === "Pending") pendingSince.set(name, pendingSince.get(name) ?? now);
          else if (pendingSince.has(name)) pendingSince.delete(name);
        }
        for (const since of pendingSince.values()) longestPending = Math.max(longestPending, now - since);
        return mine === undefined && (await running(env, namespace)).length === 2 && claims.length === 1;
      },
      120_000,
      100,
    );
    assert.ok(replacementReadyAt !== undefined && oldDeletingAt !== undefined);
    assert.ok(replacementReadyAt <= oldDeletingAt, "the replacement Initialized before the old NodeClaim was deleted");
    assert.ok(longestPending < 20_000, `no pod Pending longer than a launch (longest ${longestPending} ms)`);
  });

  void it("S3: should not consolidate onto a node under its consolidateAfter, and should once it is quiet", async () => {
    await createTypedPool(env, "busy", "m5.large", "20s");
    const { nodeA, nodeB } = await twoNodes(env, "busy");
    const churnNs = await createTestNamespace(env.kubeConfig, "busy-churn");
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    let n = 0;
    // Pod events on B (a bind and a deletion every 2 s) keep it under consolidateAfter.
    const stopChurn = repeat(async () => {
      n += 1;
      await core.createNamespacedPod({
        namespace: churnNs,
        body: {
          metadata: { name: `churn-${n}` },
          spec: {
            nodeName: nodeB,
            terminationGracePeriodSeconds: 0,
            containers: [{ name: "p", image: "pause", resources: { requests: { cpu: "10m", memory: "16Mi" } } }],
          },
        },
      });
      if (n > 1) await core.deleteNamespacedPod({ name: `churn-${n - 1}`, namespace: churnNs, gracePeriodSeconds: 0 });
    }, 2_000);
    try {
      const claimOf = async (node: string): Promise<Claim | undefined> =>
        (await ofPool(env, "busy")).find((c) => c.status?.nodeName === node);
      await eventually(
        "A (one pod) is Consolidatable",
        async () => condition(await claimOf(nodeA), "Consolidatable")?.status === "True",
        90_000,
        250,
      );
      await holdsFor(
        "A's pod is not moved onto B while B receives pods",
        async () => {
          const claims = await ofPool(env, "busy");
          return live(claims).length === 2 && !(await tainted(env, claims));
        },
        HOLD_MS,
      );
    } finally {
      await stopChurn();
    }
    await eventually(
      "B quiet: one NodeClaim holds the five pods",
      async () => (await ofPool(env, "busy")).length === 1,
      120_000,
      250,
    );
  });

  void it("S4: should start consolidation commands one validation delay apart", async () => {
    const pools = ["pace-1", "pace-2", "pace-3"];
    const spaces = await Promise.all(
      pools.map(async (pool) => {
        await createPool(env, pool, { budgets: [{ nodes: "100%" }] });
        const namespace = await deploy(env, pool, 6);
        const [big] = await settled(env, pool, namespace, { pods: 6, claims: 1 });
        assert.equal(typeOf(big!), "m5.large");
        return { pool, namespace, big };
      }),
    );
    await Promise.all(spaces.map(({ pool, namespace }) => scale(env, namespace, pool, 1)));
    const created = await eventually(
      "each pool's m5.large replaced by a c5.large",
      async () => {
        const out: number[] = [];
        for (const { pool, big } of spaces) {
          const claims = await ofPool(env, pool);
          const fresh = claims.find((c) => c.metadata.name !== big?.metadata.name && typeOf(c) === "c5.large");
          if (fresh === undefined || claims.length !== 1) return undefined;
          out.push(Date.parse((fresh.metadata as { creationTimestamp?: string }).creationTimestamp ?? ""));
        }
        return out.sort((x, y) => x - y);
      },
      240_000,
      500,
    );
    const gaps = created.slice(1).map((t, i) => (t - (created[i] ?? t)) / 1000);
    // Each command starts after the previous one's validation ended; creationTimestamp has a 1 s granularity
    // and the launch follows the validation by a little, so a gap may read 1 s short of the delay.
    assert.ok(
      gaps.every((g) => g >= VALIDATION_MS / 1000 - 1),
      `replacements created ${gaps.join(" s, ")} s apart`,
    );
  });

  void it("S6: should drift NodeClaims when a requirement on a new key is added, and label their replacements", async () => {
    await createPool(env, "steered", { consolidateAfter: "1h" });
    const namespace = await deploy(env, "steered", 2);
    const [old] = await settled(env, "steered", namespace, { pods: 2, claims: 1 });
    const team = { key: "example.com/team", operator: "In", values: ["a"] };
    await patchPool(env, "steered", { template: { spec: { requirements: [ON_DEMAND, WORKSHOP_FAMILIES, team] } } });
    await eventually(
      "the NodeClaim is Drifted with RequirementsDrifted",
      async () => {
        const claim = (await ofPool(env, "steered")).find((c) => c.metadata.name === old?.metadata.name);
        return claim === undefined || condition(claim, "Drifted")?.reason === "RequirementsDrifted";
      },
      60_000,
      250,
    );
    const [fresh] = await eventually(
      "a replacement labelled example.com/team=a runs the pods",
      async () => {
        const claims = await ofPool(env, "steered");
        const ok =
          claims.length === 1 &&
          claims[0]?.metadata.name !== old?.metadata.name &&
          ready(claims[0]!) &&
          claims[0]?.metadata.labels?.["example.com/team"] === "a" &&
          (await running(env, namespace)).length === 2;
        return ok ? claims : undefined;
      },
      120_000,
      250,
    );
    await holdsFor(
      "the replacement is not drifted in turn",
      async () => {
        const claims = await ofPool(env, "steered");
        const same = claims.length === 1 && claims[0]?.metadata.name === fresh?.metadata.name;
        return same && condition(claims[0], "Drifted")?.status !== "True";
      },
      5_000,
    );
  });

  void it("S8: should consolidate while a DaemonSet rolls out on the pool's nodes", async () => {
    await createPool(env, "dsroll", { consolidateAfter: "20s", budgets: [{ nodes: "100%" }] });
    const dsNs = await createTestNamespace(env.kubeConfig, "dsroll-agent");
    const apps = env.kubeConfig.makeApiClient(AppsV1Api);
    await apps.createNamespacedDaemonSet({
      namespace: dsNs,
      body: {
        metadata: { name: "agent" },
        spec: {
          selector: { matchLabels: { app: "agent" } },
          updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "100%" } },
          template: {
            metadata: { labels: { app: "agent" }, annotations: { rev: "0" } },
            spec: {
              nodeSelector: { "karpenter.sh/nodepool": "dsroll" },
              terminationGracePeriodSeconds: 0,
              containers: [{ name: "agent", image: "pause", resources: { requests: { cpu: "10m", memory: "16Mi" } } }],
            },
          },
        },
      },
    });
    await twoNodes(env, "dsroll");
    let rev = 0;
    // A rollout every 4 s: DaemonSet pods bind and go on both nodes far more often than consolidateAfter.
    const stopRollouts = repeat(async () => {
      rev += 1;
      const body = { spec: { template: { metadata: { annotations: { rev: String(rev) } } } } };
      await apps.patchNamespacedDaemonSet({ name: "agent", namespace: dsNs, body }, mergePatch);
    }, 4_000);
    try {
      await eventually(
        "one NodeClaim holds the five pods while the DaemonSet keeps rolling",
        async () => {
          const claims = await ofPool(env, "dsroll");
          return claims.length === 1 && ready(claims[0]!);
        },
        120_000,
        250,
      );
      assert.ok(rev >= 5, `the DaemonSet rolled ${rev} times meanwhile`);
    } finally {
      await stopRollouts();
    }
  });
});
