import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { NodeClaim, Pod } from "../lifecycle/objects.ts";
import type { ClusterView, NodePoolObject } from "../provisioning/cluster-view.ts";
import { afterPass, nextTimeChange, REARM_MS, roundDone, skipPass } from "./pass-gate.ts";

const T0 = Date.parse("2026-11-25T12:00:00Z");
const iso = (ms: number): string => new Date(ms).toISOString();
const view = (o: Partial<ClusterView>): ClusterView => ({
  pods: [],
  nodes: [],
  nodeClaims: [],
  nodePools: [],
  daemonSets: [],
  ...o,
});

void describe("skipping a disruption pass while nothing it reads has changed", () => {
  void it("should run the first pass and every pass after one that found something", () => {
    assert.equal(skipPass(undefined, "d1", T0), false);
    assert.equal(afterPass(false, "d1", T0, undefined), undefined);
  });

  void it("should skip while the digest is the one of the last fruitless pass", () => {
    const last = afterPass(true, "d1", T0, undefined);
    assert.equal(skipPass(last, "d1", T0 + 10_000), true);
    assert.equal(skipPass(last, "d1", T0 + REARM_MS - 1), true);
  });

  void it("should run again when anything it reads changed", () => {
    assert.equal(skipPass(afterPass(true, "d1", T0, undefined), "d2", T0 + 10_000), false);
  });

  void it("should re-arm at least every 5 minutes, as Karpenter does", () => {
    const last = afterPass(true, "d1", T0, undefined);
    assert.equal(skipPass(last, "d1", T0 + REARM_MS), false);
    assert.equal(skipPass(last, "d1", T0 + 2 * REARM_MS), false);
  });

  void it("should run once time alone can change the answer", () => {
    const last = afterPass(true, "d1", T0, T0 + 30_000);
    assert.equal(skipPass(last, "d1", T0 + 29_999), true);
    assert.equal(skipPass(last, "d1", T0 + 30_000), false);
  });

  void it("should count a bounded pass fruitless only once the passes at its digest covered every candidate", () => {
    const many = { consolidating: 822, drifted: 0 };
    assert.equal(roundDone(false, 1, many, 500), true, "nothing left for a next pass");
    assert.equal(roundDone(true, 1, many, 500), false, "322 candidates not looked at yet");
    assert.equal(roundDone(true, 2, many, 500), true);
    assert.equal(roundDone(true, 2, { consolidating: 10, drifted: 1_200 }, 500), false, "drift needs 3 passes");
    assert.equal(roundDone(true, 3, { consolidating: 10, drifted: 1_200 }, 500), true);
  });

  void it("should run when the clock went backwards", () => {
    assert.equal(skipPass(afterPass(true, "d1", T0, undefined), "d1", T0 - 1), false);
  });
});

void describe("when time alone changes what a disruption pass can decide", () => {
  void it("should know nothing for a cluster without time-dependent inputs", () => {
    assert.equal(nextTimeChange(view({}), T0), undefined);
  });

  void it("should wake when a pod's do-not-disrupt duration ends, and not for true or invalid values", () => {
    const pod = (value: string, created: number): Pod =>
      ({
        metadata: {
          name: value,
          annotations: { "karpenter.sh/do-not-disrupt": value },
          creationTimestamp: iso(created),
        },
      }) as Pod;
    const pods = (...list: Pod[]): ClusterView => view({ pods: list });
    assert.equal(nextTimeChange(pods(pod("true", T0), pod("nope", T0), pod("10m", T0 - 20 * 60_000)), T0), undefined);
    assert.equal(nextTimeChange(pods(pod("10m", T0 - 60_000), pod("5m", T0 - 60_000)), T0), T0 + 4 * 60_000);
  });

  void it("should wake when a NodePool's consolidate-empty-after runs out for one of its NodeClaims", () => {
    const annotations = { "kerf.dev/consolidate-empty-after": "30s" };
    const pool: NodePoolObject = { metadata: { name: "p", annotations } };
    const claim = (name: string, initializedAt: number, pool = "p"): NodeClaim =>
      ({
        metadata: { name, labels: { "karpenter.sh/nodepool": pool } },
        status: { conditions: [{ type: "Initialized", status: "True", lastTransitionTime: iso(initializedAt) }] },
      }) as NodeClaim;
    const claims = (...list: NodeClaim[]): ClusterView => view({ nodePools: [pool], nodeClaims: list });
    assert.equal(nextTimeChange(claims(claim("old", T0 - 60_000), claim("new", T0 - 10_000)), T0), T0 + 20_000);
    assert.equal(nextTimeChange(claims(claim("elsewhere", T0 - 10_000, "q")), T0), undefined);
  });

  void it("should wake when a scheduled budget window opens", () => {
    const budgets = [{ nodes: "0", schedule: "0 13 * * *", duration: "1h" }];
    const pool: NodePoolObject = { metadata: { name: "p" }, spec: { disruption: { budgets } } };
    assert.equal(nextTimeChange(view({ nodePools: [pool] }), T0), Date.parse("2026-11-25T13:00:00Z"));
  });
});
