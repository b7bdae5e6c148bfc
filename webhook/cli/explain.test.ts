import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog } from "../../policies/domain/catalog/builtin.ts";
import { explainNodePool, type NodePoolExplanation } from "./explain.ts";
import { runCheck } from "./check.ts";
import { capture } from "./captured-io.ts";

const catalog = builtinCatalog();

function entry(name: string): { vcpu: number; onDemand: number; spot: number } {
  const e = catalog.instanceTypes.find((t) => t.name === name);
  assert.ok(e !== undefined && e.spotPricePerHour !== null, name);
  return { vcpu: e.vcpu, onDemand: e.onDemandPricePerHour, spot: e.spotPricePerHour };
}

function pool(
  types: string[],
  limits: Record<string, string> | undefined,
  extra: Array<Record<string, unknown>> = [],
): Record<string, unknown> {
  return {
    apiVersion: "karpenter.sh/v1",
    kind: "NodePool",
    metadata: { name: "p" },
    spec: {
      ...(limits === undefined ? {} : { limits }),
      template: {
        spec: { requirements: [{ key: "node.kubernetes.io/instance-type", operator: "In", values: types }, ...extra] },
      },
    },
  };
}

function explain(object: Record<string, unknown>): NodePoolExplanation {
  const e = explainNodePool(object, catalog);
  assert.ok(e !== undefined);
  return e;
}

const close = (actual: number | undefined, expected: number): void =>
  assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`);

void describe("kerf check --explain", () => {
  void it("counts matching types per capacity type and names the cheapest and dearest with their prices", () => {
    const e = explain(pool(["m5.large", "m5.xlarge", "c5.large"], { cpu: "100" }));
    assert.deepEqual([e.instanceTypes, e.onDemand.instanceTypes, e.spot.instanceTypes], [3, 3, 3]);
    assert.deepEqual(e.onDemand.cheapest, { instanceType: "c5.large", pricePerHour: entry("c5.large").onDemand });
    assert.deepEqual(e.onDemand.dearest, { instanceType: "m5.xlarge", pricePerHour: entry("m5.xlarge").onDemand });
    assert.deepEqual(e.spot.cheapest, { instanceType: "c5.large", pricePerHour: entry("c5.large").spot });
  });

  void it("bounds the cost by a cpu limit times the highest price per vCPU among the matching types", () => {
    const e = explain(pool(["m5.large", "c5.large"], { cpu: "10" }));
    const [m5, c5] = [entry("m5.large"), entry("c5.large")];
    const rate = Math.max(m5.onDemand / m5.vcpu, c5.onDemand / c5.vcpu);
    close(e.onDemand.worstCase?.pricePerHour, 10 * rate);
    assert.deepEqual(
      [e.onDemand.worstCase?.resource, e.onDemand.worstCase?.unit, e.onDemand.worstCase?.instanceType],
      ["cpu", "vCPU", "m5.large"],
    );
    close(e.onDemand.worstCase?.ratePerUnit, rate);
    close(e.spot.worstCase?.pricePerHour, 10 * Math.max(m5.spot / m5.vcpu, c5.spot / c5.vcpu));
  });

  void it("takes the tightest of several limits (nodes: count times the dearest type)", () => {
    const e = explain(pool(["m5.large", "m5.xlarge"], { cpu: "1k", nodes: "3" }));
    close(e.onDemand.worstCase?.pricePerHour, 3 * entry("m5.xlarge").onDemand);
    assert.equal(e.onDemand.worstCase?.resource, "nodes");
  });

  void it("reads cpu limits as quantities (500m is half a vCPU)", () => {
    const e = explain(pool(["m5.large"], { cpu: "500m" }));
    close(e.onDemand.worstCase?.pricePerHour, 0.5 * (entry("m5.large").onDemand / entry("m5.large").vcpu));
  });

  const unbounded: Array<[string, Record<string, string> | undefined]> = [
    ["no limits", undefined],
    ["a limit on a resource the types lack (nvidia.com/gpu on m5)", { "nvidia.com/gpu": "8" }],
  ];
  for (const [what, limits] of unbounded) {
    void it(`reports no ceiling for ${what}`, () => {
      const e = explain(pool(["m5.large"], limits));
      assert.equal(e.onDemand.worstCase, null);
      assert.equal(e.spot.worstCase, null);
    });
  }

  void it("gives the allocatable range per node over the matching types", () => {
    const e = explain(pool(["m5.large", "m5.xlarge"], { cpu: "10" }));
    assert.ok(e.allocatable !== null);
    assert.ok(
      e.allocatable.cpuCores.min < 2 && e.allocatable.cpuCores.max < 4 && e.allocatable.cpuCores.max > 3,
      JSON.stringify(e.allocatable),
    );
    assert.ok(e.allocatable.memoryGiB.min < 8 && e.allocatable.memoryGiB.max > e.allocatable.memoryGiB.min);
  });

  void it("counts nothing for a capacity type the requirements exclude", () => {
    const e = explain(
      pool(["m5.large"], { cpu: "10" }, [{ key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] }]),
    );
    assert.deepEqual(e.spot, { instanceTypes: 0, cheapest: null, dearest: null, worstCase: null });
    assert.equal(e.onDemand.instanceTypes, 1);
  });

  void it("is added to NodePool results of --format json and printed by text", async () => {
    const text =
      "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec:\n" +
      '  limits: {cpu: "10", memory: 40Gi}\n  template:\n    spec:\n' +
      "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}\n      requirements:\n" +
      "        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}\n" +
      "        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}\n";
    const json = capture({ stdin: text });
    assert.equal(await runCheck(["-", "--explain", "--format", "json"], json.io), 0);
    const report = JSON.parse(json.out()) as { results: Array<{ explain?: NodePoolExplanation }> };
    assert.equal(report.results[0]?.explain?.onDemand.cheapest?.instanceType, "m5.large");
    const plain = capture({ stdin: text });
    assert.equal(await runCheck(["-", "--explain"], plain.io), 0);
    assert.match(
      plain.out(),
      new RegExp(
        "^ {2}on-demand: 1 types, cheapest m5\\.large \\$0\\.0960\\/h, " +
          "dearest m5\\.large \\$0\\.0960\\/h; " +
          "worst case under limits \\$0\\.4800\\/h \\(limit cpu=10 at \\$0\\.0480 per vCPU-hour on m5\\.large\\)$",
        "m",
      ),
    );
  });

  void it("refuses --explain with formats that cannot carry it", async () => {
    const c = capture();
    assert.equal(await runCheck(["-", "--explain", "--format", "sarif"], c.io), 2);
    assert.match(c.err(), /--explain works with --format text or json/);
  });
});
