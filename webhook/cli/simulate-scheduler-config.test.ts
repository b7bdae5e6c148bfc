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
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, resources: {requests: {cpu: 100m}}}]
`;

describe("kerf simulate --scheduler-config (issue 22 item 9)", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "kerf-schedcfg-"));
  const file = (name: string, text: string): string => {
    const p = path.join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const scenarioFile = file("scenario.yaml", scenario);

  it("spreads a Deployment's pods by the default constraints, as the operator would", async () => {
    const config = file("hostname.yaml", "podTopologySpread:\n  defaultConstraints:\n  - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule}\n");
    const c = capture();
    assert.equal(await run(["simulate", "-f", scenarioFile, "--scheduler-config", config, "--format", "json"], c.io), 0, c.err());
    assert.equal((JSON.parse(c.out()) as { nodeClaims: unknown[] }).nodeClaims.length, 3);
    const plain = capture();
    assert.equal(await run(["simulate", "-f", scenarioFile, "--format", "json"], plain.io), 0, plain.err());
    assert.equal((JSON.parse(plain.out()) as { nodeClaims: unknown[] }).nodeClaims.length, 1);
  });

  it("refuses a configuration Karpenter refuses, naming the file and the field, with exit 2", async () => {
    const config = file("bad.yaml", "podTopologySpread:\n  defaultConstraints:\n  - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {}}\n");
    const c = capture();
    assert.equal(await run(["simulate", "-f", scenarioFile, "--scheduler-config", config], c.io), 2);
    assert.match(c.err(), /--scheduler-config .*bad\.yaml: .*defaultConstraints\[0\]\.labelSelector must not be set/);
    assert.doesNotMatch(c.err(), /\n\s+at /, "no stack trace");
  });
});
