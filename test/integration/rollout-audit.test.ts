/**
 * A rollout beside an existing fleet (issue 24 item 2), on a real kube-apiserver: Karpenter's own example
 * NodePools and EC2NodeClasses (aws/karpenter-provider-aws v1.15.1 examples/v1) are stored before kerf exists.
 * Then `kerf check --cluster` lists what violates each policy, the webhook at `mode: warn` audits them
 * periodically (kerf_policy_violations, Events) and lets a new violation in with a warning, and at enforce the
 * UPDATE ratcheting holds: a label update of a stored example passes, a new violation is denied.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  AdmissionregistrationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type V1CustomResourceDefinition,
} from "@kubernetes/client-node";
import { pino } from "pino";
import { parse, parseAllDocuments } from "yaml";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { webhookRegistrations } from "../harness/chart.ts";
import { installCrds } from "../harness/crds.ts";
import { issueServingCertificate } from "../harness/certs.ts";
import { eventually } from "../harness/wait.ts";
import { mergePatch } from "../../operator/adapters/kube/client.ts";
import { loadWebhookConfig } from "../../webhook/config.ts";
import { startWebhook, type RunningWebhook } from "../../webhook/main.ts";
import { run } from "../../webhook/cli/main.ts";
import { capture } from "../../webhook/cli/captured-io.ts";

const root = path.resolve(import.meta.dirname, "../..");
const EXAMPLES = "/root/.cache/kerf/go/mod/github.com/aws/karpenter-provider-aws@v1.15.1/examples/v1";
const suffix = `-rollout-${process.pid}`;
const NODEPOOLS = { group: "karpenter.sh", version: "v1", plural: "nodepools" } as const;
const NODECLASSES = { group: "karpenter.k8s.aws", version: "v1", plural: "ec2nodeclasses" } as const;

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec: Record<string, unknown>;
};

function crds(): V1CustomResourceDefinition[] {
  const dir = path.join(root, "manifests/crds");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => parse(readFileSync(path.join(dir, f), "utf8")) as V1CustomResourceDefinition);
}

/**
 * Every NodePool and EC2NodeClass of Karpenter's examples, the cluster name filled in. Several files reuse a name
 * ("default"): a NodePool seen before is stored under `<file>-<name>`, an EC2NodeClass once (the first).
 */
function karpenterExamples(): Obj[] {
  const seen = new Set<string>();
  return readdirSync(EXAMPLES)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .flatMap((file) => {
      const text = readFileSync(path.join(EXAMPLES, file), "utf8").replaceAll("${CLUSTER_NAME}", "demo");
      const docs = parseAllDocuments(text)
        .map((d) => d.toJS() as Obj | null)
        .filter((o): o is Obj => o !== null && typeof o === "object" && "kind" in o);
      return docs.flatMap((o) => {
        const key = `${o.kind}/${o.metadata.name}`;
        if (!seen.has(key)) {
          seen.add(key);
          return [o];
        }
        return o.kind === "NodePool"
          ? [{ ...o, metadata: { ...o.metadata, name: `${path.basename(file, ".yaml")}-${o.metadata.name}` } }]
          : [];
      });
    });
}

function errorBody(error: unknown): string {
  const e = error as { body?: unknown; message?: string };
  return typeof e.body === "string" ? e.body : JSON.stringify(e.body ?? e.message ?? error);
}

async function fetchMetrics(port: number): Promise<string> {
  const { get } = await import("../harness/probes.ts");
  return (await get(`https://127.0.0.1:${port}/metrics`, { insecure: true })).body;
}

interface AuditJson {
  results: Array<{
    file: string;
    kind: string;
    name: string;
    allowed: boolean;
    violations: Array<{ policy: string; severity: string }>;
  }>;
  cluster?: { context: string; server: string; karpenterApi: { source: string; version: string } };
}

void describe("rolling kerf out beside Karpenter's example fleet", () => {
  let env: TestEnvironment;
  let dir = "";
  let objects: CustomObjectsApi;
  let admission: AdmissionregistrationV1Api;
  let webhook: RunningWebhook | undefined;
  let serving: { cert: string; key: string };
  let caBundle = "";
  const stored: Obj[] = [];
  /** NodePools `kerf check --cluster` says violate limits-required. */
  let unlimited: string[] = [];

  async function register(port: number): Promise<void> {
    await unregister();
    const registrations = await webhookRegistrations({ port, caBundle, nameSuffix: suffix });
    await admission.createMutatingWebhookConfiguration({ body: registrations.mutating });
    await admission.createValidatingWebhookConfiguration({ body: registrations.validating });
  }

  async function unregister(): Promise<void> {
    await admission.deleteValidatingWebhookConfiguration({ name: `kerf-validating${suffix}` }).catch(() => undefined);
    await admission.deleteMutatingWebhookConfiguration({ name: `kerf-mutating${suffix}` }).catch(() => undefined);
  }

  async function startWith(args: readonly string[]): Promise<RunningWebhook> {
    await webhook?.close();
    const base = [
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--tls-cert",
      serving.cert,
      "--tls-key",
      serving.key,
      "--kubeconfig",
      env.state.kubeconfig,
    ];
    webhook = await startWebhook(loadWebhookConfig([...base, ...args], {}), pino({ level: "silent" }));
    return webhook;
  }

  before(async () => {
    env = await useEnvironment({ kwok: false, moto: false });
    await installCrds(env.kubeConfig, crds());
    objects = env.kubeConfig.makeApiClient(CustomObjectsApi);
    admission = env.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
    dir = mkdtempSync(path.join(os.tmpdir(), "kerf-rollout-"));
    serving = await issueServingCertificate(env.state.ca, dir, "kerf-webhook");
    caBundle = readFileSync(env.state.ca.cert).toString("base64");
    writeFileSync(path.join(dir, "warn.yaml"), "mode: warn\n");
    // Before kerf: the examples stored as Karpenter's users stored them.
    // One upstream example (windows-custom-userdata.yaml: nodeClassRef.group "karpenter.k8s.aws/v1") is invalid and
    // the apiserver refuses it, as it would have refused it to Karpenter's users: kept out, as in their clusters.
    for (const o of karpenterExamples()) {
      const group = o.kind === "NodePool" ? NODEPOOLS : NODECLASSES;
      try {
        await objects.createClusterCustomObject({ ...group, body: o });
        stored.push(o);
      } catch (error) {
        if ((error as { code?: number }).code !== 422) throw error;
      }
    }
  });

  after(async () => {
    if (admission !== undefined) await unregister();
    await webhook?.close();
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  void it("kerf check --cluster lists the stored objects each policy denies, under the cluster's CRDs", async () => {
    const pools = stored
      .filter((o) => o.kind === "NodePool")
      .map((o) => o.metadata.name)
      .sort();
    assert.ok(pools.length >= 20, `Karpenter's examples hold ${pools.length} NodePools`);
    const c = capture();
    assert.equal(
      await run(["check", "--cluster", "--kubeconfig", env.state.kubeconfig, "--format", "json"], c.io),
      1,
      c.err(),
    );
    const report = JSON.parse(c.out()) as AuditJson;
    assert.equal(report.cluster?.karpenterApi.source, "cluster");
    assert.equal(report.cluster?.server, env.kubeConfig.getCurrentCluster()?.server);
    assert.deepEqual(
      report.results
        .filter((r) => r.kind === "NodePool")
        .map((r) => r.name)
        .sort(),
      pools,
    );
    assert.equal(
      report.results.filter((r) => r.kind === "EC2NodeClass").length,
      stored.filter((o) => o.kind === "EC2NodeClass").length,
    );
    unlimited = report.results
      .filter((r) => r.violations.some((v) => v.policy === "limits-required" && v.severity === "deny"))
      .map((r) => r.name)
      .sort();
    // Every example NodePool but those that set both cpu and memory limits.
    const limited = stored.filter(
      (o) =>
        o.kind === "NodePool" && (o.spec["limits"] as Record<string, unknown> | undefined)?.["memory"] !== undefined,
    );
    assert.deepEqual(
      unlimited,
      pools.filter((p) => !limited.some((l) => l.metadata.name === p)),
    );
    assert.ok(
      report.results.every((r) => r.file.startsWith(`${env.kubeConfig.getCurrentContext()}/`)),
      "each object is named by context/plural/name",
    );

    const text = capture();
    assert.equal(await run(["check", "--cluster", "--kubeconfig", env.state.kubeconfig], text.io), 1);
    assert.match(text.out(), /^cluster .* judged against Karpenter .* \(cluster CRDs\):$/m);
    assert.match(text.out(), new RegExp(`^ {2}limits-required \\(deny\\): ${unlimited.length} objects: `, "m"));
    for (const format of ["github", "sarif", "junit"]) {
      const other = capture();
      assert.equal(
        await run(["check", "--cluster", "--kubeconfig", env.state.kubeconfig, "--format", format], other.io),
        1,
        format,
      );
      assert.match(other.out(), /limits-required/, format);
    }
    // The warn profile's policy file: the same list, nothing denied.
    const warned = capture();
    const warnArgs = [
      "check",
      "--cluster",
      "--kubeconfig",
      env.state.kubeconfig,
      "--format",
      "json",
      "--policy-config",
      path.join(dir, "warn.yaml"),
    ];
    assert.equal(await run(warnArgs, warned.io), 0, warned.err());
    const warnReport = JSON.parse(warned.out()) as AuditJson;
    assert.ok(warnReport.results.every((r) => r.allowed));
    assert.equal(
      warnReport.results.filter((r) =>
        r.violations.some((v) => v.policy === "limits-required" && v.severity === "warn"),
      ).length,
      unlimited.length,
    );
  });

  void it("audits periodically at mode warn: kerf_policy_violations, Events, and a new violation let in with a warning", async () => {
    assert.ok(unlimited.length > 0, "the first test found the unlimited NodePools");
    const running = await startWith(["--policy-config", path.join(dir, "warn.yaml"), "--audit-interval", "1"]);
    const gauge = (text: string): number | undefined => {
      const match = /^kerf_policy_violations\{policy="limits-required",kind="NodePool",severity="warn"\} (\d+)$/m.exec(
        text,
      );
      return match === null ? undefined : Number(match[1]);
    };
    await eventually(
      "the audit counts the unlimited NodePools",
      async () => gauge(await fetchMetrics(running.port)) === unlimited.length,
      60_000,
      250,
    );
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const first = unlimited[0] ?? "";
    const events = await eventually(
      `Events on NodePool ${first}`,
      async () => {
        const list = await core.listNamespacedEvent({
          namespace: "default",
          fieldSelector: `involvedObject.name=${first},involvedObject.kind=NodePool,reason=PolicyViolation`,
        });
        return list.items.length > 0 ? list.items : undefined;
      },
      60_000,
      250,
    );
    assert.ok(
      events.some((e) => e.type === "Warning" && /^limits-required \(warn\) spec\.limits/.test(e.message ?? "")),
      JSON.stringify(events.map((e) => e.message)),
    );
    // Replicas and later audits create each Event once: names derive from the object and the finding.
    const names = events.map((e) => e.metadata?.name);
    assert.equal(new Set(names).size, names.length);

    await register(running.port);
    const probe = structuredClone(stored.find((o) => o.kind === "NodePool" && o.metadata.name === first)) as Obj;
    probe.metadata = { name: "new-unlimited" };
    // At warn the apiserver stores it (the webhook answers allowed with warnings); wait for the registration.
    await eventually(
      "the warn-mode webhook admits a new violation",
      async () => {
        try {
          await objects.createClusterCustomObject({ ...NODEPOOLS, body: probe });
          return true;
        } catch (error) {
          return errorBody(error).includes("AlreadyExists") ? true : undefined;
        }
      },
      30_000,
      250,
    );
    await eventually(
      "the next audit counts it",
      async () => gauge(await fetchMetrics(running.port)) === unlimited.length + 1,
      60_000,
      250,
    );
    await objects.deleteClusterCustomObject({ ...NODEPOOLS, name: "new-unlimited" });
  });

  void it("at enforce keeps the UPDATE ratcheting on stored examples: a label update passes, a new violation is denied", async () => {
    const running = await startWith(["--audit-interval", "0"]);
    await register(running.port);
    const name = unlimited[0] ?? "";
    await eventually(
      "the enforcing webhook denies a new unlimited NodePool",
      async () => {
        const probe = structuredClone(stored.find((o) => o.metadata.name === name && o.kind === "NodePool")) as Obj;
        probe.metadata = { name: "probe" };
        try {
          await objects.createClusterCustomObject({ ...NODEPOOLS, body: probe, dryRun: "All" });
          return undefined;
        } catch (error) {
          return /limits-required|spec\.limits/.test(errorBody(error)) ? true : undefined;
        }
      },
      30_000,
      250,
    );
    // The stored example violates limits-required, yet a label update (spec unchanged) passes.
    await objects.patchClusterCustomObject(
      { ...NODEPOOLS, name, body: { metadata: { labels: { team: "platform" } } } },
      mergePatch,
    );
    const labelled = (await objects.getClusterCustomObject({ ...NODEPOOLS, name })) as Obj;
    assert.equal(labelled.metadata.labels?.["team"], "platform");
    // A spec change that brings a new violation: spot on two instance types (spot-diversity).
    const narrow = {
      template: {
        spec: {
          requirements: [
            { key: "karpenter.sh/capacity-type", operator: "In", values: ["spot"] },
            { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large", "m5.xlarge"] },
          ],
        },
      },
    };
    await assert.rejects(
      objects.patchClusterCustomObject({ ...NODEPOOLS, name, body: { spec: narrow } }, mergePatch),
      (error: unknown) => {
        const body = errorBody(error);
        assert.match(body, /validate\.kerf\.dev/);
        assert.match(body, /spot but only 2 instance types/);
        return true;
      },
    );
  });
});
