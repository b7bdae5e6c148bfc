// `kerf simulate --at` with kerf.dev/off-schedule: the time given decides whether the pool is off, as the operator's
// clock does (the provisioner skips it and names the pods it would have launched for; the what-if removes its nodes).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Plan } from "./simulate.ts";
import { documents, m5NodePool, node, pod, simulate, writeTempFile } from "./simulate-fixtures.ts";

const WINDOW = '[{"schedule": "0 20 * * *", "duration": "10h"}]';
const SCENARIO = documents(
  m5NodePool("dev", {
    annotations: `kerf.dev/off-schedule: '${WINDOW}'`,
    disruption: 'consolidateAfter: Never, budgets: [{nodes: "100%"}]',
  }),
  node("idle", "dev", "m5.large"),
  pod("big", "20Gi"),
);

/** `kerf simulate` of the scenario at the time `at`, its output in `format`. */
function simulateAt(at: string, format: "json" | "text"): Promise<string> {
  return simulate(["-f", writeTempFile(SCENARIO), "--at", at, "--format", format]);
}

void describe("kerf simulate --at with kerf.dev/off-schedule", () => {
  void it("shows the pool off at night: no NodeClaim, the pod it would have launched for, its node removed", async () => {
    const plan = JSON.parse(await simulateAt("2026-11-27T23:00:00Z", "json")) as Plan;
    assert.deepEqual(plan.nodeClaims, []);
    assert.deepEqual(plan.offPools, [{ nodePool: "dev", until: "2026-11-28T06:00:00.000Z", pods: ["default/big"] }]);
    assert.deepEqual(
      plan.disruption?.steps.map((s) => [s.method, s.reason, s.candidates.map((c) => c.node)]),
      [["scheduled-off", "KerfScheduledOff", ["idle"]]],
    );
    const text = await simulateAt("2026-11-27T23:00:00Z", "text");
    assert.match(
      text,
      new RegExp(
        "NodePool dev is off \\(kerf\\.dev\\/off-schedule\\) until 2026-11-28T06:00:00\\.000Z: " +
          "it launches nothing; it would have launched for default\\/big",
      ),
    );
  });

  void it("shows the pool on at noon: the pod gets a NodeClaim and the node stays", async () => {
    const plan = JSON.parse(await simulateAt("2026-11-27T12:00:00Z", "json")) as Plan;
    assert.deepEqual(
      plan.nodeClaims.map((c) => [c.nodePool, c.pods]),
      [["dev", ["default/big"]]],
    );
    assert.equal(plan.offPools, undefined);
    assert.deepEqual(plan.disruption?.steps ?? [], []);
  });
});
