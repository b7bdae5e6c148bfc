import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Plan } from "./simulate.ts";
import { simulatePlan, writeTempFile } from "./simulate-fixtures.ts";

const example = path.resolve(import.meta.dirname, "../../manifests/examples/scenarios/static-nodepool.yaml");

/** The JSON plan of the static-nodepool example with `edit` applied to its text. */
function plan(edit: (yaml: string) => string = (y) => y): Promise<Plan> {
  return simulatePlan(["-f", writeTempFile(edit(readFileSync(example, "utf8")))]);
}

const NOT_READY = 'status: { conditions: [{ type: Ready, status: "False" }] }';

void describe("kerf simulate with a static NodePool (spec.replicas)", () => {
  void it("should list the NodeClaims the static pool launches to reach its replicas, cheapest type", async () => {
    const p = await plan();
    const statics = p.nodeClaims.filter((c) => c.static === true);
    assert.deepEqual(
      statics.map((c) => [c.nodePool, c.instanceType, c.capacityType, c.pods.length]),
      [
        ["ingress", "c5.large", "on-demand", 0],
        ["ingress", "c5.large", "on-demand", 0],
      ],
    );
  });

  void it("should place a pending pod on a static node that exists", async () => {
    const p = await plan();
    // The scenario's ingress pods are proxy-0 and edge: edge alone is unschedulable, and no NodeClaim takes proxy-0.
    assert.deepEqual(
      p.unschedulable.map((u) => u.pod).filter((n) => n.startsWith("ingress/")),
      ["ingress/edge"],
    );
    assert.deepEqual(
      p.nodeClaims.flatMap((c) => c.pods).filter((n) => n.startsWith("ingress/")),
      [],
    );
  });

  void it("should never grow a static pool for a pending pod: one fitting no static node waits", async () => {
    const p = await plan();
    assert.deepEqual(
      p.nodeClaims.filter((c) => c.nodePool === "ingress" && c.static !== true),
      [],
    );
    assert.deepEqual(
      p.unschedulable.map((u) => u.pod),
      ["ingress/edge"],
    );
    assert.ok(p.nodeClaims.filter((c) => c.static !== true).every((c) => c.nodePool === "default"));
  });

  const counts: { name: string; edit: (y: string) => string; want: number }[] = [
    {
      name: "should launch nothing for a pool at its replicas",
      edit: (y) => y.replace("replicas: 3", "replicas: 1"),
      want: 0,
    },
    {
      name: "should launch only what limits.nodes leaves",
      edit: (y) => y.replace('limits: { nodes: "5" }', 'limits: { nodes: "2" }'),
      want: 1,
    },
    {
      name: "should launch nothing for a pool that states Ready=False",
      edit: (y) => y.replace("metadata: { name: ingress }\n", `metadata: { name: ingress }\n${NOT_READY}\n`),
      want: 0,
    },
  ];
  for (const c of counts) {
    void it(c.name, async () => {
      assert.equal((await plan(c.edit)).nodeClaims.filter((x) => x.static === true).length, c.want);
    });
  }
});
