/**
 * The endpoint, CA, service CIDR and cluster DNS address the operator writes into node user data, against
 * moto's EKS and the test apiserver: discovered with DescribeCluster when CLUSTER_ENDPOINT is empty, the
 * configured endpoint winning when it is set, the service CIDR read from DescribeCluster in an isolated
 * VPC too, the cluster DNS address from the kube-dns Service, and `kerf operator` refusing to start
 * (exit code 2) when nothing gives an endpoint.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { DescribeLaunchTemplatesCommand, DescribeLaunchTemplateVersionsCommand } from "@aws-sdk/client-ec2";
import { CreateClusterCommand, EKSClient } from "@aws-sdk/client-eks";
import { CoreV1Api } from "@kubernetes/client-node";
import { parse } from "yaml";
import { userParts } from "../../operator/core/launch-template/bootstrap.ts";
import { ClusterDiscoveryError } from "../../operator/core/launch-template/cluster-info.ts";
import { runOperator, startOperator, type RunningOperator } from "../../operator/main.ts";
import { silentLogger } from "../../operator/observability/logger.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { CLUSTER, SSM_PREFIX, clients } from "./aws-fixtures.ts";
import { operatorConfig, replica } from "./operator-fixtures.ts";
import {
  ON_DEMAND,
  WORKSHOP_FAMILIES,
  createInflate,
  createNodePool,
  prepareCluster,
} from "./provisioning-fixtures.ts";

/** A service CIDR no default produces, so finding it in user data proves it came from DescribeCluster. */
const SERVICE_CIDR = "10.123.0.0/16";

/** The EKS cluster in moto; returns what DescribeCluster will report. */
async function createEksCluster(env: TestEnvironment): Promise<{ endpoint: string; caBundle: string }> {
  const eks = new EKSClient({ ...env.aws() });
  const out = await eks.send(
    new CreateClusterCommand({
      name: CLUSTER,
      roleArn: "arn:aws:iam::123456789012:role/eks-cluster",
      resourcesVpcConfig: { subnetIds: [] },
      kubernetesNetworkConfig: { serviceIpv4Cidr: SERVICE_CIDR },
    }),
  );
  eks.destroy();
  return { endpoint: out.cluster?.endpoint ?? "", caBundle: out.cluster?.certificateAuthority?.data ?? "" };
}

/** The NodeConfig parts the tests read. */
interface NodeConfigSpec {
  cluster: Record<string, unknown>;
  kubelet: { config: Record<string, unknown> };
}

/** The `spec` of the nodeadm NodeConfig of the first launch template the operator created. */
async function launchedNodeConfig(env: TestEnvironment): Promise<NodeConfigSpec | undefined> {
  const { ec2 } = clients(env.aws());
  const templates = (await ec2.send(new DescribeLaunchTemplatesCommand({}))).LaunchTemplates ?? [];
  const ours = templates.find((t) => t.LaunchTemplateName?.startsWith("karpenter.k8s.aws/") === true);
  if (ours === undefined) return undefined;
  const versions = await ec2.send(
    new DescribeLaunchTemplateVersionsCommand({ LaunchTemplateId: ours.LaunchTemplateId, Versions: ["$Latest"] }),
  );
  const userData = Buffer.from(
    versions.LaunchTemplateVersions?.[0]?.LaunchTemplateData?.UserData ?? "",
    "base64",
  ).toString("utf8");
  const part = userParts(userData, "").find((p) => p.contentType === "application/node.eks.aws");
  return part === undefined ? undefined : (parse(part.body) as { spec: NodeConfigSpec }).spec;
}

/**
 * Service kube-system/kube-dns at `clusterIP`, inside the test apiserver's service range (10.0.0.0/24):
 * no default CIDR of an AMI family derives that address. Removed by the returned function.
 */
async function createKubeDns(env: TestEnvironment, clusterIP: string): Promise<() => Promise<void>> {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespacedService({
    namespace: "kube-system",
    body: {
      metadata: { name: "kube-dns", labels: { "k8s-app": "kube-dns" } },
      spec: {
        clusterIP,
        selector: { "k8s-app": "kube-dns" },
        ports: [
          { name: "dns", port: 53, protocol: "UDP" },
          { name: "dns-tcp", port: 53, protocol: "TCP" },
        ],
      },
    },
  });
  return async () => {
    await core.deleteNamespacedService({ name: "kube-dns", namespace: "kube-system" });
  };
}

void describe("the cluster facts in the operator's launch templates", () => {
  let env: TestEnvironment;
  let operator: RunningOperator | undefined;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
  });
  after(async () => {
    await operator?.stop();
  });

  /** A pending pod in the (reset) cluster and one replica with `extra` settings; its launch template's NodeConfig. */
  async function launchSpec(extra: Record<string, string>): Promise<NodeConfigSpec> {
    await prepareCluster(env);
    operator = await replica(env, "discovery", { DISABLE_LEADER_ELECTION: "true", ...extra });
    await createNodePool(env, "default", { requirements: [ON_DEMAND, WORKSHOP_FAMILIES] });
    await createInflate(env, 1);
    const spec = await eventually("a launch template with a NodeConfig", () => launchedNodeConfig(env), 60_000, 250);
    await operator.stop();
    operator = undefined;
    return spec;
  }

  /** The NodeConfig's cluster of a launch (see launchSpec). */
  async function launch(extra: Record<string, string>): Promise<Record<string, unknown>> {
    return (await launchSpec(extra)).cluster;
  }

  void it("should write the endpoint, CA and service CIDR that EKS DescribeCluster reports when no endpoint is configured", async () => {
    await env.reset();
    const eks = await createEksCluster(env);
    const cluster = await launch({ CLUSTER_ENDPOINT: "" });
    assert.deepEqual(cluster, {
      name: CLUSTER,
      apiServerEndpoint: eks.endpoint,
      certificateAuthority: eks.caBundle,
      cidr: SERVICE_CIDR,
    });
    assert.notEqual(eks.endpoint, env.state.apiserverUrl);
  });

  void it("should let a configured endpoint win, with the kubeconfig's CA and DescribeCluster's service CIDR", async () => {
    await env.reset();
    await createEksCluster(env);
    const cluster = await launch({ CLUSTER_ENDPOINT: env.state.apiserverUrl });
    const kubeconfigCA = readFileSync(env.state.ca.cert).toString("base64");
    assert.deepEqual(cluster, {
      name: CLUSTER,
      apiServerEndpoint: env.state.apiserverUrl,
      certificateAuthority: kubeconfigCA,
      cidr: SERVICE_CIDR,
    });
  });

  void it("should read a non-default service CIDR from DescribeCluster in an isolated VPC too, as Karpenter", async () => {
    await env.reset();
    await createEksCluster(env);
    const cluster = await launch({ CLUSTER_ENDPOINT: env.state.apiserverUrl, ISOLATED_VPC: "true" });
    assert.equal(cluster["cidr"], SERVICE_CIDR);
  });

  void it("should give nodes kube-dns's address as cluster DNS when EKS cannot tell the service CIDR", async () => {
    await env.reset();
    // No EKS cluster in moto: DescribeCluster fails, as it does in an isolated VPC without an EKS endpoint.
    const removeKubeDns = await createKubeDns(env, "10.0.0.53");
    try {
      const spec = await launchSpec({ CLUSTER_ENDPOINT: env.state.apiserverUrl, ISOLATED_VPC: "true" });
      assert.deepEqual(spec.kubelet.config["clusterDNS"], ["10.0.0.53"], "the kubelet's clusterDNS is kube-dns's");
      // nodeadm still needs a CIDR (EKS's default); the kubelet config's clusterDNS overrides what it derives.
      assert.equal(spec.cluster["cidr"], "10.100.0.0/16");
    } finally {
      await removeKubeDns();
    }
  });

  void it("should refuse to start, naming CLUSTER_ENDPOINT, when no endpoint is configured and EKS knows no such cluster", async () => {
    await env.reset();
    const config = operatorConfig(env, "no-eks", { CLUSTER_ENDPOINT: "", DISABLE_LEADER_ELECTION: "true" });
    await assert.rejects(
      startOperator(config, {
        kubeConfig: env.kubeConfig,
        logger: silentLogger(),
        serveHttp: false,
        awsCredentials: env.aws().credentials,
        ssmPrefix: SSM_PREFIX,
      }),
      (e: unknown) => {
        assert.ok(e instanceof ClusterDiscoveryError);
        assert.match(
          e.message,
          new RegExp(
            "--cluster-endpoint \\(CLUSTER_ENDPOINT\\) is empty and EKS could not tell the endpoint: " +
              "describing EKS cluster kerf-test: ResourceNotFoundException",
          ),
        );
        return true;
      },
    );
  });

  void it("should make `kerf operator` exit with code 2 and one line naming CLUSTER_ENDPOINT when discovery fails", async () => {
    await env.reset();
    const saved = { ...process.env };
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: "testing", AWS_SECRET_ACCESS_KEY: "testing" });
    const lines: string[] = [];
    try {
      const argv = [
        "--cluster-name",
        CLUSTER,
        "--region",
        env.aws().region,
        "--aws-endpoint",
        env.aws().endpoint,
        "--kubeconfig",
        env.state.kubeconfig,
        "--disable-leader-election",
        "--metrics-port",
        "0",
        "--health-probe-port",
        "0",
      ];
      assert.equal(await runOperator(argv, (line) => lines.push(line)), 2);
    } finally {
      for (const key of ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"])
        if (saved[key] === undefined) Reflect.deleteProperty(process.env, key);
        else process.env[key] = saved[key];
    }
    assert.equal(lines.length, 1);
    assert.match(
      lines[0] ?? "",
      new RegExp(
        "^discovering the cluster for node user data: " +
          "--cluster-endpoint \\(CLUSTER_ENDPOINT\\) is empty .*ResourceNotFoundException.*\\n$",
      ),
    );
    assert.equal(lines[0]?.split("\n").length, 2, "a single line");
  });
});
