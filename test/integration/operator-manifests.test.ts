/**
 * The Helm charts (manifests/charts/kerf and kerf-crd, rendered by helm) on the real kube-apiserver: every
 * object passes a server-side apply dry run with strict field validation, and the operator runs on nothing but
 * the chart's RBAC. For the second part the chart is rendered into a test namespace under a release name of its
 * own (so cluster-scoped names cannot collide), its ServiceAccount, roles and bindings are applied for real, the
 * TokenRequest API issues a token for the ServiceAccount, and the operator — configured from the rendered
 * Deployment's own command line and environment — talks to the apiserver with that token through a proxy that
 * records every answer. A pending pod must get a NodeClaim, an instance in moto and a registered Node, and
 * deleting the NodeClaim must drain (evict) and terminate it, with no 403 anywhere.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { CoreV1Api, type V1Deployment } from "@kubernetes/client-node";
import { loadConfig } from "../../operator/config.ts";
import { startOperator, type RunningOperator } from "../../operator/main.ts";
import { createLogger } from "../../operator/observability/logger.ts";
import { KubeletSim } from "../harness/kubelet-sim.ts";
import {
  CI_VALUES,
  karpenterValues,
  KERF_CRD_CHART,
  KERF_IMAGE_OVER_KARPENTER,
  component,
  renderChart,
} from "../harness/chart.ts";
import {
  containerEnvironment,
  deploymentContainer,
  kerfInvocation,
  only,
  type ManifestObject,
} from "../harness/manifests.ts";
import { chartQueries, exportedSeries, unexported } from "../harness/observability.ts";
import { get } from "../harness/probes.ts";
import { apply, operatorAccount, removeOperatorAccount, tokenKubeConfig } from "../harness/server-side-apply.ts";
import { RecordingProxy, type RecordedCall } from "../harness/recording-proxy.ts";
import { createTestNamespace } from "../harness/reset.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { CLUSTER, SSM_PREFIX } from "./aws-fixtures.ts";
import {
  ON_DEMAND,
  WORKSHOP_FAMILIES,
  prepareCluster,
  createNodePool,
  podOnReadyClaim,
  deleteClaimUntilGone,
  runningInstanceOf,
} from "./provisioning-fixtures.ts";

/** A release name of this run's own: the chart prefixes every object name with it (it contains "kerf"). */
const RELEASE = `kerf-it-${process.pid}`;

/** A call as "VERB resource[/subresource]" ("WATCH pods", "POST pods/eviction"), namespace and name dropped. */
function callKey(c: RecordedCall): string {
  const parts = c.path.split("/").filter((p) => p !== "");
  if (parts[0] !== "api" && parts[0] !== "apis") return `${c.method} ${c.path}`;
  const prefix = parts[0] === "api" ? parts.slice(0, 2) : parts.slice(0, 3);
  let rest = parts.slice(prefix.length);
  if (rest[0] === "namespaces" && rest.length > 2) rest = rest.slice(2);
  const resource = rest[0] ?? "";
  const sub = rest.length > 2 ? `/${rest[2] ?? ""}` : "";
  const verb =
    c.method === "GET" ? (c.query.includes("watch=true") ? "WATCH" : rest.length > 1 ? "GET" : "LIST") : c.method;
  return `${verb} ${resource}${sub}`;
}

void describe("the Helm charts on the real apiserver, with the operator running on its ServiceAccount's RBAC only", () => {
  let env: TestEnvironment;
  let namespace: string;
  let workdir: string;
  let proxy: RecordingProxy | undefined;
  let operator: RunningOperator | undefined;
  let sim: KubeletSim | undefined;
  const logs: string[] = [];
  const started = performance.now();
  const step = (what: string): void =>
    console.log(`# ${what} at ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const clusterObjects: ManifestObject[] = [];

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    namespace = await createTestNamespace(env.kubeConfig, "kerf-operator-manifests");
    workdir = mkdtempSync(path.join(os.tmpdir(), "kerf-operator-manifests-"));
  });
  after(async () => {
    await sim?.stop();
    await operator?.stop();
    await proxy?.stop();
    await removeOperatorAccount(env.kubeConfig, clusterObjects);
    rmSync(workdir, { recursive: true, force: true });
  });

  void it("should accept every object the charts render, with the default, CI, Karpenter's and webhook-only values, in a server-side dry run with strict field validation", async () => {
    const renders = {
      default: await renderChart({ release: RELEASE, namespace }),
      ci: await renderChart({ release: RELEASE, namespace, values: [CI_VALUES] }),
      crd: await renderChart({ chart: KERF_CRD_CHART, release: `${RELEASE}-crd`, namespace }),
      // Karpenter v1.15.1's own values file with kerf's image, and a webhook-only install (issue 24 item 3).
      karpenter: await renderChart({
        release: RELEASE,
        namespace,
        values: [await karpenterValues()],
        set: KERF_IMAGE_OVER_KARPENTER,
      }),
      webhookOnly: await renderChart({ release: RELEASE, namespace, set: { replicas: "0" } }),
    };
    const applied: Record<string, string[]> = {};
    for (const [name, objects] of Object.entries(renders)) {
      applied[name] = [];
      for (const obj of objects) {
        await apply(env.kubeConfig, obj, { dryRun: true }).catch((error: unknown) => {
          throw new Error(`${name} values: ${obj.kind} ${obj.metadata.name}: ${(error as Error).message}`, {
            cause: error,
          });
        });
        applied[name].push(`${obj.kind}/${obj.metadata.name.replace(RELEASE, "kerf")}`);
      }
    }
    const expected = [
      "ClusterRole/kerf-operator",
      "ClusterRole/kerf-webhook",
      "ClusterRole/kerf-webhook-break-glass",
      "ClusterRoleBinding/kerf-operator",
      "ClusterRoleBinding/kerf-webhook",
      "ConfigMap/kerf-policy",
      "Deployment/kerf-operator",
      "Deployment/kerf-webhook",
      "MutatingWebhookConfiguration/kerf-mutating",
      "PodDisruptionBudget/kerf-operator",
      "PodDisruptionBudget/kerf-webhook",
      "Role/kerf-operator",
      "Role/kerf-operator-dns",
      "RoleBinding/kerf-operator",
      "RoleBinding/kerf-operator-dns",
      "Secret/kerf-webhook-tls",
      "Service/kerf-operator",
      "Service/kerf-webhook",
      "ServiceAccount/kerf-operator",
      "ServiceAccount/kerf-webhook",
      "ValidatingWebhookConfiguration/kerf-validating",
    ];
    assert.deepEqual(applied["default"]?.sort(), expected);
    assert.deepEqual(applied["ci"]?.sort(), expected);
    assert.deepEqual(
      applied["karpenter"]?.sort(),
      expected.map((k) => (k === "PodDisruptionBudget/kerf-operator" ? "PodDisruptionBudget/karpenter" : k)).sort(),
    );
    assert.deepEqual(
      applied["webhookOnly"]?.sort(),
      expected.filter((k) => !k.includes("kerf-operator")),
      "no operator object",
    );
    assert.deepEqual(applied["crd"]?.sort(), [
      "CustomResourceDefinition/ec2nodeclasses.karpenter.k8s.aws",
      "CustomResourceDefinition/nodeclaims.karpenter.sh",
      "CustomResourceDefinition/nodeoverlays.karpenter.sh",
      "CustomResourceDefinition/nodepools.karpenter.sh",
    ]);
    // Nothing was persisted.
    await assert.rejects(
      env.kubeConfig.makeApiClient(CoreV1Api).readNamespacedServiceAccount({ name: `${RELEASE}-operator`, namespace }),
      (e: { code?: number }) => e.code === 404,
    );
  });

  void it("should provision, register, drain and terminate a node on a ServiceAccount token with no 403 from the apiserver", async () => {
    await prepareCluster(env);
    await createNodePool(env, "default", { requirements: [ON_DEMAND, WORKSHOP_FAMILIES] });
    step("CRDs, moto, EC2NodeClass and NodePool ready");
    // The operator's settings as a user sets them (moto holds no EKS cluster to discover the endpoint from: nodes
    // join the test apiserver).
    const set = {
      "settings.clusterName": CLUSTER,
      "settings.region": env.aws().region,
      "settings.clusterEndpoint": env.state.apiserverUrl,
      logLevel: "debug",
    };
    const shipped = component(await renderChart({ release: RELEASE, namespace, values: [CI_VALUES], set }), "operator");
    const account = await operatorAccount(env.kubeConfig, shipped, namespace, env.state.apiserverUrl);
    clusterObjects.push(...account.outliving);
    const { token } = account;
    const caData = env.kubeConfig.getCurrentCluster()?.caData ?? "";
    const direct = tokenKubeConfig(env.state.apiserverUrl, caData, token);
    step("ServiceAccount token authorized");
    await assert.rejects(
      direct.makeApiClient(CoreV1Api).listNamespacedSecret({ namespace }),
      (e: { code?: number }) => e.code === 403,
      "the token is not an admin",
    );

    // The operator's configuration is the rendered Deployment's: its argv and its environment, resolved as the
    // kubelet would; only the AWS endpoint (moto) and the ports are the test's.
    const deployment = only<V1Deployment>(shipped, "Deployment");
    const container = deploymentContainer(deployment, "controller");
    const environment = {
      ...containerEnvironment(container, [], { name: "kerf-operator-0", namespace }),
      AWS_ENDPOINT_URL: env.aws().endpoint,
    };
    const argv = kerfInvocation(container).argv.map((a) => a.replace(/^(--(metrics|health-probe)-port)=\d+$/, "$1=0"));
    const config = loadConfig({ argv, env: environment });
    assert.equal(config.clusterEndpoint, env.state.apiserverUrl);
    assert.equal(config.disableLeaderElection, false);
    assert.equal(config.leaderElectionNamespace, namespace);
    assert.equal(
      config.featureGates["SpotToSpotConsolidation"],
      true,
      "the CI values' feature gate reached the operator",
    );

    proxy = await RecordingProxy.start({ upstream: env.state.apiserverUrl, ca: env.state.ca, dir: workdir });
    const recorded = proxy.calls;
    const denied = (): string[] => {
      const counts = new Map<string, number>();
      for (const c of recorded)
        if (c.status === 401 || c.status === 403)
          counts.set(`${c.status} ${c.method} ${c.path}`, (counts.get(`${c.status} ${c.method} ${c.path}`) ?? 0) + 1);
      return [...counts].map(([call, n]) => `${call} (×${n})`);
    };
    // A missing permission usually shows as a wait that times out: say which requests were denied.
    const explained = (error: unknown): never => {
      throw new Error(`${(error as Error).message}; denied: ${denied().join(", ") || "nothing"}`, { cause: error });
    };
    const sink = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        logs.push(
          ...chunk
            .toString("utf8")
            .split("\n")
            .filter((l) => l !== ""),
        );
        done();
      },
    });
    operator = await startOperator(config, {
      kubeConfig: tokenKubeConfig(proxy.url, caData, token),
      logger: createLogger("debug", sink),
      awsCredentials: env.aws().credentials,
      ssmPrefix: SSM_PREFIX,
    });
    sim = new KubeletSim({ kubeConfig: env.kubeConfig, aws: env.aws(), clusterName: CLUSTER });
    sim.start();
    step("operator started");
    const running = operator;
    await eventually(
      "the operator to lead and report ready",
      async () =>
        running.isLeader() && (await get(`http://127.0.0.1:${running.servers[0]?.port ?? 0}/readyz`)).status === 200,
      30_000,
      100,
    ).catch(explained);

    // A bare pod (nothing re-creates it once evicted), pending until the operator's node registers.
    const workload = await createTestNamespace(env.kubeConfig, "rbac-workload");
    const claim = await podOnReadyClaim(env, workload, "web", 60_000).catch(explained);
    step("NodeClaim Ready, pod Running");
    await runningInstanceOf(env, claim);
    await deleteClaimUntilGone(env, claim, workload, 60_000).catch(explained);
    step("NodeClaim, Node, instance and pod gone");

    const calls = [...proxy.calls];
    const byStatus = new Map<number, number>();
    for (const c of calls) byStatus.set(c.status, (byStatus.get(c.status) ?? 0) + 1);
    console.log(`# ${calls.length} apiserver calls by status: ${JSON.stringify(Object.fromEntries(byStatus))}`);
    assert.deepEqual(denied(), []);
    assert.deepEqual(
      logs.filter((l) => /forbidden|unauthorized|\b403\b/i.test(l)),
      [],
    );
    // The scenario exercised every permission it was meant to prove (a vacuous pass is no pass).
    const succeeded = new Set(calls.filter((c) => c.status < 300).map(callKey));
    const expected = [
      "LIST pods",
      "WATCH pods",
      "LIST nodes",
      "WATCH nodes",
      "LIST nodepools",
      "WATCH nodepools",
      "LIST nodeclaims",
      "WATCH nodeclaims",
      "LIST ec2nodeclasses",
      "WATCH ec2nodeclasses",
      "LIST daemonsets",
      "WATCH daemonsets",
      "LIST poddisruptionbudgets",
      "WATCH poddisruptionbudgets",
      "POST leases",
      "GET leases",
      "PATCH leases",
      "POST nodeclaims",
      "PATCH nodeclaims",
      "PATCH nodeclaims/status",
      "PATCH nodepools/status",
      "PATCH ec2nodeclasses/status",
      "PATCH nodepools",
      "PATCH ec2nodeclasses",
      "PATCH nodes",
      "DELETE nodes",
      "POST pods/eviction",
      "POST events",
    ];
    assert.deepEqual(
      expected.filter((k) => !succeeded.has(k)),
      [],
      `calls seen: ${[...succeeded].sort().join(", ")}`,
    );

    // The chart's dashboards and alerts read only series this running operator exports on its /metrics port
    // (issue 24 item 4; the webhook's page and the PromQL itself: chart-observability.test.ts), and the node
    // lifecycle above gave the provisioning and capacity series samples.
    const page = (await get(`http://127.0.0.1:${running.servers.at(-1)?.port ?? 0}/metrics`)).body;
    const observability = await renderChart({
      release: RELEASE,
      namespace,
      values: [CI_VALUES],
      set: { "dashboards.enabled": "true", "prometheusRule.enabled": "true" },
    });
    const { operator: queries } = chartQueries(observability);
    assert.ok(queries.length > 40, `${queries.length} operator queries`);
    assert.deepEqual(unexported(queries, exportedSeries(page)), []);
    for (const series of [
      "karpenter_nodeclaims_created_total",
      "karpenter_nodes_created_total",
      "karpenter_nodes_terminated_total",
    ]) {
      assert.match(
        page,
        new RegExp(`^${series}(\\{[^}]*\\})? [1-9]`, "m"),
        `${series} has a sample after the lifecycle`,
      );
    }
  });
});
