import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { run } from "./main.ts";
import type { CliIo } from "./io.ts";

const root = path.resolve(import.meta.dirname, "../..");

function capture(): { io: CliIo; out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return { io: { stdout: (t) => { out += t; }, stderr: (t) => { err += t; }, isTty: false, readStdin: async () => "" }, out: () => out, err: () => err };
}

describe("kerf simulate", () => {
  it("plans one m5.large for the EKS workshop scenario, as JSON", async () => {
    const c = capture();
    const code = await run(["simulate", "-f", path.join(root, "manifests/examples/scenarios/eks-workshop-inflate.yaml"), "--format", "json"], c.io);
    assert.equal(code, 0, c.err());
    const plan = JSON.parse(c.out()) as { nodeClaims: { instanceType: string; nodePool: string; capacityType: string; pods: string[] }[]; unschedulable: unknown[]; totalPricePerHour: number };
    assert.deepEqual(plan.nodeClaims.map((n) => [n.nodePool, n.instanceType, n.capacityType, n.pods.length]), [["default", "m5.large", "on-demand", 5]]);
    assert.deepEqual(plan.unschedulable, []);
    assert.equal(plan.totalPricePerHour, 0.096);
  });
  it("explains unschedulable pods in text", async () => {
    const c = capture();
    assert.equal(await run(["simulate", "-f", path.join(root, "manifests/examples/scenarios/gpu-and-spread.yaml")], c.io), 0);
    assert.match(c.out(), /ml\/trainer: no instance type in NodePool gpu has 8 nvidia.com\/gpu with arch arm64/);
    assert.match(c.out(), /Total: \d+ node\(s\), \$\d+\.\d{4}\/h/);
  });
  it("points at file and line of a bad object and exits 2", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "kerf-sim-"));
    const file = path.join(dir, "bad.yaml");
    writeFileSync(file, "kind: Pod\nmetadata: {name: ok}\nspec: {}\n---\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers: [{resources: {requests: {cpu: lots}}}]\n");
    const c = capture();
    assert.equal(await run(["simulate", "-f", file], c.io), 2);
    assert.match(c.err(), /bad\.yaml:5:1: reading Pod x: parsing quantity "lots"/);
  });
  it("requires -f and a known format", async () => {
    const c = capture();
    assert.equal(await run(["simulate"], c.io), 2);
    assert.equal(await run(["simulate", "-f", "x.yaml", "--format", "xml"], c.io), 2);
  });
});
