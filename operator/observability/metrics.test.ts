import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Histogram, Metric, Summary } from "prom-client";
import { createMetrics } from "./metrics.ts";

/** A row of karpenter-metrics.json (scripts/metrics/karpenter-metrics.ts reads it out of Karpenter's Go sources). */
interface KarpenterMetric {
  readonly name: string;
  readonly type: "counter" | "gauge" | "histogram" | "summary";
  readonly labels: readonly string[];
  readonly buckets?: readonly number[];
  readonly objectives?: readonly number[];
  readonly source: string;
}

const table = JSON.parse(
  readFileSync(path.join(import.meta.dirname, "karpenter-metrics.json"), "utf8"),
) as KarpenterMetric[];

/** What prom-client keeps of a metric's definition (its fields are not in the public typings). */
type Defined = Metric & {
  readonly labelNames?: readonly string[];
  readonly upperBounds?: readonly number[];
  readonly percentiles?: readonly number[];
};

void describe("kerf's metrics against Karpenter v1.15's", () => {
  const metrics = createMetrics();

  void it("should hold a table of Karpenter's karpenter_* and operator_* metrics from its sources", () => {
    // 73 of core and the AWS provider, 36 of operatorpkg's status controllers (4 kinds and the generic set, 6 each).
    assert.equal(table.length, 109);
    assert.equal(new Set(table.map((m) => m.name)).size, table.length, "names are unique");
    for (const m of table) assert.match(m.source, /^(sigs\.k8s\.io|github\.com)\/.+\.go/, m.name);
  });

  for (const expected of table) {
    const labels = expected.labels.length === 0 ? "no labels" : expected.labels.join(", ");
    void it(`should export ${expected.name} as a ${expected.type} with ${labels}`, async () => {
      const metric = metrics.registry.getSingleMetric(expected.name) as Defined | undefined;
      assert.ok(metric !== undefined, `${expected.name} (${expected.source}) is not registered`);
      const { type } = await metric.get();
      assert.equal(type, expected.type);
      assert.deepEqual([...(metric.labelNames ?? [])].sort(), expected.labels);
      if (expected.buckets !== undefined) {
        assert.deepEqual((metric as unknown as Histogram & Defined).upperBounds, expected.buckets, "buckets");
      }
      if (expected.objectives !== undefined) {
        assert.deepEqual((metric as unknown as Summary & Defined).percentiles, expected.objectives, "quantiles");
      }
    });
  }

  void it("should export no karpenter_* or operator_* metric Karpenter does not have", async () => {
    const names = new Set(table.map((m) => m.name));
    const extra = (await metrics.registry.getMetricsAsJSON())
      .map((m) => m.name)
      .filter((n) => (n.startsWith("karpenter_") || n.startsWith("operator_")) && !names.has(n));
    assert.deepEqual(extra, []);
  });

  void it("should write Karpenter's series names and labels on the /metrics page", async () => {
    const m = createMetrics();
    m.nodeClaimsCreated.inc({ reason: "provisioned", nodepool: "default", min_values_relaxed: "false" });
    m.status.nodeclaim.count.set(
      {
        namespace: "",
        name: "a",
        type: "Ready",
        status: "True",
        reason: "Ready",
        karpenter_k8s_aws_ec2nodeclass: "default",
        karpenter_sh_nodepool: "default",
      },
      1,
    );
    const text = await m.registry.metrics();
    assert.match(text, /^# TYPE karpenter_nodes_termination_duration_seconds summary$/m);
    assert.match(
      text,
      /^karpenter_nodeclaims_created_total\{reason="provisioned",nodepool="default",min_values_relaxed="false"\} 1$/m,
    );
    assert.match(text, /^operator_nodeclaim_status_condition_count\{.*karpenter_sh_nodepool="default".*\} 1$/m);
  });
});
