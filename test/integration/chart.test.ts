/**
 * manifests/charts/kerf and kerf-crd, rendered by the real helm (built from the Go module proxy) with the default
 * values, the CI values (a configured install) and the cert-manager values, checked against the code they deploy:
 * the rendered Deployments' command lines and environments go through the operator's and the webhook's own config
 * loaders, Node runs the rendered V8 flags, the generated certificate is verified against the rendered caBundle,
 * and the rendered output passes `kerf check` through a pipe. Applying the output to a real apiserver is
 * operator-manifests.test.ts; `helm upgrade` against one (certificates kept by lookup) is chart-install.test.ts.
 */
import { before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { X509Certificate, createPrivateKey } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import type {
  V1ClusterRoleBinding,
  V1ConfigMap,
  V1Deployment,
  V1MutatingWebhookConfiguration,
  V1PodDisruptionBudget,
  V1Role,
  V1RoleBinding,
  V1Secret,
  V1Service,
  V1ServiceAccount,
  V1ValidatingWebhookConfiguration,
} from "@kubernetes/client-node";
import { pino } from "pino";
import { parse } from "yaml";
import pkg from "../../package.json" with { type: "json" };
import { ConfigError, loadConfig, usage } from "../../operator/config.ts";
import { parsePolicyConfig } from "../../policies/config.ts";
import { loadWebhookConfig } from "../../webhook/config.ts";
import { startWebhook } from "../../webhook/main.ts";
import {
  CERT_MANAGER_VALUES,
  CI_VALUES,
  KERF_CHART,
  KERF_CRD_CHART,
  component,
  renderChart,
  renderChartText,
  root,
  runHelm,
} from "../harness/chart.ts";
import {
  containerEnvironment,
  deploymentContainer,
  kerfInvocation,
  only,
  parseManifests,
  type ManifestObject,
} from "../harness/manifests.ts";

const pod = { name: "kerf-operator-6d9f7c-abcde", namespace: "kerf-system" };

interface Rendered {
  readonly objects: ManifestObject[];
  readonly text: string;
}

async function rendered(values: readonly string[]): Promise<Rendered> {
  const text = await renderChartText({ values });
  return { text, objects: parseManifests(text, "helm template") };
}

function operatorContainer(objects: readonly ManifestObject[]): ReturnType<typeof deploymentContainer> {
  return deploymentContainer(only<V1Deployment>(objects, "Deployment", "kerf-operator"), "controller");
}

/** What `kerf operator` receives from the rendered Deployment: argv after the subcommand, and the environment. */
function operatorSources(
  objects: readonly ManifestObject[],
  extraEnv: Record<string, string> = {},
): { argv: string[]; env: Record<string, string> } {
  const container = operatorContainer(objects);
  const invocation = kerfInvocation(container);
  assert.equal(invocation.subcommand, "operator");
  return { argv: [...invocation.argv], env: { ...containerEnvironment(container, [], pod), ...extraEnv } };
}

/** Runs `kerf check` as a user's CI does: `helm template … | kerf check -`. */
async function kerfCheck(
  stdin: string,
  args: readonly string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [path.join(root, "webhook/cli/kerf.mjs"), "check", ...args, "-"], {
    cwd: root,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  child.stdin.end(stdin);
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  return { code, stdout, stderr };
}

void describe("the kerf Helm chart, rendered by helm", () => {
  let defaults: Rendered;
  let ci: Rendered;
  let certManager: Rendered;

  before(async () => {
    [defaults, ci, certManager] = await Promise.all([
      rendered([]),
      rendered([CI_VALUES]),
      rendered([CERT_MANAGER_VALUES]),
    ]);
  });

  void it("should pass helm lint --strict with the default, CI and cert-manager values, and so should the CRD chart", async () => {
    for (const values of [[], [CI_VALUES], [CERT_MANAGER_VALUES]]) {
      const { stdout } = await runHelm(["lint", "--strict", KERF_CHART, ...values.flatMap((v) => ["--values", v])]);
      assert.match(stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/, stdout);
    }
    const { stdout } = await runHelm(["lint", "--strict", KERF_CRD_CHART]);
    assert.match(stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/, stdout);
  });

  void it("should carry package.json's version, and ship manifests/crds both in crds/ and as the CRD chart's templates", async () => {
    for (const chart of [KERF_CHART, KERF_CRD_CHART]) {
      const meta = parse(readFileSync(path.join(chart, "Chart.yaml"), "utf8")) as {
        version: string;
        appVersion: string;
      };
      assert.deepEqual([meta.version, meta.appVersion], [pkg.version, pkg.version], chart);
    }
    const crdFiles = readdirSync(path.join(root, "manifests/crds")).sort();
    const names = (objects: readonly ManifestObject[]): string[] =>
      objects
        .filter((o) => o.kind === "CustomResourceDefinition")
        .map((o) => o.metadata.name)
        .sort();
    const expected = crdFiles
      .flatMap((f) => parseManifests(readFileSync(path.join(root, "manifests/crds", f), "utf8"), f))
      .map((o) => o.metadata.name)
      .sort();
    assert.deepEqual(expected, [
      "ec2nodeclasses.karpenter.k8s.aws",
      "nodeclaims.karpenter.sh",
      "nodeoverlays.karpenter.sh",
      "nodepools.karpenter.sh",
    ]);
    assert.deepEqual(
      names(await renderChart({ chart: KERF_CRD_CHART })),
      expected,
      "kerf-crd renders the CRDs as templates (upgraded by helm upgrade)",
    );
    assert.deepEqual(
      names(await renderChart({ includeCrds: true })),
      expected,
      "kerf ships them in crds/ (installed once)",
    );
    assert.deepEqual(names(defaults.objects), [], "without --include-crds the kerf chart renders no CRD");
    // Both places are links to manifests/crds: `helm package` must put the files themselves into the archives.
    const dir = mkdtempSync(path.join(os.tmpdir(), "kerf-chart-package-"));
    await runHelm(["package", KERF_CRD_CHART, KERF_CHART, "--destination", dir]);
    assert.deepEqual(names(await renderChart({ chart: path.join(dir, `kerf-crd-${pkg.version}.tgz`) })), expected);
    assert.deepEqual(
      names(await renderChart({ chart: path.join(dir, `kerf-${pkg.version}.tgz`), includeCrds: true })),
      expected,
    );
  });

  void it("should start the operator with a configuration its config loader accepts, from the CI values", () => {
    const { argv, env } = operatorSources(ci.objects);
    const config = loadConfig({ argv, env, hostname: "ignored", pid: 1 });
    assert.equal(config.clusterName, "prod-eu");
    assert.equal(config.region, "eu-west-1");
    assert.equal(config.clusterEndpoint, "https://ABCDEF0123456789.gr7.eu-west-1.eks.amazonaws.com");
    assert.equal(config.interruptionQueue, "prod-eu");
    assert.equal(config.logLevel, "debug");
    assert.equal(config.maxPriceRatio, 8, "settings.maxPriceRatio");
    assert.equal(
      config.featureGates["SpotToSpotConsolidation"],
      true,
      "settings.featureGates.spotToSpotConsolidation: true",
    );
    assert.equal(config.featureGates["StaticCapacity"], true, "settings.featureGates.staticCapacity: true");
    assert.equal(config.disableLeaderElection, false);
    assert.equal(config.leaderElectionNamespace, pod.namespace);
    assert.equal(config.leaderElectionIdentity, pod.name);
    assert.equal(config.awsEndpoint, "", "the real AWS endpoints");
    assert.equal(config.kubeconfig, "", "in-cluster credentials");
    const container = operatorContainer(ci.objects);
    const port = (name: string): number | undefined => container.ports?.find((p) => p.name === name)?.containerPort;
    assert.equal(config.metricsPort, port("http-metrics"));
    assert.equal(config.healthProbePort, port("http"));
  });

  void it("should render the defaults the operator has itself, and refuse to start without a cluster name and region, naming them", () => {
    const { argv, env } = operatorSources(defaults.objects);
    assert.equal(env["CLUSTER_NAME"], "");
    assert.equal(env["AWS_REGION"], undefined, "no region unless settings.region is set");
    assert.throws(
      () => loadConfig({ argv, env }),
      (e: unknown) => e instanceof ConfigError && /clusterName/.test(e.message) && /region/.test(e.message),
    );
    const config = loadConfig({ argv, env: { ...env, CLUSTER_NAME: "c", AWS_REGION: "us-east-1" } });
    const operatorDefaults = loadConfig({ argv: [], env: { CLUSTER_NAME: "c", AWS_REGION: "us-east-1" } });
    assert.deepEqual(
      config.featureGates,
      operatorDefaults.featureGates,
      "settings.featureGates renders the operator's own default gates",
    );
    assert.equal(config.batchMaxDurationMs, operatorDefaults.batchMaxDurationMs);
    assert.equal(config.batchIdleDurationMs, operatorDefaults.batchIdleDurationMs);
    assert.equal(config.maxPriceRatio, operatorDefaults.maxPriceRatio);
    assert.equal(config.expendablePodsPriorityCutoff, undefined, "no expendable-pods cutoff unless set");
    assert.equal(config.logLevel, "info");
    assert.equal(config.clusterEndpoint, "", "discovered with EKS DescribeCluster");
    assert.equal(config.interruptionQueue, "");
  });

  void it("should pass settings.expendablePodsPriorityCutoff and the NodeRepair gate to the operator", async () => {
    const objects = await renderChart({
      set: { "settings.expendablePodsPriorityCutoff": "-10", "settings.featureGates.nodeRepair": "true" },
    });
    const { argv, env } = operatorSources(objects, { CLUSTER_NAME: "c", AWS_REGION: "us-east-1" });
    const config = loadConfig({ argv, env });
    assert.equal(config.expendablePodsPriorityCutoff, -10);
    assert.equal(config.featureGates["NodeRepair"], true);
  });

  void it("should refuse an unknown feature gate value at render time, naming the setting", async () => {
    await assert.rejects(
      renderChart({ set: { "settings.featureGates.spotToSpotConsolidation": "yes" } }),
      /at '\/settings\/featureGates\/spotToSpotConsolidation': got string, want boolean/,
    );
  });

  void it("should set only environment variables that the operator or its runtime reads", () => {
    const flagVariables = [...usage().matchAll(/\(env ([A-Z_]+),/g)].map((m) => m[1]);
    // Fallbacks read in operator/config.ts (applyFallbacks), then the runtime's own tuning variables.
    const read = new Set([
      ...flagVariables,
      "AWS_REGION",
      "POD_NAMESPACE",
      "POD_NAME",
      "MALLOC_ARENA_MAX",
      "NODE_OPTIONS",
    ]);
    for (const { objects } of [defaults, ci]) {
      const set = (operatorContainer(objects).env ?? []).map((e) => e.name);
      assert.deepEqual(
        set.filter((name) => !read.has(name)),
        [],
      );
      assert.equal(new Set(set).size, set.length, "no variable set twice");
    }
  });

  void it("should start Node with flags it accepts on its command line and in NODE_OPTIONS", () => {
    // Node exits 9 on a flag NODE_OPTIONS may not carry (--optimize-for-size is one): run it for real.
    for (const [name, containerName] of [
      ["kerf-operator", "controller"],
      ["kerf-webhook", "webhook"],
    ] as const) {
      const container = deploymentContainer(only<V1Deployment>(defaults.objects, "Deployment", name), containerName);
      const { nodeFlags } = kerfInvocation(container);
      assert.deepEqual(nodeFlags, ["--optimize-for-size"], name);
      const env = containerEnvironment(container, [], pod);
      assert.equal(env["NODE_OPTIONS"], "--max-semi-space-size=4", name);
      assert.equal(env["MALLOC_ARENA_MAX"], "2", name);
      const options = {
        env: { PATH: process.env["PATH"] ?? "", NODE_OPTIONS: env["NODE_OPTIONS"] ?? "" },
        encoding: "utf8",
      } as const;
      const run = spawnSync(process.execPath, [...nodeFlags, "-e", "0"], options);
      assert.equal(run.status, 0, `${name}: ${run.stderr}`);
    }
  });

  void it("should run kerf from the image of this version as the non-root user the Dockerfile sets", () => {
    const dockerfile = readFileSync(path.join(root, "Dockerfile"), "utf8");
    const user = dockerfile.match(/^USER (\d+):(\d+)$/m);
    for (const [name, container] of [
      ["kerf-operator", "controller"],
      ["kerf-webhook", "webhook"],
    ] as const) {
      const deployment = only<V1Deployment>(defaults.objects, "Deployment", name);
      const c = deploymentContainer(deployment, container);
      const script = (c.command ?? []).find((w) => w.endsWith("kerf.mjs"));
      if (script !== undefined)
        assert.equal(script, "/app/webhook/cli/kerf.mjs", "the Dockerfile copies webhook/ to /app/webhook");
      assert.equal(c.image, `ghcr.io/kerf-dev/kerf:${pkg.version}`);
      const security = deployment.spec?.template.spec?.securityContext;
      assert.equal(security?.runAsNonRoot, true);
      assert.deepEqual([security.runAsUser, security.runAsGroup], [Number(user?.[1]), Number(user?.[2])]);
      assert.equal(security.seccompProfile?.type, "RuntimeDefault");
      assert.equal(c.securityContext?.readOnlyRootFilesystem, true);
      assert.equal(c.securityContext.allowPrivilegeEscalation, false);
      assert.deepEqual(c.securityContext.capabilities?.drop, ["ALL"]);
      assert.equal(c.resources?.limits?.["cpu"], undefined, `${name}: no CPU limit`);
    }
    assert.deepEqual(operatorContainer(defaults.objects).resources, {
      requests: { cpu: "250m", memory: "384Mi" },
      limits: { memory: "512Mi" },
    });
    const digest = `sha256:${"ab".repeat(32)}`;
    return renderChart({ set: { "controller.image.digest": digest } }).then((objects) =>
      assert.equal(operatorContainer(objects).image, `ghcr.io/kerf-dev/kerf@${digest}`),
    );
  });

  void it("should keep the operator and the webhook off NodePool nodes, one replica per host, spread over zones, at system-cluster-critical", () => {
    for (const [name, comp] of [
      ["kerf-operator", "operator"],
      ["kerf-webhook", "webhook"],
    ] as const) {
      const deployment = only<V1Deployment>(defaults.objects, "Deployment", name);
      const spec = deployment.spec?.template.spec;
      const own = deployment.spec?.selector.matchLabels;
      assert.equal(own?.["app.kubernetes.io/component"], comp);
      assert.equal(deployment.spec?.replicas, 2);
      assert.equal(spec?.priorityClassName, "system-cluster-critical");
      assert.equal(deployment.spec?.template.metadata?.annotations?.["karpenter.sh/do-not-disrupt"], "true");
      const terms =
        spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
      assert.ok(
        terms.length > 0 &&
          terms.every((t) =>
            t.matchExpressions?.some((e) => e.key === "karpenter.sh/nodepool" && e.operator === "DoesNotExist"),
          ),
        `${name}: every node selector term excludes NodePool nodes`,
      );
      const anti = spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
      assert.deepEqual(
        anti.map((t) => [t.topologyKey, t.labelSelector?.matchLabels]),
        [["kubernetes.io/hostname", own]],
        `${name}: anti-affinity selects its own pods`,
      );
      assert.deepEqual(
        spec?.topologySpreadConstraints?.map((t) => [t.topologyKey, t.labelSelector?.matchLabels]),
        [["topology.kubernetes.io/zone", own]],
      );
      assert.deepEqual(spec?.tolerations, [{ key: "CriticalAddonsOnly", operator: "Exists" }]);
    }
  });

  void it("should point Services and PodDisruptionBudgets at their own pods and ports", () => {
    const objects = defaults.objects;
    for (const [name, port, target] of [
      ["kerf-operator", 8080, "http-metrics"],
      ["kerf-webhook", 443, "https"],
    ] as const) {
      const deployment = only<V1Deployment>(objects, "Deployment", name);
      const labels = deployment.spec?.template.metadata?.labels ?? {};
      const service = only<V1Service>(objects, "Service", name);
      assert.deepEqual(
        service.spec?.ports?.map((p) => [p.port, p.targetPort]),
        [[port, target]],
      );
      for (const [key, value] of Object.entries(service.spec?.selector ?? {}))
        assert.equal(labels[key], value, `Service ${name} selector ${key}`);
      assert.ok(
        deployment.spec?.template.spec?.containers.some((c) => c.ports?.some((p) => p.name === target)),
        `${name} has a container port ${target}`,
      );
      const pdb = only<V1PodDisruptionBudget>(objects, "PodDisruptionBudget", name);
      assert.deepEqual(pdb.spec?.selector?.matchLabels, deployment.spec?.selector.matchLabels);
    }
    assert.equal(only<V1PodDisruptionBudget>(objects, "PodDisruptionBudget", "kerf-operator").spec?.maxUnavailable, 1);
    assert.equal(only<V1PodDisruptionBudget>(objects, "PodDisruptionBudget", "kerf-webhook").spec?.minAvailable, 1);
    const container = operatorContainer(objects);
    assert.equal(container.livenessProbe?.httpGet?.path, "/healthz");
    assert.equal(container.livenessProbe.httpGet.port, "http");
    assert.equal(container.readinessProbe?.httpGet?.path, "/readyz");
    assert.equal(container.readinessProbe.httpGet.port, "http");
  });

  void it("should bind the roles to the operator's ServiceAccount, grant the Lease it elects on, and carry the IRSA annotation", () => {
    const objects = component(ci.objects, "operator");
    const deployment = only<V1Deployment>(objects, "Deployment");
    const account = deployment.spec?.template.spec?.serviceAccountName;
    const namespace = deployment.metadata?.namespace;
    const sa = only<V1ServiceAccount>(objects, "ServiceAccount");
    assert.equal(sa.metadata?.name, account);
    assert.equal(
      sa.metadata?.annotations?.["eks.amazonaws.com/role-arn"],
      "arn:aws:iam::111122223333:role/KerfController-prod-eu",
    );
    const bindings = [
      only<V1ClusterRoleBinding>(objects, "ClusterRoleBinding"),
      only<V1RoleBinding>(objects, "RoleBinding", "kerf-operator"),
    ];
    const subjects = bindings.flatMap((b) => b.subjects ?? []);
    assert.deepEqual(
      subjects.map((s) => [s.kind, s.name, s.namespace]),
      [
        ["ServiceAccount", account, namespace],
        ["ServiceAccount", account, namespace],
      ],
    );
    const role = only<V1Role>(objects, "Role", "kerf-operator");
    assert.equal(role.metadata?.namespace, namespace);
    const { argv, env } = operatorSources(ci.objects);
    const lease = loadConfig({ argv, env }).leaderElectionName;
    assert.ok(
      (role.rules ?? []).some(
        (r) =>
          r.resources?.includes("leases") &&
          r.resourceNames?.includes(lease) &&
          ["get", "patch"].every((v) => r.verbs.includes(v)),
      ),
      `get/patch on Lease ${lease}`,
    );
    assert.ok(
      (role.rules ?? []).some(
        (r) => r.resources?.includes("leases") && r.resourceNames === undefined && r.verbs.includes("create"),
      ),
      "create Leases",
    );
    assert.equal(
      (only(ci.objects, "ClusterRole", "kerf-operator").metadata["labels"] as Record<string, string>)["team"],
      "platform",
      "additionalLabels",
    );
  });

  void it("should let the operator read only the kube-dns Service in kube-system (node user data's cluster DNS)", () => {
    const objects = component(ci.objects, "operator");
    const account = only<V1Deployment>(objects, "Deployment").spec?.template.spec?.serviceAccountName;
    const role = only<V1Role>(objects, "Role", "kerf-operator-dns");
    assert.equal(role.metadata?.namespace, "kube-system");
    const rule = { apiGroups: [""], resources: ["services"], resourceNames: ["kube-dns"], verbs: ["get"] };
    assert.deepEqual(role.rules, [rule]);
    const binding = only<V1RoleBinding>(objects, "RoleBinding", "kerf-operator-dns");
    assert.equal(binding.metadata?.namespace, "kube-system");
    assert.deepEqual(binding.roleRef, {
      apiGroup: "rbac.authorization.k8s.io",
      kind: "Role",
      name: role.metadata?.name,
    });
    assert.deepEqual(
      binding.subjects?.map((s) => s.name),
      [account],
    );
  });

  void it("should start the webhook with a configuration its loader accepts and the policies value as its policy file", () => {
    for (const { objects } of [defaults, ci]) {
      const deployment = only<V1Deployment>(objects, "Deployment", "kerf-webhook");
      const container = deploymentContainer(deployment, "webhook");
      const invocation = kerfInvocation(container);
      assert.equal(invocation.subcommand, "webhook");
      const config = loadWebhookConfig(invocation.argv, containerEnvironment(container, [], pod));
      assert.equal(config.port, container.ports?.find((p) => p.name === "https")?.containerPort);
      const volumes = deployment.spec?.template.spec?.volumes ?? [];
      const mounts = container.volumeMounts ?? [];
      const mounted = (file: string): string | undefined => {
        const mount = mounts.find((m) => file.startsWith(`${m.mountPath}/`));
        const volume = volumes.find((v) => v.name === mount?.name);
        return volume?.configMap?.name ?? volume?.secret?.secretName;
      };
      const policyMap = only<V1ConfigMap>(objects, "ConfigMap", mounted(config.policyConfig ?? "") ?? "");
      const file = path.basename(config.policyConfig ?? "");
      assert.ok(policyMap.data?.[file] !== undefined, `ConfigMap ${policyMap.metadata?.name} has ${file}`);
      const tls = only<V1Secret>(objects, "Secret", mounted(config.tlsCert) ?? "");
      assert.ok(
        tls.data?.[path.basename(config.tlsCert)] !== undefined && tls.data[path.basename(config.tlsKey)] !== undefined,
      );
    }
    const policies = (objects: readonly ManifestObject[]): string =>
      only<V1ConfigMap>(objects, "ConfigMap", "kerf-policy").data?.["policies.yaml"] ?? "";
    assert.deepEqual(parsePolicyConfig(policies(defaults.objects)).policies, {});
    const configured = parsePolicyConfig(policies(ci.objects));
    assert.deepEqual(configured.policies, { "spot-diversity": "warn", "limits-required": "off" });
    assert.equal(configured.spotDiversity.minInstanceTypes, 20);
    const checksum = (objects: readonly ManifestObject[]): string | undefined =>
      only<V1Deployment>(objects, "Deployment", "kerf-webhook").spec?.template.metadata?.annotations?.[
        "checksum/policies"
      ];
    assert.notEqual(checksum(defaults.objects), checksum(ci.objects), "a policies change rolls the webhook");
  });

  void it("should refuse an unquoted off policy at render time, naming it", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "kerf-chart-"));
    const values = path.join(dir, "values.yaml");
    writeFileSync(values, "policies:\n  limits-required: off\n");
    await assert.rejects(renderChart({ values: [values] }), /policies\.limits-required is the boolean false: quote it/);
  });

  void it("should skip Karpenter's and kerf's own controllers in matchConditions and in the webhook's own guard", () => {
    const operatorUser = "system:serviceaccount:kerf-system:kerf-operator";
    const expected = [
      "system:serviceaccount:kube-system:karpenter",
      "system:serviceaccount:flux-system:kustomize-controller-breakglass",
      operatorUser,
    ];
    const configurations = [
      only<V1ValidatingWebhookConfiguration>(ci.objects, "ValidatingWebhookConfiguration"),
      only<V1MutatingWebhookConfiguration>(ci.objects, "MutatingWebhookConfiguration"),
    ];
    for (const configuration of configurations) {
      for (const webhook of configuration.webhooks ?? []) {
        const skip = webhook.matchConditions?.find((c) => c.name === "not-a-skipped-controller")?.expression;
        assert.equal(skip, `!(request.userInfo.username in [${expected.map((u) => `'${u}'`).join(", ")}])`);
        assert.deepEqual(
          webhook.rules?.map((r) => r.resources),
          [["nodepools"], ["ec2nodeclasses"]],
          "never the /status subresources",
        );
        assert.equal(webhook.sideEffects, "None");
        assert.deepEqual(webhook.clientConfig.service?.name, "kerf-webhook");
      }
    }
    assert.deepEqual(
      configurations.map((c) => [c.metadata?.name, c.webhooks?.[0]?.failurePolicy, c.webhooks?.[0]?.timeoutSeconds]),
      [
        ["kerf-validating", "Fail", 5],
        ["kerf-mutating", "Ignore", 3],
      ],
    );
    const container = deploymentContainer(only<V1Deployment>(ci.objects, "Deployment", "kerf-webhook"), "webhook");
    assert.deepEqual(
      loadWebhookConfig(kerfInvocation(container).argv, containerEnvironment(container, [], pod)).skipUsernames,
      expected,
    );
    const operatorAccount = only<V1ServiceAccount>(ci.objects, "ServiceAccount", "kerf-operator");
    assert.equal(
      `system:serviceaccount:${operatorAccount.metadata?.namespace ?? ""}:${operatorAccount.metadata?.name ?? ""}`,
      operatorUser,
    );
  });

  void it("should issue a serving certificate for the webhook Service that both webhook configurations' caBundle verifies", () => {
    const secret = only<V1Secret>(defaults.objects, "Secret", "kerf-webhook-tls");
    const decode = (key: string): string => Buffer.from(secret.data?.[key] ?? "", "base64").toString("utf8");
    const cert = new X509Certificate(decode("tls.crt"));
    const ca = new X509Certificate(decode("ca.crt"));
    assert.ok(cert.verify(ca.publicKey), "tls.crt is signed by ca.crt");
    assert.ok(cert.checkPrivateKey(createPrivateKey(decode("tls.key"))), "tls.key matches tls.crt");
    assert.equal(
      cert.checkHost("kerf-webhook.kerf-system.svc"),
      "kerf-webhook.kerf-system.svc",
      "valid for the name the apiserver calls",
    );
    assert.equal(createPrivateKey(decode("tls.key")).asymmetricKeyDetails?.namedCurve, "prime256v1", "ECDSA P-256");
    const days = (Date.parse(cert.validTo) - Date.now()) / 86_400_000;
    assert.ok(
      days > 360 && days <= 366,
      `valid for about webhook.certificates.generated.validityDays (365), got ${days.toFixed(1)}`,
    );
    const notAfter = Date.parse((secret.metadata?.annotations ?? {})["kerf.dev/certificate-not-after"] ?? "");
    assert.ok(Math.abs(notAfter - Date.parse(cert.validTo)) < 3_600_000, "the recorded expiry is the certificate's");
    for (const kind of ["ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"]) {
      const webhook = only<V1ValidatingWebhookConfiguration>(defaults.objects, kind).webhooks?.[0];
      assert.equal(
        Buffer.from(webhook?.clientConfig.caBundle ?? "", "base64").toString("utf8"),
        decode("ca.crt"),
        kind,
      );
    }
  });

  void it("should serve the webhook, started from the rendered Deployment with the rendered Secret and ConfigMap, to a client that trusts only caBundle", async () => {
    // The files the kubelet would mount, from the rendered objects; the flags and
    // environment from the rendered container.
    const dir = mkdtempSync(path.join(os.tmpdir(), "kerf-chart-webhook-"));
    const secret = only<V1Secret>(ci.objects, "Secret", "kerf-webhook-tls");
    const policies = only<V1ConfigMap>(ci.objects, "ConfigMap", "kerf-policy");
    const files: Record<string, string> = {
      "/etc/kerf/tls/tls.crt": Buffer.from(secret.data?.["tls.crt"] ?? "", "base64").toString("utf8"),
      "/etc/kerf/tls/tls.key": Buffer.from(secret.data?.["tls.key"] ?? "", "base64").toString("utf8"),
      "/etc/kerf/config/policies.yaml": policies.data?.["policies.yaml"] ?? "",
    };
    const local = (mounted: string): string => path.join(dir, mounted.replaceAll("/", "_"));
    for (const [mounted, text] of Object.entries(files)) writeFileSync(local(mounted), text);
    const container = deploymentContainer(only<V1Deployment>(ci.objects, "Deployment", "kerf-webhook"), "webhook");
    const argv = kerfInvocation(container).argv.map((a) => {
      const [flag, value = ""] = a.split("=");
      if (flag === "--port") return "--port=0";
      return value in files ? `${flag ?? ""}=${local(value)}` : a;
    });
    const config = loadWebhookConfig([...argv, "--host=127.0.0.1"], containerEnvironment(container, [], pod));
    assert.deepEqual(
      Object.keys(files).map(local).sort(),
      [config.tlsCert, config.tlsKey, config.policyConfig ?? ""].sort(),
      "every mounted file is one the webhook reads",
    );
    const webhook = await startWebhook(config, pino({ level: "silent" }));
    try {
      const caBundle = Buffer.from(
        only<V1ValidatingWebhookConfiguration>(ci.objects, "ValidatingWebhookConfiguration").webhooks?.[0]?.clientConfig
          .caBundle ?? "",
        "base64",
      ).toString("utf8");
      // As the apiserver calls it: TLS verified against caBundle for the Service's DNS name.
      const status = await new Promise<number>((resolve, reject) => {
        const req = https.request(
          {
            host: "127.0.0.1",
            port: webhook.port,
            path: "/readyz",
            ca: caBundle,
            servername: "kerf-webhook.kerf-system.svc",
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end();
      });
      assert.equal(status, 200);
    } finally {
      await webhook.close();
    }
  });

  void it("should leave certificates to cert-manager, and monitor both components, with the cert-manager values", () => {
    const objects = certManager.objects;
    assert.equal(
      objects.some((o) => o.kind === "Secret"),
      false,
      "cert-manager writes the Secret",
    );
    const certificate = only(objects, "Certificate", "kerf-webhook") as ManifestObject & {
      spec: { secretName: string; dnsNames: string[]; issuerRef: { name: string } };
    };
    assert.equal(certificate.spec.secretName, "kerf-webhook-tls");
    assert.deepEqual(certificate.spec.dnsNames, [
      "kerf-webhook.kerf-system.svc",
      "kerf-webhook.kerf-system.svc.cluster.local",
    ]);
    assert.equal(only(objects, "Issuer").metadata.name, certificate.spec.issuerRef.name);
    for (const kind of ["ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"]) {
      const configuration = only<V1ValidatingWebhookConfiguration>(objects, kind);
      assert.equal(configuration.metadata?.annotations?.["cert-manager.io/inject-ca-from"], "kerf-system/kerf-webhook");
      assert.equal(configuration.webhooks?.[0]?.clientConfig.caBundle, undefined);
    }
    const monitors = objects.filter((o) => o.kind === "ServiceMonitor") as (ManifestObject & {
      spec: { selector: { matchLabels: Record<string, string> }; endpoints: { port: string }[] };
    })[];
    assert.deepEqual(
      monitors.map((m) => [
        m.metadata.name,
        m.spec.endpoints[0]?.port,
        (m.metadata["labels"] as Record<string, string>)["release"],
      ]),
      [
        ["kerf-operator", "http-metrics", "prometheus"],
        ["kerf-webhook", "https", "prometheus"],
      ],
    );
    for (const monitor of monitors)
      assert.deepEqual(
        only<V1Service>(objects, "Service", monitor.metadata.name).spec?.selector,
        monitor.spec.selector.matchLabels,
      );
  });

  void it("should let the webhook list and watch exactly the three Karpenter CRDs, with a token, only when it reads the cluster's", async () => {
    const bundled = await renderChart({
      set: { "webhook.karpenterApi.source": "bundled", "webhook.karpenterApi.version": "1.10" },
    });
    for (const [objects, reads] of [
      [defaults.objects, true],
      [ci.objects, true],
      [bundled, false],
    ] as const) {
      const deployment = only<V1Deployment>(objects, "Deployment", "kerf-webhook");
      const config = loadWebhookConfig(kerfInvocation(deploymentContainer(deployment, "webhook")).argv, {});
      assert.equal(config.karpenterApi, reads ? "cluster" : "bundled");
      assert.equal(config.karpenterVersion, reads ? "1.14.1" : "1.10.2");
      assert.equal(deployment.spec?.template.spec?.automountServiceAccountToken, reads);
      const roles = component(objects, "webhook").filter(
        (o) => o.kind === "ClusterRole" && o.metadata.name === "kerf-webhook",
      ) as unknown as V1Role[];
      const bindings = component(objects, "webhook").filter(
        (o) => o.kind === "ClusterRoleBinding",
      ) as unknown as V1ClusterRoleBinding[];
      if (!reads) {
        assert.deepEqual([roles.length, bindings.length], [0, 0]);
        continue;
      }
      assert.deepEqual(roles[0]?.rules, [
        {
          apiGroups: ["apiextensions.k8s.io"],
          resources: ["customresourcedefinitions"],
          resourceNames: ["nodepools.karpenter.sh", "nodeclaims.karpenter.sh", "ec2nodeclasses.karpenter.k8s.aws"],
          verbs: ["list", "watch"],
        },
      ]);
      assert.deepEqual(bindings[0]?.roleRef, {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "ClusterRole",
        name: "kerf-webhook",
      });
      assert.deepEqual(bindings[0]?.subjects, [
        {
          kind: "ServiceAccount",
          name: deployment.spec?.template.spec?.serviceAccountName,
          namespace: deployment.metadata?.namespace,
        },
      ]);
    }
    await assert.rejects(
      renderChart({ set: { "webhook.karpenterApi.source": "crds" } }),
      /at '\/webhook\/karpenterApi\/source': value must be one of 'cluster', 'bundled'/,
    );
  });

  void it("should render the operator alone with webhook.enabled=false confirmed by webhook.disableGuardrail", async () => {
    const objects = await renderChart({ set: { "webhook.enabled": "false", "webhook.disableGuardrail": "true" } });
    assert.deepEqual(component(objects, "webhook"), []);
    assert.deepEqual(
      objects.filter((o) => /Webhook|Secret|ConfigMap/.test(o.kind)),
      [],
    );
    assert.deepEqual(
      component(objects, "operator")
        .map((o) => o.kind)
        .sort(),
      component(defaults.objects, "operator")
        .map((o) => o.kind)
        .sort(),
    );
  });

  void it("should pass `helm template | kerf check -`, which skips the chart's kinds and reads its policies file", async () => {
    for (const { text } of [defaults, ci, certManager]) {
      const result = await kerfCheck(text, []);
      assert.equal(result.code, 0, result.stdout + result.stderr);
      assert.match(
        result.stdout,
        /^0 Karpenter objects checked.*nothing denied$/m,
        "no kind the chart renders is a Karpenter object",
      );
    }
    const withCrds = await renderChartText({ values: [CI_VALUES], includeCrds: true });
    const example = (file: string): string =>
      `${withCrds}\n---\n${readFileSync(path.join(root, "manifests/examples", file), "utf8")}`;
    const pools = await kerfCheck(example("default.yaml"), []);
    assert.equal(pools.code, 0, pools.stdout + pools.stderr);
    assert.match(
      pools.stdout,
      /^2 Karpenter objects checked.*nothing denied$/m,
      "the NodePool and EC2NodeClass after the chart's objects are checked",
    );
    // The policies value, written out as CI would keep it, turns the spot-diversity denial into a warning.
    const dir = mkdtempSync(path.join(os.tmpdir(), "kerf-chart-"));
    const policyFile = path.join(dir, "policies.yaml");
    writeFileSync(policyFile, only<V1ConfigMap>(ci.objects, "ConfigMap", "kerf-policy").data?.["policies.yaml"] ?? "");
    const narrow = example("broken/spot-too-narrow.yaml");
    const denied = await kerfCheck(narrow, []);
    assert.equal(denied.code, 1, denied.stdout + denied.stderr);
    assert.match(denied.stdout, /deny NodePool\/narrow-spot .*\[spot-diversity\]/);
    const warned = await kerfCheck(narrow, ["--policy-config", policyFile]);
    assert.equal(warned.code, 0, warned.stdout + warned.stderr);
    assert.match(warned.stdout, /warn NodePool\/narrow-spot .*\[spot-diversity\]/);
  });
});
