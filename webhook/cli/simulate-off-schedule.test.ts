// `kerf simulate --at` with kerf.dev/off-schedule: the time given decides whether the pool is off, as the operator's
// clock does (the provisioner skips it and names the pods it would have launched for; the what-if removes its nodes).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { run } from "./main.ts";
import type { CliIo } from "./io.ts";
import type { Plan } from "./simulate.ts";

function capture(): { io: CliIo; out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return { io: { stdout: (t) => { out += t; }, stderr: (t) => { err += t; }, isTty: false, readStdin: async () => "" }, out: () => out, err: () => err };
}

const WINDOW = '[{"schedule": "0 20 * * *", "duration": "10h"}]';
const SCENARIO = [
  `kind: NodePool\nmetadata: {name: dev, annotations: {kerf.dev/off-schedule: '${WINDOW}'}}\nspec:\n  template:\n    spec:\n` +
  "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n" +
  "      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}, {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5]}]\n" +
  '  disruption: {consolidateAfter: Never, budgets: [{nodes: "100%"}]}',
  "kind: Node\nmetadata: {name: idle, labels: {karpenter.sh/nodepool: dev, node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1a}}",
  "kind: Pod\nmetadata: {name: big, namespace: default}\nspec: {containers: [{name: c, resources: {requests: {memory: 20Gi}}}]}",
].join("\n---\n");

async function simulateAt(at: string, format: "json" | "text"): Promise<string> {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "kerf-off-sim-")), "scenario.yaml");
  writeFileSync(file, SCENARIO);
  const c = capture();
  assert.equal(await run(["simulate", "-f", file, "--at", at, "--format", format], c.io), 0, c.err());
  return c.out();
}

void describe("kerf simulate --at with kerf.dev/off-schedule", () => {
  void it("shows the pool off at night: no NodeClaim, the pod it would have launched for, its node removed", async () => {
    const plan = JSON.parse(await simulateAt("2026-11-27T23:00:00Z", "json")) as Plan;
    assert.deepEqual(plan.nodeClaims, []);
    assert.deepEqual(plan.offPools, [{ nodePool: "dev", until: "2026-11-28T06:00:00.000Z", pods: ["default/big"] }]);
    assert.deepEqual(plan.disruption?.steps.map((s) => [s.method, s.reason, s.candidates.map((c) => c.node)]), [["scheduled-off", "KerfScheduledOff", ["idle"]]]);
    const text = await simulateAt("2026-11-27T23:00:00Z", "text");
    assert.match(text, /NodePool dev is off \(kerf\.dev\/off-schedule\) until 2026-11-28T06:00:00\.000Z: it launches nothing; it would have launched for default\/big/);
  });

  void it("shows the pool on at noon: the pod gets a NodeClaim and the node stays", async () => {
    const plan = JSON.parse(await simulateAt("2026-11-27T12:00:00Z", "json")) as Plan;
    assert.deepEqual(plan.nodeClaims.map((c) => [c.nodePool, c.pods]), [["dev", ["default/big"]]]);
    assert.equal(plan.offPools, undefined);
    assert.deepEqual(plan.disruption?.steps ?? [], []);
  });
});
