import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Pod } from "../../core/lifecycle/objects.ts";
import { Nominations } from "./nominations.ts";
import { PodEventTracker } from "./pod-events.ts";
import { FixedClock } from "../../core/clock.ts";

const T0 = Date.parse("2026-11-25T12:00:00Z");
const pod = (o: { node?: string; phase?: string; createdAgoMs?: number; deleting?: boolean } = {}): Pod => ({
  metadata: {
    uid: "u1",
    name: "p",
    namespace: "d",
    creationTimestamp: new Date(T0 - (o.createdAgoMs ?? 0)).toISOString(),
    ...(o.deleting === true ? { deletionTimestamp: new Date(T0).toISOString() } : {}),
  },
  spec: o.node === undefined ? {} : { nodeName: o.node },
  status: { phase: o.phase ?? "Running" },
});

void describe("pod events", () => {
  void it("records a bind, a terminal phase and a deletion, but not a resync of an old pod", () => {
    const t = new PodEventTracker();
    assert.equal(
      t.observe(pod({ node: "n1", createdAgoMs: 3_600_000 }), "add", T0),
      undefined,
      "an old pod seen for the first time is no event",
    );
    assert.equal(
      t.observe(pod({ node: "n1", createdAgoMs: 3_600_000 }), "update", T0 + 1),
      undefined,
      "an unchanged pod is no event",
    );
    assert.equal(t.observe(pod({ node: "n1", phase: "Succeeded" }), "update", T0 + 2), "n1");
    assert.equal(t.last("n1"), T0 + 2);
    assert.equal(t.observe(pod({ node: "n1" }), "delete", T0 + 3), "n1");
    const fresh = new PodEventTracker();
    assert.equal(fresh.observe(pod({}), "add", T0), undefined, "a pending pod has no node");
    assert.equal(fresh.observe(pod({ node: "n2" }), "update", T0 + 5), "n2", "binding is an event");
  });
});

void describe("nominations", () => {
  void it("hold a node for max(2 × batchMaxDuration, 10 s)", () => {
    const clock = new FixedClock(new Date(T0));
    const n = new Nominations(10_000, clock);
    n.nominate("a");
    clock.advance(19_999);
    assert.deepEqual([...n.active()], ["a"]);
    clock.advance(1);
    assert.deepEqual([...n.active()], []);
    const short = new Nominations(1_000, clock);
    short.nominate("b");
    clock.advance(9_999);
    assert.deepEqual([...short.active()], ["b"], "never less than 10 s");
  });
});
