/**
 * A drift rollout in growing waves (kerf extension `kerf.dev/drift-rollout: waves`, issue 21) on the real
 * environment: four nodes, a budget that would let all of them go at once, and a NodePool label change. Sampled
 * every 250 ms, the nodes being replaced never outnumber the wave the settled replacements allow (1, then 2, then
 * the last): a node is being replaced while its drifted NodeClaim is deleting or its Node tainted
 * `karpenter.sh/disrupted`, and a replacement settles once Initialized with its pod Running. Without the annotation
 * the 100% budget takes a node per pass (1 s here) and the bound fails within seconds.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { createPool, deploy, NODEPOOLS, ofPool, patchPool, ready, running, settled } from "./disruption-fixtures.ts";
import { runOperatorOnCluster, type OperatorOnCluster } from "./provisioning-fixtures.ts";

const FAST = { disruption: { pollMs: 1000, validationDelayMs: 2000 } };
const POOL = "waves";

interface Sample {
  readonly replacing: number;
  readonly settled: number;
  readonly old: number;
}

void describe("a drift rollout in growing waves", () => {
  let env: TestEnvironment;
  let op: OperatorOnCluster;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    op = await runOperatorOnCluster(env, "drift-waves", {}, FAST);
  });
  after(async () => {
    await op.stop();
  });

  void it("replaces one node, then two, then the rest, each wave once the one before runs its pods", async () => {
    await createPool(env, POOL, { annotations: { "kerf.dev/drift-rollout": "waves" }, budgets: [{ nodes: "100%" }] });
    const namespace = await deploy(env, POOL, 4, { spreadOverNodes: true });
    const original = new Set((await settled(env, POOL, namespace, { pods: 4, claims: 4 })).map((c) => c.metadata.name));
    await patchPool(env, POOL, { template: { metadata: { labels: { team: "b" } } } });

    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const samples: Sample[] = [];
    const messages = new Set<string>();
    const sample = async (): Promise<Sample> => {
      const [claims, nodes, pods] = await Promise.all([
        ofPool(env, POOL),
        core.listNode(),
        core.listNamespacedPod({ namespace }),
      ]);
      const tainted = new Set(
        nodes.items
          .filter((n) => (n.spec?.taints ?? []).some((t) => t.key === "karpenter.sh/disrupted"))
          .map((n) => n.metadata?.name ?? ""),
      );
      const runningOn = new Set(
        pods.items.filter((p) => p.status?.phase === "Running").map((p) => p.spec?.nodeName ?? ""),
      );
      const old = claims.filter((c) => original.has(c.metadata.name));
      const replacing = old.filter(
        (c) => c.metadata.deletionTimestamp !== undefined || tainted.has(c.status?.nodeName ?? ""),
      );
      const fresh = claims.filter((c) => !original.has(c.metadata.name) && c.metadata.deletionTimestamp === undefined);
      const settledCount = fresh.filter((c) => ready(c) && runningOn.has(c.status?.nodeName ?? "")).length;
      const pool = (await env.kubeConfig
        .makeApiClient(CustomObjectsApi)
        .getClusterCustomObject({ ...NODEPOOLS, name: POOL })) as {
        status?: { conditions?: { type: string; message?: string }[] };
      };
      const message = pool.status?.conditions?.find((c) => c.type === "Drifted")?.message;
      if (message !== undefined) messages.add(message);
      return { replacing: replacing.length, settled: settledCount, old: old.length };
    };
    await eventually(
      "every node replaced, the pods running on the new ones",
      async () => {
        const s = await sample();
        samples.push(s);
        // Wave k holds 2^(k-1) nodes and starts after the 2^(k-1) - 1 before it settled: never more than settled + 1.
        if (s.replacing > s.settled + 1)
          throw new Error(`${s.replacing} nodes replaced at once with ${s.settled} settled`);
        const claims = await ofPool(env, POOL);
        const pods = await running(env, namespace);
        return (
          s.old === 0 &&
          claims.length === 4 &&
          claims.every((c) => ready(c) && c.metadata.labels?.["team"] === "b") &&
          pods.length === 4
        );
      },
      240_000,
      250,
    ).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; samples: ${JSON.stringify(samples.slice(-20))}`);
    });
    const breach = samples.find((s) => s.replacing > s.settled + 1);
    assert.equal(breach, undefined, `a wave outgrew its size: ${JSON.stringify(breach)}`);
    assert.ok(
      samples.some((s) => s.replacing === 1 && s.settled === 0),
      "the first wave replaced one node",
    );
    assert.ok(
      [...messages].some((m) => /kerf\.dev\/drift-rollout: wave 1 of 1 node/.test(m)),
      `the NodePool's Drifted condition showed the waves: ${[...messages].join(" | ")}`,
    );
    assert.ok(
      [...messages].some((m) => /wave 2 of 2 nodes/.test(m)),
      `wave two was reported: ${[...messages].join(" | ")}`,
    );
  });
});
