/**
 * Values that cannot be silently wrong (issue 24 item 3): both charts' values.schema.json refuse unknown keys by
 * name; every value of Karpenter's own v1.15.1 chart is either mapped to kerf's or refused with a pointer to the
 * mapping table in docs/install.md; `webhook.enabled: false` (a Karpenter 1.0 values file) cannot switch off kerf's
 * guardrail unconfirmed; `replicas: 0` installs no operator identity; docs/install.md's object names hold for any
 * release name. Rendered by the real helm (cheap: no cluster).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { V1Deployment, V1Service, V1ServiceAccount } from "@kubernetes/client-node";
import { parse } from "yaml";
import { CONFIGURABLE_POLICY_IDS } from "../../policies/config.ts";
import { HONOURED_FEATURE_GATES, IGNORED_FEATURE_GATES } from "../../policies/operator-coverage.ts";
import { loadWebhookConfig } from "../../webhook/config.ts";
import {
  karpenterValues,
  KERF_CHART,
  KERF_CRD_CHART,
  KERF_IMAGE_OVER_KARPENTER,
  component,
  renderChart,
  root,
  runHelm,
} from "../harness/chart.ts";
import { deploymentContainer, kerfInvocation, only, type ManifestObject } from "../harness/manifests.ts";

const TABLE = /docs\/install\.md/;

interface SchemaNode {
  readonly properties?: Record<string, SchemaNode>;
  readonly additionalProperties?: unknown;
  readonly type?: unknown;
}

const schema = (chart: string): SchemaNode =>
  JSON.parse(readFileSync(path.join(chart, "values.schema.json"), "utf8")) as SchemaNode;

function valuesFile(text: string): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "kerf-values-")), "values.yaml");
  writeFileSync(file, text);
  return file;
}

/** The keys of a values document down to its leaves, or to a value kerf passes through whole (a free-form object). */
function leafPaths(values: unknown, node: SchemaNode | undefined, prefix: string[] = []): string[][] {
  if (typeof values !== "object" || values === null || Array.isArray(values) || Object.keys(values).length === 0)
    return [prefix];
  // A map or free-form object (additionalProperties not false) takes its keys whole.
  if (node !== undefined && node.properties === undefined) return [prefix];
  return Object.entries(values).flatMap(([key, value]) => leafPaths(value, node?.properties?.[key], [...prefix, key]));
}

function schemaHas(node: SchemaNode, keys: readonly string[]): boolean {
  let current: SchemaNode | undefined = node;
  for (const key of keys) {
    if (current !== undefined && current.properties === undefined && current.additionalProperties !== false)
      return true;
    current = current?.properties?.[key];
    if (current === undefined) return false;
  }
  return true;
}

/** `helm template`'s error for these values, or "" when it renders. */
async function renderError(o: Parameters<typeof renderChart>[0]): Promise<string> {
  return renderChart(o).then(
    () => "",
    (error: unknown) => (error as Error).message,
  );
}

void describe("the kerf chart's values", () => {
  void it("should refuse a misspelt or unknown key in either chart at render time, naming the key", async () => {
    const cases: [string, Record<string, string>, string, RegExp][] = [
      [
        "settings.clusterNmae",
        { "settings.clusterNmae": "prod" },
        KERF_CHART,
        /at '\/settings': additional properties 'clusterNmae' not allowed/,
      ],
      [
        "a misspelt policy",
        { "policies.spot-diversty": "warn" },
        KERF_CHART,
        /at '\/policies': additional properties 'spot-diversty' not allowed/,
      ],
      [
        "a webhook key",
        { "webhook.karpenterApi.sourc": "bundled" },
        KERF_CHART,
        /at '\/webhook\/karpenterApi': additional properties 'sourc' not allowed/,
      ],
      ["a top-level key", { replica: "3" }, KERF_CHART, /additional properties 'replica' not allowed/],
      [
        "an unknown feature gate",
        { "settings.featureGates.nodeRepiar": "true" },
        KERF_CHART,
        /at '\/settings\/featureGates': additional properties 'nodeRepiar' not allowed/,
      ],
      [
        "a wrong type",
        { "settings.isolatedVPC": "maybe" },
        KERF_CHART,
        /at '\/settings\/isolatedVPC': got string, want boolean/,
      ],
      ["a policy option", { "policies.spot-diversity.minInstanceType": "3" }, KERF_CHART, /minInstanceType/],
      [
        "any key of the CRD chart",
        { "settings.clusterName": "prod" },
        KERF_CRD_CHART,
        /kerf-crd:\n- at '': additional properties 'settings' not allowed/,
      ],
    ];
    for (const [what, set, chart, message] of cases) {
      assert.match(await renderError({ chart, set }), message, what);
    }
  });

  void it("should know exactly Karpenter's feature gates, those kerf implements and those its operator ignores", () => {
    const gates = schema(KERF_CHART).properties?.["settings"]?.properties?.["featureGates"];
    assert.equal(gates?.additionalProperties, false);
    const lowerFirst = (name: string): string => `${name.slice(0, 1).toLowerCase()}${name.slice(1)}`;
    const known = [...HONOURED_FEATURE_GATES, ...Object.keys(IGNORED_FEATURE_GATES)].map(lowerFirst).sort();
    assert.deepEqual(Object.keys(gates?.properties ?? {}).sort(), known);
  });

  void it("should pass each gate kerf implements to FEATURE_GATES and refuse each gate its operator ignores", async () => {
    const keyOf = (gate: string): string => `settings.featureGates.${gate.slice(0, 1).toLowerCase()}${gate.slice(1)}`;
    for (const gate of HONOURED_FEATURE_GATES) {
      const objects = await renderChart({ set: { [keyOf(gate)]: "true" } });
      const operator = deploymentContainer(only<V1Deployment>(objects, "Deployment", "kerf-operator"), "controller");
      const gates = operator.env?.find((e) => e.name === "FEATURE_GATES")?.value ?? "";
      assert.ok(gates.split(",").includes(`${gate}=true`), `${keyOf(gate)}=true: FEATURE_GATES=${gates}`);
    }
    for (const gate of Object.keys(IGNORED_FEATURE_GATES)) {
      const error = await renderError({ set: { [keyOf(gate)]: "true" } });
      assert.match(error, new RegExp(`${keyOf(gate).replaceAll(".", "\\.")}: .* is not supported: `), gate);
    }
  });

  void it("should accept decimals given with --set, which helm passes as strings, and refuse non-numbers", async () => {
    const decimals = {
      "prometheusRule.webhookDenyRatio": "0.8",
      "settings.maxPriceRatio": "1.5",
      "settings.vmMemoryOverheadPercent": "0.075",
    };
    assert.equal(await renderError({ set: decimals }), "");
    assert.match(
      await renderError({ set: { "settings.maxPriceRatio": "cheap" } }),
      /at '\/settings\/maxPriceRatio': 'cheap' does not match pattern/,
    );
    assert.match(
      await renderError({ set: { "prometheusRule.webhookDenyRatio": "90%" } }),
      /at '\/prometheusRule\/webhookDenyRatio'/,
    );
  });

  void it("should list exactly the policies the webhook configures in the schema of the policies value", () => {
    assert.deepEqual(
      Object.keys(schema(KERF_CHART).properties?.["policies"]?.properties ?? {}).sort(),
      [...CONFIGURABLE_POLICY_IDS].sort(),
    );
  });

  void it("should know every value of Karpenter's v1.15.1 chart, and name each in docs/install.md's mapping table", async () => {
    const file = await karpenterValues();
    assert.ok(existsSync(file), file);
    const karpenter = parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    const kerf = schema(KERF_CHART);
    const paths = leafPaths(karpenter, kerf);
    assert.ok(paths.length > 60, `${paths.length} Karpenter values`);
    assert.deepEqual(
      paths.filter((p) => !schemaHas(kerf, p)).map((p) => p.join(".")),
      [],
      "Karpenter values kerf's schema does not know",
    );
    const doc = readFileSync(path.join(root, "docs/install.md"), "utf8");
    const table = doc.slice(doc.indexOf("## Karpenter chart values"));
    assert.ok(table.length < doc.length, "docs/install.md has the section the chart's messages point at");
    const rows = table
      .split("\n")
      .filter((l) => l.startsWith("| `"))
      .map((l) => l.split("|")[1] ?? "");
    const inRow = (key: string): boolean =>
      rows.some((cell) => {
        const parts = [...cell.matchAll(/`([\w.]+)`/g)].map((m) => m[1] ?? "");
        let base = "";
        return parts.some((p) => {
          const full = p.startsWith(".") ? `${base}${p}` : p;
          if (!p.startsWith(".")) base = p.slice(0, p.lastIndexOf("."));
          return full === key || key.startsWith(`${full}.`);
        });
      });
    const missing = paths.map((p) => p.join(".")).filter((key) => !inRow(key));
    assert.deepEqual(missing, [], "Karpenter values without a row in docs/install.md");
  });

  void it("should render Karpenter's own values file once the image is kerf's, with what its keys mean", async () => {
    const karpenter = await karpenterValues();
    const error = await renderError({ values: [karpenter] });
    assert.match(
      error,
      /controller\.image\.repository: public\.ecr\.aws\/karpenter\/controller is Karpenter's controller image/,
    );
    assert.match(error, TABLE);
    const objects = await renderChart({ values: [karpenter], set: KERF_IMAGE_OVER_KARPENTER });
    const operator = only<V1Deployment>(objects, "Deployment", "kerf-operator");
    const spec = operator.spec?.template.spec;
    assert.equal(spec?.schedulerName, "default-scheduler");
    assert.equal(spec?.initContainers, undefined, "initContainers: {} is none");
    assert.equal(spec?.terminationGracePeriodSeconds, undefined, "null: Kubernetes' default");
    assert.equal(spec?.securityContext?.fsGroup, 65532);
    const container = deploymentContainer(operator, "controller");
    assert.deepEqual(
      Object.keys(container.securityContext ?? {}).sort(),
      ["allowPrivilegeEscalation", "capabilities", "readOnlyRootFilesystem"],
      "Karpenter's empty appArmorProfile, seLinuxOptions and seccompProfile are left out " +
        "(the API server requires their type)",
    );
    assert.equal(
      only(objects, "PodDisruptionBudget", "karpenter").kind,
      "PodDisruptionBudget",
      "podDisruptionBudget.name",
    );
    assert.equal(kerfInvocation(container).subcommand, "operator");
  });

  void it("should map Karpenter's placement, container and monitoring values onto the objects they name", async () => {
    const values = valuesFile(`
schedulerName: custom-scheduler
service: { annotations: { team: platform } }
initContainers: [{ name: wait, image: busybox, command: [sh, -c, "true"] }]
controller:
  containerName: karpenter-controller
  extraVolumeMounts: [{ name: token, mountPath: /var/run/token }]
  sidecarContainer: [{ name: proxy, image: envoy }]
  sidecarVolumeMounts: [{ name: cache, mountPath: /cache }]
  securityContext: { seccompProfile: { type: RuntimeDefault } }
extraVolumes: [{ name: token, emptyDir: {} }, { name: cache, emptyDir: {} }]
serviceMonitor:
  enabled: true
  relabelings: [{ action: labeldrop, regex: pod }]
  metricRelabelings: [{ action: drop, sourceLabels: [__name__], regex: go_.* }]
  sampleLimit: 5000
`);
    const objects = await renderChart({ values: [values] });
    const operator = only<V1Deployment>(objects, "Deployment", "kerf-operator");
    const spec = operator.spec?.template.spec;
    assert.equal(spec?.schedulerName, "custom-scheduler");
    assert.equal(
      only<V1Deployment>(objects, "Deployment", "kerf-webhook").spec?.template.spec?.schedulerName,
      "custom-scheduler",
    );
    assert.deepEqual(
      spec?.initContainers?.map((c) => c.name),
      ["wait"],
    );
    assert.deepEqual(
      spec?.containers.map((c) => c.name),
      ["karpenter-controller", "proxy"],
    );
    const controller = deploymentContainer(operator, "karpenter-controller");
    assert.equal(controller.securityContext?.seccompProfile?.type, "RuntimeDefault");
    assert.equal(controller.securityContext.readOnlyRootFilesystem, true, "merged with kerf's defaults");
    assert.deepEqual(
      deploymentContainer(operator, "proxy").volumeMounts?.map((m) => m.name),
      ["token", "cache"],
      "extraVolumeMounts then sidecarVolumeMounts, as Karpenter's chart",
    );
    assert.equal(only<V1Service>(objects, "Service", "kerf-operator").metadata?.annotations?.["team"], "platform");
    const monitor = only(objects, "ServiceMonitor", "kerf-operator") as ManifestObject & {
      spec: { sampleLimit: number; endpoints: Record<string, unknown>[] };
    };
    assert.equal(monitor.spec.sampleLimit, 5000);
    assert.deepEqual(monitor.spec.endpoints[0]?.["relabelings"], [{ action: "labeldrop", regex: "pod" }]);
    assert.deepEqual(monitor.spec.endpoints[0]?.["metricRelabelings"], [
      { action: "drop", sourceLabels: ["__name__"], regex: "go_.*" },
    ]);
  });

  void it("should refuse each Karpenter value kerf does not implement unless it keeps Karpenter's default, pointing at the table", async () => {
    const cases: [string, string, string][] = [
      // key, a value kerf refuses, Karpenter's default (accepted)
      ["settings.preferencePolicy", "Ignore", "Respect"],
      ["settings.minValuesPolicy", "BestEffort", "Strict"],
      ["settings.vmMemoryOverheadPercent", "0.1", "0.075"],
      ["settings.reservedENIs", "1", "0"],
      ["settings.enableZonalShift", "true", "false"],
      ["settings.enableDRA", "true", "false"],
      ["settings.ignoreDRARequests", "false", "true"],
      ["settings.disableClusterStateObservability", "true", "false"],
      ["settings.amiRefreshInterval", "5m", "1m"],
      ["settings.subnetRefreshInterval", "5m", "1m"],
      ["settings.securityGroupRefreshInterval", "5m", "1m"],
      ["settings.awsFeatureGates.nodeClassCEL", "true", "false"],
      ["settings.awsFeatureGates.draNVIDIAGPU", "true", "false"],
      ["settings.awsFeatureGates.draEFA", "true", "false"],
      ["settings.awsFeatureGates.rebootForRepair", "true", "false"],
      ["settings.featureGates.capacityBuffer", "true", "false"],
      ["settings.featureGates.terminateFirstDrift", "true", "false"],
      ["settings.featureGates.terminateFirstRepair", "true", "false"],
      ["settings.featureGates.podDeletionCostManagement", "true", "false"],
      ["logOutputPaths", "{/var/log/kerf.log}", "{stdout}"],
    ];
    for (const [key, refused, accepted] of cases) {
      const error = await renderError({ set: { [key]: refused } });
      assert.match(error, new RegExp(`${key.replaceAll(".", "\\.")}: .* is not supported: `), key);
      assert.match(error, TABLE, key);
      assert.equal(await renderError({ set: { [key]: accepted } }), "", `${key}=${accepted} is what kerf does`);
    }
    assert.match(
      await renderError({ set: { "webhook.metrics.port": "8001" } }),
      /webhook\.metrics: Karpenter 1\.0's conversion-webhook metrics port; .*docs\/install\.md/,
    );
  });

  void it("should not let webhook.enabled: false from a Karpenter 1.0 values file switch kerf's guardrail off unconfirmed", async () => {
    const karpenter10 = valuesFile("webhook:\n  enabled: false\n  port: 8443\n");
    const error = await renderError({ values: [karpenter10] });
    assert.match(
      error,
      new RegExp(
        "webhook\\.enabled: false would install kerf without its admission webhook.*" +
          "Karpenter 1\\.0.*conversion webhook.*webhook\\.disableGuardrail=true",
        "s",
      ),
    );
    assert.match(error, TABLE);
    const confirmed = await renderChart({ values: [karpenter10], set: { "webhook.disableGuardrail": "true" } });
    assert.deepEqual(component(confirmed, "webhook"), []);
    assert.deepEqual(
      confirmed.filter((o) => /Webhook/.test(o.kind)),
      [],
    );
    assert.match(
      await renderError({ set: { replicas: "0", "webhook.enabled": "false", "webhook.disableGuardrail": "true" } }),
      /would install nothing/,
    );
  });

  void it("should install the webhook alone with replicas 0: no operator Deployment, ServiceAccount, roles or bypass", async () => {
    const objects = await renderChart({
      set: {
        replicas: "0",
        "serviceAccount.annotations.eks\\.amazonaws\\.com/role-arn": "arn:aws:iam::111122223333:role/K",
      },
    });
    assert.deepEqual(
      component(objects, "operator").map((o) => `${o.kind}/${o.metadata.name}`),
      [],
    );
    assert.deepEqual(
      objects.filter((o) => o.kind === "ServiceAccount").map((o) => o.metadata.name),
      ["kerf-webhook"],
      "no IRSA ServiceAccount",
    );
    assert.deepEqual(
      objects
        .filter((o) => /Role/.test(o.kind))
        .map((o) => o.metadata.name)
        .sort(),
      ["kerf-webhook", "kerf-webhook", "kerf-webhook-break-glass"],
    );
    const container = deploymentContainer(only<V1Deployment>(objects, "Deployment", "kerf-webhook"), "webhook");
    const skip = loadWebhookConfig(kerfInvocation(container).argv, {
      KERF_SKIP_USERNAMES: container.env?.find((e) => e.name === "KERF_SKIP_USERNAMES")?.value ?? "",
    }).skipUsernames;
    assert.deepEqual(
      skip,
      ["system:serviceaccount:kube-system:karpenter"],
      "no skipped operator identity that nobody runs",
    );
    const notes = (await runHelm(["install", "kerf", KERF_CHART, "--dry-run=client", "--set", "replicas=0"])).stdout;
    assert.match(notes, /the admission webhook alone/);
  });

  void it("should name objects as docs/install.md's release-name table says, for every release name in it", async () => {
    const doc = readFileSync(path.join(root, "docs/install.md"), "utf8");
    const section = doc.slice(doc.indexOf("### Object names"));
    const rows = [
      ...section.matchAll(/^\| `([a-z0-9-]+)` \| `([a-z0-9-]+)` \| `([a-z0-9-]+)` \| `([a-z0-9-]+)` \|$/gm),
    ];
    assert.ok(rows.length >= 3, "the table names at least three releases");
    for (const [, release = "", operatorSa = "", webhookSa = "", validating = ""] of rows) {
      const objects = await renderChart({ release });
      const accounts = objects.filter((o) => o.kind === "ServiceAccount") as unknown as V1ServiceAccount[];
      assert.deepEqual(accounts.map((a) => a.metadata?.name).sort(), [operatorSa, webhookSa].sort(), release);
      assert.equal(
        only<V1Deployment>(objects, "Deployment", operatorSa).spec?.template.spec?.serviceAccountName,
        operatorSa,
      );
      assert.equal(only(objects, "ValidatingWebhookConfiguration").metadata.name, validating, release);
    }
  });
});
