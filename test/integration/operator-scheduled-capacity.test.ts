/**
 * Scheduled capacity end to end (real apiserver, scheduler, kwok, moto): a NodePool whose kerf.dev/off-schedule
 * window is open now launches nothing for its pending pods (they get a NodePoolOff Event) and its nodes are removed
 * under KerfScheduledOff; with the window closed (or the annotation gone) the pool behaves as without it. Windows are
 * computed from the test's own clock, well away from their edges, so a slow machine cannot cross one; every wait is
 * on a condition. The pool's consolidateAfter is Never, so no Karpenter method removes its nodes: only kerf's.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { mergePatch } from "../../operator/adapters/kube/client.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { createPool, deploy, NODEPOOLS, ofPool, running, scale, settled } from "./disruption-fixtures.ts";
import { runOperatorOnCluster, type OperatorOnCluster } from "./provisioning-fixtures.ts";

const ANNOTATION = "kerf.dev/off-schedule";
const FAST = { disruption: { pollMs: 1000, validationDelayMs: 2000 } };

/** A daily window opening `fromNowMinutes` from now (UTC), for `duration`. */
function dailyWindow(fromNowMinutes: number, duration: string): string {
  const opens = new Date(Date.now() + fromNowMinutes * 60_000);
  return JSON.stringify([{ schedule: `${opens.getUTCMinutes()} ${opens.getUTCHours()} * * *`, duration }]);
}

async function annotate(env: TestEnvironment, pool: string, value: string | null): Promise<void> {
  await env.kubeConfig
    .makeApiClient(CustomObjectsApi)
    .patchClusterCustomObject(
      { ...NODEPOOLS, name: pool, body: { metadata: { annotations: { [ANNOTATION]: value } } } },
      mergePatch,
    );
}

async function offCondition(
  env: TestEnvironment,
  pool: string,
): Promise<{ status: string; reason?: string; message?: string } | undefined> {
  const p = (await env.kubeConfig
    .makeApiClient(CustomObjectsApi)
    .getClusterCustomObject({ ...NODEPOOLS, name: pool })) as {
    status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
  };
  return p.status?.conditions?.find((c) => c.type === "kerf.dev/ScheduledOff");
}

async function eventsIn(env: TestEnvironment, namespace: string, reason: string): Promise<string[]> {
  const list = await env.kubeConfig
    .makeApiClient(CoreV1Api)
    .listNamespacedEvent({ namespace, fieldSelector: `reason=${reason}` });
  return list.items.map((e) => e.message ?? "");
}

const live = async (env: TestEnvironment, pool: string): Promise<number> =>
  (await ofPool(env, pool)).filter((c) => c.metadata.deletionTimestamp === undefined).length;

void describe("scheduled capacity (kerf.dev/off-schedule) on the real environment", () => {
  let env: TestEnvironment;
  let op: OperatorOnCluster;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    op = await runOperatorOnCluster(env, "scheduled-capacity", {}, FAST);
  });
  after(async () => {
    await op.stop();
  });

  void it("provisions as usual while the pool's window is closed, and says when it opens", async () => {
    // Opens in 12 hours: closed for the whole test.
    await createPool(env, "sc-closed", {
      consolidateAfter: "Never",
      annotations: { [ANNOTATION]: dailyWindow(720, "1h") },
    });
    const namespace = await deploy(env, "sc-closed", 2);
    await settled(env, "sc-closed", namespace, { pods: 2, claims: 1 });
    const condition = await eventually(
      "the NodePool's kerf.dev/ScheduledOff condition is False",
      async () => {
        const c = await offCondition(env, "sc-closed");
        return c?.status === "False" ? c : undefined;
      },
      30_000,
      250,
    );
    assert.equal(condition.reason, "WindowClosed");
    assert.match(condition.message ?? "", /^on until \d{4}-/);
  });

  void it("removes the nodes of a pool whose window is open and launches nothing for its pending pods", async () => {
    await createPool(env, "sc-open", { consolidateAfter: "Never", budgets: [{ nodes: "100%" }] });
    const namespace = await deploy(env, "sc-open", 2);
    const [claim] = await settled(env, "sc-open", namespace, { pods: 2, claims: 1 });
    // An empty node: with consolidateAfter Never, only the off window can remove it.
    await scale(env, namespace, "sc-open", 0);
    await eventually(
      "the Deployment's pods are gone",
      async () => (await running(env, namespace)).length === 0,
      60_000,
      250,
    );
    assert.equal(await live(env, "sc-open"), 1, "the empty node stays while the pool is on");
    const offSeries = async (): Promise<number> =>
      (await op.operator.metrics.disruptionEligibleNodes.get()).values.filter(
        (v) => v.labels["reason"] === "kerfscheduledoff",
      ).length;
    assert.equal(await offSeries(), 0, "no kerfscheduledoff series while no pool is off (opt-in)");

    // Opened two minutes ago, for two hours.
    await annotate(env, "sc-open", dailyWindow(-2, "2h"));
    await eventually(
      "the empty node is removed under KerfScheduledOff",
      async () => (await ofPool(env, "sc-open")).length === 0,
      90_000,
      250,
    );
    const disrupted = (await op.operator.metrics.nodeClaimsDisrupted.get()).values
      .filter((v) => v.labels["reason"] === "kerfscheduledoff" && v.labels["nodepool"] === "sc-open")
      .reduce((s, v) => s + v.value, 0);
    assert.equal(disrupted, 1, `NodeClaim ${claim?.metadata.name ?? ""} disrupted for kerfscheduledoff`);
    assert.equal(await offSeries(), 1, "karpenter_voluntary_disruption_eligible_nodes has a kerfscheduledoff series");
    const condition = await eventually(
      "the NodePool's kerf.dev/ScheduledOff condition is True",
      async () => {
        const c = await offCondition(env, "sc-open");
        return c?.status === "True" ? c : undefined;
      },
      30_000,
      250,
    );
    assert.equal(condition.reason, "WindowOpen");
    assert.match(condition.message ?? "", /^off until \d{4}-/);

    // Pending pods: the provisioner says the pool is off and until when, and buys nothing.
    await scale(env, namespace, "sc-open", 2);
    const told = await eventually(
      "the pending pods get a NodePoolOff Event",
      async () => {
        const messages = await eventsIn(env, namespace, "NodePoolOff");
        return messages.length > 0 ? messages : undefined;
      },
      60_000,
      250,
    );
    assert.match(told[0] ?? "", /^NodePool sc-open is off \(kerf\.dev\/off-schedule\) until \d{4}-\d\d-\d\dT/);
    assert.equal((await ofPool(env, "sc-open")).length, 0, "no NodeClaim for the pending pods");
    assert.equal((await running(env, namespace)).length, 0, "the pods stay Pending");

    // The annotation removed: the pool is on again and serves them.
    await annotate(env, "sc-open", null);
    await settled(env, "sc-open", namespace, { pods: 2, claims: 1 });
    await eventually(
      "the condition is removed with the annotation",
      async () => (await offCondition(env, "sc-open")) === undefined,
      30_000,
      250,
    );
  });
});
