/**
 * manifests/operator against the code it deploys: the Deployment's command line and environment go
 * through the operator's own config loader (operator/config.ts), so a renamed flag, a misspelled
 * environment variable or a port that no longer matches its probe fails here, not in a cluster.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { V1ClusterRoleBinding, V1ConfigMap, V1Container, V1Deployment, V1PodDisruptionBudget, V1Role, V1RoleBinding, V1Service } from "@kubernetes/client-node";
import pkg from "../../package.json" with { type: "json" };
import { ConfigError, loadConfig, usage } from "../../operator/config.ts";
import { commands } from "../../webhook/cli/commands.ts";
import "../../webhook/cli/command-list.ts";
import { containerEnvironment, deploymentContainer, kerfInvocation, kustomizationObjects, kustomizationResources, only } from "../harness/manifests.ts";

const root = path.resolve(import.meta.dirname, "../..");
const dir = path.join(root, "manifests/operator");
const objects = kustomizationObjects(dir);
const deployment = only<V1Deployment>(objects, "Deployment", "kerf-operator");
const container = deploymentContainer(deployment, "controller");
const settings = only<V1ConfigMap>(objects, "ConfigMap", "kerf-operator-settings");
const pod = { name: "kerf-operator-6d9f7c-abcde", namespace: "kerf-system" };

/** The settings ConfigMap with its placeholders replaced, as a user would. */
function configured(data: Record<string, string>): V1ConfigMap {
  return { ...settings, data: { ...settings.data, ...data } };
}

/** What `kerf operator` receives: argv after the subcommand, and the resolved environment. */
function sources(container: V1Container, configMap: V1ConfigMap): { argv: string[]; env: Record<string, string> } {
  const invocation = kerfInvocation(container);
  assert.equal(invocation.subcommand, "operator");
  return { argv: [...invocation.argv], env: containerEnvironment(container, [configMap], pod) };
}

function port(name: string): number {
  const found = container.ports?.find((p) => p.name === name);
  assert.ok(found !== undefined, `container port ${name}`);
  return found.containerPort;
}

void describe("manifests/operator", () => {
  void it("should list every YAML file of the folder in its kustomization", () => {
    const files = readdirSync(dir).filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml").sort();
    assert.deepEqual([...kustomizationResources(dir)].sort(), files);
  });

  void it("should start the operator with a configuration its config loader accepts once the placeholders are replaced", () => {
    const { argv, env } = sources(container, configured({ clusterName: "prod-eu", awsRegion: "eu-west-1", interruptionQueue: "prod-eu-interruptions" }));
    const config = loadConfig({ argv, env, hostname: "ignored", pid: 1 });
    assert.equal(config.clusterName, "prod-eu");
    assert.equal(config.region, "eu-west-1");
    assert.equal(config.interruptionQueue, "prod-eu-interruptions");
    assert.equal(config.logLevel, "info");
    assert.equal(config.disableLeaderElection, false);
    assert.equal(config.leaderElectionNamespace, pod.namespace);
    assert.equal(config.leaderElectionIdentity, pod.name);
    assert.equal(config.awsEndpoint, "", "the real AWS endpoints");
    assert.equal(config.clusterEndpoint, "", "the endpoint nodes join with is discovered with EKS DescribeCluster");
    assert.equal(config.kubeconfig, "", "in-cluster credentials");
    assert.equal(config.metricsPort, port("http-metrics"));
    assert.equal(config.healthProbePort, port("http"));
  });

  void it("should pass a configured cluster endpoint to the operator, and refuse one that is not a URL, naming it", () => {
    const { argv, env } = sources(container, configured({ clusterName: "prod-eu", awsRegion: "eu-west-1", clusterEndpoint: "https://ABC.gr7.eu-west-1.eks.amazonaws.com" }));
    assert.equal(loadConfig({ argv, env }).clusterEndpoint, "https://ABC.gr7.eu-west-1.eks.amazonaws.com");
    const typo = sources(container, configured({ clusterName: "prod-eu", awsRegion: "eu-west-1", clusterEndpoint: "ABC.gr7.eu-west-1.eks.amazonaws.com" }));
    assert.throws(() => loadConfig(typo), (e: unknown) => e instanceof ConfigError && /CLUSTER_ENDPOINT/.test(e.message));
  });

  void it("should refuse to start on the shipped placeholders, naming the region", () => {
    const { argv, env } = sources(container, settings);
    assert.equal(env["CLUSTER_NAME"], "REPLACE_WITH_CLUSTER_NAME");
    assert.throws(() => loadConfig({ argv, env }), (e: unknown) => e instanceof ConfigError && /region/.test(e.message));
  });

  void it("should set only environment variables that the operator or its runtime reads", () => {
    const flagVariables = [...usage().matchAll(/\(env ([A-Z_]+),/g)].map((m) => m[1]);
    // Fallbacks read in operator/config.ts (applyFallbacks), then the runtime's own tuning variables.
    const read = new Set([...flagVariables, "AWS_REGION", "POD_NAMESPACE", "POD_NAME", "MALLOC_ARENA_MAX", "NODE_OPTIONS"]);
    const set = (container.env ?? []).map((e) => e.name);
    assert.deepEqual(set.filter((name) => !read.has(name)), []);
    assert.equal(new Set(set).size, set.length, "no variable set twice");
  });

  void it("should probe /healthz and /readyz on the health port and expose /metrics through the http-metrics Service port", () => {
    assert.equal(container.livenessProbe?.httpGet?.path, "/healthz");
    assert.equal(container.livenessProbe.httpGet.port, "http");
    assert.equal(container.readinessProbe?.httpGet?.path, "/readyz");
    assert.equal(container.readinessProbe.httpGet.port, "http");
    const service = only<V1Service>(objects, "Service", "kerf-operator");
    assert.deepEqual(service.spec?.ports?.map((p) => [p.name, p.targetPort]), [["http-metrics", "http-metrics"]]);
    const labels = deployment.spec?.template.metadata?.labels ?? {};
    for (const [key, value] of Object.entries(service.spec?.selector ?? {})) assert.equal(labels[key], value, `Service selector ${key}`);
    const pdb = only<V1PodDisruptionBudget>(objects, "PodDisruptionBudget", "kerf-operator");
    assert.equal(pdb.spec?.maxUnavailable, 1);
    assert.deepEqual(pdb.spec?.selector?.matchLabels, deployment.spec?.selector.matchLabels);
  });

  void it("should start Node with flags it accepts on its command line and in NODE_OPTIONS", () => {
    // Node exits 9 on a flag NODE_OPTIONS may not carry (--optimize-for-size is one): run it for real.
    const { nodeFlags } = kerfInvocation(container);
    const env = containerEnvironment(container, [configured({ clusterName: "demo", region: "us-east-1" })], pod);
    const run = spawnSync(process.execPath, [...nodeFlags, "-e", "0"], { env: { PATH: process.env["PATH"] ?? "", ...(env["NODE_OPTIONS"] === undefined ? {} : { NODE_OPTIONS: env["NODE_OPTIONS"] }) }, encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
  });

  void it("should run `kerf operator` from the image of this version as the non-root user the Dockerfile sets", () => {
    const script = (container.command ?? []).find((w) => w.endsWith("kerf.mjs"));
    if (script !== undefined) assert.equal(script, "/app/webhook/cli/kerf.mjs", "the Dockerfile copies webhook/ to /app/webhook");
    assert.equal(container.image, `ghcr.io/kerf-dev/kerf:${pkg.version}`);
    assert.ok(commands().some((c) => c.name === "operator"), "kerf has an operator command");
    const dockerfile = readFileSync(path.join(root, "Dockerfile"), "utf8");
    const user = dockerfile.match(/^USER (\d+):(\d+)$/m);
    const security = deployment.spec?.template.spec?.securityContext;
    assert.equal(security?.runAsNonRoot, true);
    assert.deepEqual([security.runAsUser, security.runAsGroup], [Number(user?.[1]), Number(user?.[2])]);
    assert.equal(security.seccompProfile?.type, "RuntimeDefault");
    assert.equal(container.securityContext?.readOnlyRootFilesystem, true);
    assert.equal(container.securityContext.allowPrivilegeEscalation, false);
    assert.deepEqual(container.securityContext.capabilities?.drop, ["ALL"]);
    assert.deepEqual(container.resources, { requests: { cpu: "250m", memory: "384Mi" }, limits: { memory: "512Mi" } });
  });

  void it("should keep the operator off the nodes it manages, one replica per host", () => {
    const spec = deployment.spec?.template.spec;
    assert.equal(deployment.spec?.replicas, 2);
    assert.equal(spec?.priorityClassName, "system-cluster-critical");
    const terms = spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
    assert.ok(terms.length > 0 && terms.every((t) => t.matchExpressions?.some((e) => e.key === "karpenter.sh/nodepool" && e.operator === "DoesNotExist")), "every node selector term excludes NodePool nodes");
    assert.deepEqual(spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.map((t) => t.topologyKey), ["kubernetes.io/hostname"]);
  });

  void it("should bind the roles to the Deployment's ServiceAccount and grant the Lease the operator elects on", () => {
    const account = deployment.spec?.template.spec?.serviceAccountName;
    const namespace = deployment.metadata?.namespace;
    const subjects = [only<V1ClusterRoleBinding>(objects, "ClusterRoleBinding"), only<V1RoleBinding>(objects, "RoleBinding")].flatMap((b) => b.subjects ?? []);
    assert.deepEqual(subjects.map((s) => [s.kind, s.name, s.namespace]), [["ServiceAccount", account, namespace], ["ServiceAccount", account, namespace]]);
    const role = only<V1Role>(objects, "Role");
    assert.equal(role.metadata?.namespace, namespace);
    const { argv, env } = sources(container, configured({ clusterName: "c", awsRegion: "us-east-1" }));
    const lease = loadConfig({ argv, env }).leaderElectionName;
    assert.ok((role.rules ?? []).some((r) => r.resources?.includes("leases") && r.resourceNames?.includes(lease) && ["get", "patch"].every((v) => r.verbs.includes(v))), `get/patch on Lease ${lease}`);
    assert.ok((role.rules ?? []).some((r) => r.resources?.includes("leases") && r.resourceNames === undefined && r.verbs.includes("create")), "create Leases");
  });
});
