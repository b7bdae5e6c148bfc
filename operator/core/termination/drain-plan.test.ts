import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Pod } from "../lifecycle/objects.ts";
import { drainGroup, needsDrain, planDrain, terminationDeadline } from "./drain-plan.ts";

interface PodOpts {
  critical?: boolean;
  daemon?: boolean;
  doNotDisrupt?: string;
  terminating?: boolean;
  phase?: string;
  tolerateAll?: boolean;
  mirror?: boolean;
  grace?: number;
}

function pod(name: string, o: PodOpts = {}): Pod {
  return {
    metadata: {
      name,
      namespace: "default",
      uid: name,
      annotations: {
        ...(o.doNotDisrupt === undefined ? {} : { "karpenter.sh/do-not-disrupt": o.doNotDisrupt }),
        ...(o.mirror === true ? { "kubernetes.io/config.mirror": "x" } : {}),
      },
      ownerReferences:
        o.daemon === true
          ? [{ apiVersion: "apps/v1", kind: "DaemonSet", name: "ds", uid: "ds", controller: true }]
          : [],
      ...(o.terminating === true ? { deletionTimestamp: "2030-01-01T00:00:00Z" } : {}),
    },
    spec: {
      nodeName: "n1",
      ...(o.critical === true ? { priorityClassName: "system-node-critical" } : {}),
      tolerations: o.tolerateAll === true ? [{ operator: "Exists" }] : [],
      ...(o.grace === undefined ? {} : { terminationGracePeriodSeconds: o.grace }),
    },
    status: { phase: o.phase ?? "Running" },
  };
}

const names = (pods: readonly Pod[]): string[] => pods.map((p) => p.metadata?.name ?? "");

void describe("drain order", () => {
  const cases: { name: string; opts: PodOpts; group: number }[] = [
    { name: "a non-critical workload pod", opts: {}, group: 0 },
    { name: "a non-critical DaemonSet pod", opts: { daemon: true }, group: 1 },
    { name: "a critical workload pod", opts: { critical: true }, group: 2 },
    { name: "a critical DaemonSet pod", opts: { critical: true, daemon: true }, group: 3 },
  ];
  for (const c of cases)
    void it(`should put ${c.name} in group ${c.group}`, () => assert.equal(drainGroup(pod("p", c.opts)), c.group));

  const skipped: { name: string; opts: PodOpts }[] = [
    { name: "succeeded pods", opts: { phase: "Succeeded" } },
    { name: "failed pods", opts: { phase: "Failed" } },
    { name: "mirror pods", opts: { mirror: true } },
    { name: "pods tolerating every taint", opts: { tolerateAll: true } },
  ];
  for (const c of skipped)
    void it(`should not drain ${c.name}`, () => assert.equal(needsDrain(pod("p", c.opts)), false));

  void it("should evict only the first non-empty group", () => {
    const plan = planDrain([pod("ds", { daemon: true }), pod("crit", { critical: true }), pod("web"), pod("api")], 0);
    assert.deepEqual(names(plan.evict), ["web", "api"]);
    assert.equal(plan.remaining, 4);
    assert.equal(plan.drained, false);
  });

  void it("should move to DaemonSet pods once workload pods are gone", () => {
    const plan = planDrain([pod("ds", { daemon: true }), pod("crit-ds", { critical: true, daemon: true })], 0);
    assert.deepEqual(names(plan.evict), ["ds"]);
  });

  void it("should wait for terminating pods of the current group without evicting them again", () => {
    const plan = planDrain([pod("web", { terminating: true }), pod("ds", { daemon: true })], 0);
    assert.deepEqual(names(plan.evict), []);
    assert.equal(plan.drained, false);
  });

  void it("should report drained when only ignorable pods remain", () => {
    const plan = planDrain([pod("done", { phase: "Succeeded" }), pod("tol", { tolerateAll: true })], 0);
    assert.equal(plan.drained, true);
    assert.equal(plan.remaining, 0);
  });
});

void describe("do-not-disrupt and terminationGracePeriod", () => {
  void it("should hold back do-not-disrupt pods without a deadline", () => {
    const plan = planDrain([pod("keep", { doNotDisrupt: "true" }), pod("web")], 0);
    assert.deepEqual(names(plan.evict), ["web"]);
    assert.deepEqual(names(plan.blocked), ["keep"]);
  });

  void it("should evict a pod whose do-not-disrupt annotation is false", () => {
    assert.deepEqual(names(planDrain([pod("p", { doNotDisrupt: "false" })], 0).evict), ["p"]);
  });

  void it("should delete a pod at the deadline minus its own grace period, with the time left as grace", () => {
    const deadline = 100_000;
    const plan = planDrain([pod("slow", { grace: 60 }), pod("fast", { grace: 10 })], 45_000, deadline);
    assert.deepEqual(
      plan.forceDelete.map((f) => [f.pod.metadata?.name, f.graceSeconds]),
      [["slow", 55]],
    );
    assert.deepEqual(names(plan.evict), ["fast"]);
    assert.equal(plan.nextDeadlineInMs, 45_000);
  });

  void it("should force out do-not-disrupt pods once the deadline has passed", () => {
    const plan = planDrain([pod("keep", { doNotDisrupt: "true", grace: 0 })], 200_000, 100_000);
    assert.deepEqual(
      plan.forceDelete.map((f) => [f.pod.metadata?.name, f.graceSeconds]),
      [["keep", 1]],
    );
    assert.deepEqual(plan.blocked, []);
  });

  void it("should prefer the stored deadline annotation over recomputing it", () => {
    assert.equal(
      terminationDeadline("2030-01-01T00:00:10Z", "2030-01-01T00:00:00Z", 60_000),
      Date.parse("2030-01-01T00:00:10Z"),
    );
    assert.equal(terminationDeadline(undefined, "2030-01-01T00:00:00Z", 60_000), Date.parse("2030-01-01T00:01:00Z"));
    assert.equal(terminationDeadline(undefined, "2030-01-01T00:00:00Z", undefined), undefined);
  });
});
