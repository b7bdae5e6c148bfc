/**
 * Observability you can deploy (issue 24 item 4): the chart's Grafana dashboards (ConfigMaps for Grafana's sidecar)
 * and PrometheusRule, toggled by values. Every series a dashboard panel, a dashboard variable or an alert queries
 * must be one kerf exports: the names come from the `/metrics` pages of a webhook started from the rendered chart
 * and of the operator's own metrics endpoint (its registry behind operator/observability/http.ts, as a running
 * operator serves it). promtool (from the Go module proxy) parses the rules and every dashboard query, and runs
 * unit tests of the alerts on synthetic series.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import https from "node:https";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { V1ConfigMap, V1Deployment, V1Secret, V1ValidatingWebhookConfiguration } from "@kubernetes/client-node";
import { pino } from "pino";
import { stringify } from "yaml";
import { createMetrics } from "../../operator/observability/metrics.ts";
import { serveProbes, type ListeningServer } from "../../operator/observability/http.ts";
import { loadWebhookConfig } from "../../webhook/config.ts";
import { startWebhook, type RunningWebhook } from "../../webhook/main.ts";
import { CI_VALUES, renderChart, root } from "../harness/chart.ts";
import {
  containerEnvironment,
  deploymentContainer,
  kerfInvocation,
  only,
  type ManifestObject,
} from "../harness/manifests.ts";
import {
  chartQueries,
  dashboardQueries,
  exportedSeries,
  karpenterDashboardGaps,
  karpenterDashboards,
  metricNames,
  NOT_KARPENTER_SERIES,
  runPromtool,
  unexported,
  withoutGrafanaVariables,
  type Dashboard,
} from "../harness/observability.ts";

type PrometheusRule = ManifestObject & {
  spec: {
    groups: {
      name: string;
      rules: { alert?: string; expr: string; for?: string; labels?: Record<string, string> }[];
    }[];
  };
};

function get(url: string, ca?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const done = (res: http.IncomingMessage): void => {
      let body = "";
      res.on("data", (c: Buffer) => {
        body += c.toString();
      });
      res.on("end", () =>
        res.statusCode === 200 ? resolve(body) : reject(new Error(`GET ${url}: HTTP ${res.statusCode ?? 0}`)),
      );
    };
    const req =
      ca === undefined ? http.get(url, done) : https.get(url, { ca, servername: "kerf-webhook.kerf-system.svc" }, done);
    req.on("error", reject);
  });
}

function dashboardsOf(objects: readonly ManifestObject[]): Dashboard[] {
  return objects
    .filter((o) => o.kind === "ConfigMap" && o.metadata.name.includes("-dashboard-"))
    .flatMap((o) =>
      Object.values((o as unknown as V1ConfigMap).data ?? {}).map((json) => JSON.parse(json) as Dashboard),
    );
}

function tmpFile(name: string, text: string): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "kerf-observability-")), name);
  writeFileSync(file, text);
  return file;
}

void describe("the chart's dashboards and alerts", () => {
  let enabled: ManifestObject[];
  let webhook: RunningWebhook | undefined;
  let operatorServers: ListeningServer[] = [];
  let exported: { operator: Set<string>; webhook: Set<string> };

  before(async () => {
    enabled = await renderChart({
      values: [CI_VALUES],
      set: { "dashboards.enabled": "true", "prometheusRule.enabled": "true", "webhook.karpenterApi.source": "bundled" },
    });
    // The webhook as the rendered Deployment starts it, with the rendered certificate and policy file.
    const dir = mkdtempSync(path.join(os.tmpdir(), "kerf-observability-webhook-"));
    const secret = only<V1Secret>(enabled, "Secret", "kerf-webhook-tls");
    const files: Record<string, string> = {
      "/etc/kerf/tls/tls.crt": Buffer.from(secret.data?.["tls.crt"] ?? "", "base64").toString("utf8"),
      "/etc/kerf/tls/tls.key": Buffer.from(secret.data?.["tls.key"] ?? "", "base64").toString("utf8"),
      "/etc/kerf/config/policies.yaml":
        only<V1ConfigMap>(enabled, "ConfigMap", "kerf-policy").data?.["policies.yaml"] ?? "",
    };
    const local = (mounted: string): string => path.join(dir, mounted.replaceAll("/", "_"));
    for (const [mounted, text] of Object.entries(files)) writeFileSync(local(mounted), text);
    const container = deploymentContainer(only<V1Deployment>(enabled, "Deployment", "kerf-webhook"), "webhook");
    const argv = kerfInvocation(container).argv.map((a) => {
      const [flag, value = ""] = a.split("=");
      if (flag === "--port") return "--port=0";
      return value in files ? `${flag ?? ""}=${local(value)}` : a;
    });
    // The periodic audit registers its series once it has a cluster to read: a kubeconfig naming no server that
    // answers (its reads fail and are retried; the series exist with no sample, as before a first audit).
    const kubeconfig = path.join(dir, "kubeconfig");
    writeFileSync(
      kubeconfig,
      stringify({
        apiVersion: "v1",
        kind: "Config",
        "current-context": "none",
        clusters: [{ name: "none", cluster: { server: "https://127.0.0.1:9" } }],
        contexts: [{ name: "none", context: { cluster: "none", user: "none" } }],
        users: [{ name: "none", user: {} }],
      }),
    );
    const flags = [...argv, "--host=127.0.0.1", `--kubeconfig=${kubeconfig}`, "--audit-interval=300"];
    webhook = await startWebhook(
      loadWebhookConfig(flags, containerEnvironment(container, [], { name: "w", namespace: "kerf-system" })),
      pino({ level: "silent" }),
    );
    const caBundle = Buffer.from(
      only<V1ValidatingWebhookConfiguration>(enabled, "ValidatingWebhookConfiguration").webhooks?.[0]?.clientConfig
        .caBundle ?? "",
      "base64",
    ).toString("utf8");
    // The operator's metrics endpoint: its registry (with process metrics, as startOperator
    // serves it) behind its HTTP server.
    operatorServers = await serveProbes(
      { ready: () => true, registry: createMetrics({ processMetrics: true }).registry },
      { health: 0, metrics: 0 },
    );
    const metricsPort = operatorServers[operatorServers.length - 1]?.port ?? 0;
    exported = {
      operator: exportedSeries(await get(`http://127.0.0.1:${metricsPort}/metrics`)),
      webhook: exportedSeries(await get(`https://127.0.0.1:${webhook.port}/metrics`, caBundle)),
    };
  });
  after(async () => {
    await webhook?.close();
    await Promise.all(operatorServers.map((s) => s.close()));
  });

  void it("should read metric names out of PromQL and Grafana variables, so that a series kerf lacks is caught", () => {
    const cases: [string, string[]][] = [
      [
        "sum by (le, controller) " +
          '(rate(karpenter_scheduler_scheduling_duration_seconds_bucket{job=~"$job"}[$__rate_interval]))',
        ["karpenter_scheduler_scheduling_duration_seconds_bucket"],
      ],
      ['a{x="b(c)"} / on (node) group_left (zone) b offset 5m and bool c > 1e3', ["a", "b", "c"]],
      [
        'count(max by (namespace, name) (karpenter_pods_state{phase="Pending"})) or vector(0)',
        ["karpenter_pods_state"],
      ],
      ['{__name__="karpenter_nodes_allocatable", job="x"}', ["karpenter_nodes_allocatable"]],
      ['label_values(karpenter_nodepools_usage{job=~"$job"}, nodepool)', ["karpenter_nodepools_usage"]],
      [
        "time() - max by (part) (kerf_catalog_refreshed_timestamp_seconds)",
        ["kerf_catalog_refreshed_timestamp_seconds"],
      ],
    ];
    for (const [query, names] of cases) assert.deepEqual(metricNames(query), names, query);
    // A PromQL comment names no series (Karpenter's capacity dashboard has one).
    assert.deepEqual(metricNames('count(karpenter_nodes_allocatable{resource_type="cpu"}) # Selects a single type'), [
      "karpenter_nodes_allocatable",
    ]);
    // A series kerf does not export is reported; Prometheus' own `up` is not.
    const panel = {
      where: "Karpenter / Allocation",
      expr:
        "sum by (nodepool) (karpenter_allocation_controller_bind_duration_seconds_bucket) / " +
        'sum(up{job="karpenter"})',
    };
    assert.deepEqual(unexported([panel], exported.operator), [
      "Karpenter / Allocation: karpenter_allocation_controller_bind_duration_seconds_bucket",
    ]);
  });

  void it("should ship nothing by default, and the five dashboards as sidecar-labelled ConfigMaps and one PrometheusRule when enabled", async () => {
    const defaults = await renderChart({ values: [CI_VALUES] });
    assert.deepEqual(
      defaults
        .filter((o) => o.kind === "PrometheusRule" || o.metadata.name.includes("-dashboard-"))
        .map((o) => o.metadata.name),
      [],
    );
    const maps = enabled.filter((o) => o.kind === "ConfigMap" && o.metadata.name.includes("-dashboard-"));
    assert.deepEqual(maps.map((m) => m.metadata.name).sort(), [
      "kerf-dashboard-capacity",
      "kerf-dashboard-cost",
      "kerf-dashboard-disruption",
      "kerf-dashboard-provisioning",
      "kerf-dashboard-webhook",
    ]);
    for (const map of maps)
      assert.equal((map.metadata["labels"] as Record<string, string>)["grafana_dashboard"], "1", map.metadata.name);
    const dashboards = dashboardsOf(enabled);
    assert.equal(new Set(dashboards.map((d) => d.uid)).size, dashboards.length, "unique uids");
    for (const d of dashboards) {
      assert.ok(
        d.templating?.list.some((v) => v.type === "datasource"),
        `${d.title} picks its Prometheus data source`,
      );
      assert.ok(dashboardQueries(d).length >= 5, `${d.title} has panels`);
    }
    assert.equal(enabled.filter((o) => o.kind === "PrometheusRule").length, 1);
    const custom = await renderChart({
      set: {
        "dashboards.enabled": "true",
        "dashboards.namespace": "monitoring",
        "dashboards.label": "grafana_dashboard_kerf",
        "dashboards.labelValue": "yes",
        "dashboards.annotations.grafana_folder": "kerf",
      },
    });
    const map = only(custom, "ConfigMap", "kerf-dashboard-cost");
    assert.equal(map.metadata.namespace, "monitoring");
    assert.equal((map.metadata["labels"] as Record<string, string>)["grafana_dashboard_kerf"], "yes");
    assert.equal((map.metadata["annotations"] as Record<string, string>)["grafana_folder"], "kerf");
  });

  void it("should query in every dashboard panel, variable and alert only series the operator and the webhook export", () => {
    const queries = chartQueries(enabled);
    for (const q of [...queries.operator, ...queries.webhook])
      assert.ok(metricNames(q.expr).length > 0, `${q.where} reads a series: ${q.expr}`);
    assert.ok(queries.operator.length > 40 && queries.webhook.length > 10, "the operator's and the webhook's queries");
    // The webhook's dashboard and alerts read the webhook's page; the rest the operator's.
    assert.deepEqual(unexported(queries.operator, exported.operator), []);
    assert.deepEqual(unexported(queries.webhook, exported.webhook), []);
    assert.ok(
      exported.operator.has("karpenter_pods_state") && exported.webhook.has("kerf_admission_requests_total"),
      "both pages were read",
    );
  });

  void it("should export every series Karpenter's own dashboards query, but node-exporter's and Karpenter v0's", () => {
    const dashboards = karpenterDashboards();
    assert.deepEqual(dashboards.map((d) => d.title).sort(), [
      "Controllers",
      "Controllers / Allocation",
      "Karpenter Capacity v1",
      "Karpenter Performance v1",
    ]);
    assert.deepEqual(karpenterDashboardGaps(exported.operator), []);
    // The exceptions are named by the dashboards, and are no Karpenter v1.15 metric (its table, read from its sources).
    const named = new Set(dashboards.flatMap(dashboardQueries).flatMap((q) => metricNames(q.expr)));
    const karpenter = (
      JSON.parse(readFileSync(path.join(root, "operator/observability/karpenter-metrics.json"), "utf8")) as {
        name: string;
      }[]
    ).map((m) => m.name);
    for (const series of Object.keys(NOT_KARPENTER_SERIES)) {
      assert.ok(named.has(series), `${series} is queried by Karpenter's dashboards`);
      assert.ok(
        !karpenter.some((m) => series === m || series.startsWith(`${m}_`)),
        `${series} is not Karpenter v1.15's`,
      );
    }
    assert.ok(
      named.has("karpenter_nodes_allocatable") && exported.operator.has("karpenter_nodes_allocatable"),
      "the capacity dashboard's series are served",
    );
  });

  void it("should render alerts promtool accepts, with every dashboard query parsing as PromQL too", async () => {
    const rule = only(enabled, "PrometheusRule") as PrometheusRule;
    const alerts = rule.spec.groups.flatMap((g) => g.rules.map((r) => r.alert));
    for (const alert of [
      "KerfWebhookDown",
      "KerfWebhookDenyingEverything",
      "KerfPodsPending",
      "KerfNodeClaimsNotRegistering",
      "KerfDriftBlockedByBudget",
      "KerfInterruptionQueueBacklog",
      "KerfCloudProviderErrors",
    ]) {
      assert.ok(alerts.includes(alert), alert);
    }
    const rulesFile = tmpFile("rules.yaml", stringify({ groups: rule.spec.groups }));
    assert.match(await runPromtool(root, ["check", "rules", rulesFile]), /SUCCESS: 11 rules found/);
    // Each dashboard query as a recording rule: promtool parses it with Prometheus' own parser.
    const recorded = dashboardsOf(enabled)
      .flatMap(dashboardQueries)
      .filter((q) => !q.expr.startsWith("label_values("))
      .map((q, i) => ({ record: `kerf:dashboard_query_${i}`, expr: withoutGrafanaVariables(q.expr) }));
    const dashboardsFile = tmpFile("dashboards.yaml", stringify({ groups: [{ name: "dashboards", rules: recorded }] }));
    assert.match(
      await runPromtool(root, ["check", "rules", dashboardsFile]),
      new RegExp(`SUCCESS: ${recorded.length} rules found`),
    );
    // A broken query is refused: the check can fail.
    const broken = tmpFile(
      "broken.yaml",
      stringify({ groups: [{ name: "x", rules: [{ record: "x", expr: "sum by (le (rate(x[5m]))" }] }] }),
    );
    await assert.rejects(runPromtool(root, ["check", "rules", broken]), /FAILED/);
  });

  void it("should fire each alert on the series that mean trouble, after its threshold from values, and not before", async () => {
    const rendered = await renderChart({
      set: {
        "prometheusRule.enabled": "true",
        "prometheusRule.pendingPodsMinutes": "10",
        "prometheusRule.driftBlockedHours": "2",
      },
    });
    const rule = only(rendered, "PrometheusRule") as PrometheusRule;
    const rulesFile = tmpFile("rules.yaml", stringify({ groups: rule.spec.groups }));
    // promtool compares annotations too: the rule's own, with $labels filled in as Prometheus fills them.
    const firing = (
      alertname: string,
      labels: Record<string, string>,
    ): { exp_labels: Record<string, string>; exp_annotations: Record<string, string> } => {
      const found = rule.spec.groups.flatMap((g) => g.rules).find((r) => r.alert === alertname) as
        { annotations?: Record<string, string>; labels?: Record<string, string> } | undefined;
      const annotations = Object.fromEntries(
        Object.entries(found?.annotations ?? {}).map(([k, v]) => [
          k,
          v.replace(/\{\{ \$labels\.(\w+) \}\}/g, (_m, l: string) => labels[l] ?? ""),
        ]),
      );
      return { exp_labels: { ...found?.labels, ...labels }, exp_annotations: annotations };
    };
    const op = 'job="kerf-operator"';
    const wh = 'job="kerf-webhook"';
    const unit = {
      rule_files: [rulesFile],
      evaluation_interval: "1m",
      tests: [
        {
          interval: "1m",
          input_series: [{ series: `up{${wh}, instance="a"}`, values: "1x5 0x20" }],
          alert_rule_test: [
            { eval_time: "8m", alertname: "KerfWebhookDown", exp_alerts: [] },
            { eval_time: "15m", alertname: "KerfWebhookDown", exp_alerts: [firing("KerfWebhookDown", {})] },
          ],
        },
        {
          interval: "1m",
          input_series: [
            {
              series: `karpenter_pods_state{${op}, namespace="shop", name="web-1", phase="Pending", node=""}`,
              values: "1x30",
            },
            {
              series: `karpenter_pods_state{${op}, namespace="shop", name="web-2", phase="Running", node="n1"}`,
              values: "1x30",
            },
          ],
          alert_rule_test: [
            { eval_time: "8m", alertname: "KerfPodsPending", exp_alerts: [] },
            {
              eval_time: "12m",
              alertname: "KerfPodsPending",
              exp_alerts: [firing("KerfPodsPending", { namespace: "shop", name: "web-1" })],
            },
          ],
        },
        {
          interval: "5m",
          input_series: [
            { series: `karpenter_voluntary_disruption_eligible_nodes{${op}, reason="drifted"}`, values: "4x40" },
            {
              series: `karpenter_nodepools_allowed_disruptions{${op}, nodepool="default", reason="drifted"}`,
              values: "0x40",
            },
            {
              series: `karpenter_nodepools_allowed_disruptions{${op}, nodepool="default", reason="empty"}`,
              values: "1x40",
            },
          ],
          alert_rule_test: [
            { eval_time: "90m", alertname: "KerfDriftBlockedByBudget", exp_alerts: [] },
            {
              eval_time: "150m",
              alertname: "KerfDriftBlockedByBudget",
              exp_alerts: [firing("KerfDriftBlockedByBudget", {})],
            },
          ],
        },
        {
          interval: "1m",
          input_series: [
            {
              series:
                `kerf_admission_requests_total{${wh}, webhook="validate", kind="NodePool", operation="UPDATE", ` +
                `verdict="denied", dry_run="false"}`,
              values: "0+2x90",
            },
            {
              series:
                `kerf_admission_requests_total{${wh}, webhook="validate", kind="NodePool", operation="UPDATE", ` +
                `verdict="allowed", dry_run="false"}`,
              values: "0+0x90",
            },
          ],
          alert_rule_test: [
            {
              eval_time: "80m",
              alertname: "KerfWebhookDenyingEverything",
              exp_alerts: [firing("KerfWebhookDenyingEverything", {})],
            },
          ],
        },
        {
          interval: "1m",
          input_series: [
            {
              series:
                `karpenter_nodeclaims_created_total{${op}, nodepool="default", reason="provisioned", ` +
                `min_values_relaxed="false"}`,
              values: "0+1x60",
            },
            { series: `karpenter_nodes_created_total{${op}, nodepool="default", zone="us-east-1a"}`, values: "0+0x60" },
            {
              series:
                `karpenter_nodeclaims_created_total{${op}, nodepool="healthy", reason="provisioned", ` +
                `min_values_relaxed="false"}`,
              values: "0+1x60",
            },
            { series: `karpenter_nodes_created_total{${op}, nodepool="healthy", zone="us-east-1a"}`, values: "0+1x60" },
          ],
          alert_rule_test: [
            {
              eval_time: "40m",
              alertname: "KerfNodeClaimsNotRegistering",
              exp_alerts: [firing("KerfNodeClaimsNotRegistering", { nodepool: "default" })],
            },
          ],
        },
      ],
    };
    const output = await runPromtool(root, ["test", "rules", tmpFile("unit.yaml", stringify(unit))]);
    assert.match(output, /SUCCESS/);
  });
});
