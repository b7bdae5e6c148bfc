import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { run } from "./main.ts";
import type { CliIo } from "./io.ts";

function capture(): { io: CliIo; out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return { io: { stdout: (t) => { out += t; }, stderr: (t) => { err += t; }, isTty: false, readStdin: async () => "" }, out: () => out, err: () => err };
}

const deployment = (name: string, priority: number): string => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 2
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      priority: ${priority}
      containers: [{name: app, resources: {requests: {cpu: 100m}}}]
`;

const scenario = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec: {amiSelectorTerms: [{alias: al2023@latest}]}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
---
${deployment("batch", -10)}---
${deployment("web", 100)}`;

interface Plan { nodeClaims: { pods: string[] }[]; unschedulable: { pod: string; reason: string }[] }

describe("kerf simulate --expendable-pods-priority-cutoff", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "kerf-expendable-"));
  const scenarioFile = path.join(dir, "scenario.yaml");
  writeFileSync(scenarioFile, scenario);

  it("launches only for pods at or above the cutoff and reports the others as unschedulable, as the operator would", async () => {
    const c = capture();
    assert.equal(await run(["simulate", "-f", scenarioFile, "--expendable-pods-priority-cutoff", "0", "--passes", "0", "--format", "json"], c.io), 0, c.err());
    const plan = JSON.parse(c.out()) as Plan;
    assert.deepEqual(plan.nodeClaims.flatMap((n) => n.pods).map((p) => p.split("/")[1]?.split("-")[0]), ["web", "web"]);
    assert.equal(plan.unschedulable.length, 2);
    assert.ok(plan.unschedulable.every((u) => u.pod.includes("batch") && /below the expendable-pods priority cutoff 0/.test(u.reason)), JSON.stringify(plan.unschedulable));
    const plain = capture();
    assert.equal(await run(["simulate", "-f", scenarioFile, "--passes", "0", "--format", "json"], plain.io), 0, plain.err());
    assert.equal((JSON.parse(plain.out()) as Plan).unschedulable.length, 0, "without the flag every pod may launch (Karpenter)");
  });

  it("refuses a cutoff that is not an integer, naming the flag, with exit 2", async () => {
    const c = capture();
    assert.equal(await run(["simulate", "-f", scenarioFile, "--expendable-pods-priority-cutoff", "low"], c.io), 2);
    assert.match(c.err(), /--expendable-pods-priority-cutoff: "low" is not a 32-bit integer pod priority/);
    assert.doesNotMatch(c.err(), /\n\s+at /, "no stack trace");
  });
});
