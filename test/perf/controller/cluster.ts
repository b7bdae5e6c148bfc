/**
 * One fresh cluster for one controller of the end-to-end bench: the real test environment (etcd,
 * kube-apiserver, kube-scheduler, kube-controller-manager, kwok, moto), Karpenter v1.15.1's own CRDs,
 * moto seeded as the playground seeds it (discovery-tagged default subnets and security group, al2023
 * AMIs that carry their architecture, the node role), the moto bridge on the fault proxy (every AWS
 * call of the controller goes through it), the kubelet simulation (straight to moto, so its calls are
 * not counted), and the bench's EC2NodeClass and NodePool. Then the controller: Karpenter's binary or
 * kerf's operator (test/perf/operator/operator-process.ts), each its own process.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { CreateClusterCommand, EKSClient } from "@aws-sdk/client-eks";
import { CustomObjectsApi, KubeConfig, VersionApi, type V1CustomResourceDefinition } from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";
import { installCrds } from "../../harness/crds.ts";
import { startEnvironment, type Environment } from "../../harness/environment.ts";
import { startFaultProxy, type FaultProxy } from "../../harness/fault-proxy.ts";
import { KubeletSim } from "../../harness/kubelet-sim.ts";
import type { ManagedProcess } from "../../harness/process.ts";
import type { AwsTestConfig } from "../../harness/use-environment.ts";
import { eventually } from "../../harness/wait.ts";
import { seedMoto } from "../../playground/seed.ts";
import { KARPENTER_VERSION, startKarpenter } from "./karpenter-controller.ts";
import { E2eMotoBridge } from "./moto-bridge.ts";

export const CLUSTER = "kerf-e2e";
export const ZONES = ["us-east-1a", "us-east-1b", "us-east-1c"];
/** Where seedMoto stores the AMI parameters in moto (it cannot write /aws/…); the bridge serves /aws/service/…. */
const SEED_SSM_PREFIX = "/kerf-e2e/aws/service";
const cacheDir = process.env["KERF_CACHE_DIR"] ?? path.join(homedir(), ".cache", "kerf");
const NODEPOOLS = { group: "karpenter.sh", version: "v1", plural: "nodepools" };

/** A running bench cluster (without its controller). */
export interface Cluster {
  readonly env: Environment;
  readonly kc: KubeConfig;
  /** moto itself, for the bench's own reads (not counted). */
  readonly moto: AwsTestConfig;
  /** The proxy the controller talks to. */
  readonly proxy: FaultProxy;
  readonly bridge: E2eMotoBridge;
  readonly sim: KubeletSim;
  stop(): Promise<void>;
}

/** Karpenter's CRDs of the bench's release, all of them (NodeOverlay, CapacityBuffer too), from the module cache. */
export function karpenterCrds(): V1CustomResourceDefinition[] {
  const mod = path.join(cacheDir, "go", "mod", "github.com", "aws", `karpenter-provider-aws@v${KARPENTER_VERSION}`);
  const dir = path.join(mod, "pkg", "apis", "crds");
  if (!existsSync(dir)) {
    // Not built here yet (e.g. --no-karpenter on a fresh cache): the module alone, no build.
    const env = {
      ...process.env,
      GOTOOLCHAIN: "auto",
      GOFLAGS: "-modcacherw",
      GOMODCACHE: path.join(cacheDir, "go", "mod"),
    };
    const out = spawnSync("go", ["mod", "download", `github.com/aws/karpenter-provider-aws@v${KARPENTER_VERSION}`], {
      cwd: path.join(import.meta.dirname, "karpenter"),
      env,
      encoding: "utf8",
    });
    if (out.status !== 0) throw new Error(`fetching Karpenter's CRDs: ${out.stderr.trim()}`);
  }
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .flatMap((f) =>
      parseAllDocuments(readFileSync(path.join(dir, f), "utf8"))
        .map((d) => d.toJS() as V1CustomResourceDefinition)
        .filter((d) => d?.kind === "CustomResourceDefinition"),
    );
}

/** The NodePool every run uses (see README: Karpenter's getting-started NodePool with spot allowed). */
export function nodePool(consolidateAfter: string): object {
  return {
    apiVersion: "karpenter.sh/v1",
    kind: "NodePool",
    metadata: { name: "default" },
    spec: {
      template: {
        spec: {
          nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
          requirements: [
            { key: "kubernetes.io/arch", operator: "In", values: ["amd64"] },
            { key: "kubernetes.io/os", operator: "In", values: ["linux"] },
            { key: "karpenter.sh/capacity-type", operator: "In", values: ["spot", "on-demand"] },
            { key: "karpenter.k8s.aws/instance-category", operator: "In", values: ["c", "m", "r"] },
            { key: "karpenter.k8s.aws/instance-generation", operator: "Gt", values: ["2"] },
          ],
          expireAfter: "720h",
        },
      },
      limits: { cpu: "1000" },
      disruption: { consolidationPolicy: "WhenEmptyOrUnderutilized", consolidateAfter },
    },
  };
}

function nodeClass(): object {
  const discovery = [{ tags: { "karpenter.sh/discovery": CLUSTER } }];
  return {
    apiVersion: "karpenter.k8s.aws/v1",
    kind: "EC2NodeClass",
    metadata: { name: "default" },
    spec: {
      role: `KarpenterNodeRole-${CLUSTER}`,
      amiSelectorTerms: [{ alias: "al2023@latest" }],
      subnetSelectorTerms: discovery,
      securityGroupSelectorTerms: discovery,
    },
  };
}

/**
 * The EKS cluster, in moto: AL2023 nodes need the cluster's service CIDR, which Karpenter (and kerf)
 * read with EKS DescribeCluster. Its CIDR is the apiserver's --service-cluster-ip-range.
 */
async function seedEksCluster(
  moto: AwsTestConfig,
  subnets: readonly string[],
  securityGroups: readonly string[],
  version: string,
): Promise<void> {
  const eks = new EKSClient({ ...moto });
  try {
    await eks.send(
      new CreateClusterCommand({
        name: CLUSTER,
        version,
        roleArn: `arn:aws:iam::123456789012:role/${CLUSTER}-cluster`,
        resourcesVpcConfig: { subnetIds: [...subnets], securityGroupIds: [...securityGroups] },
        kubernetesNetworkConfig: { serviceIpv4Cidr: "10.0.0.0/24" },
      }),
    );
  } finally {
    eks.destroy();
  }
}

/** Starts a fresh environment and everything the controller needs beside it. */
export async function startCluster(o: { consolidateAfter: string }): Promise<Cluster> {
  const env = await startEnvironment({ controlPlane: true, kwok: true, moto: true });
  try {
    const kc = new KubeConfig();
    kc.loadFromFile(env.state.kubeconfig);
    await installCrds(kc, karpenterCrds());
    const credentials = { accessKeyId: "testing", secretAccessKey: "testing" };
    const moto: AwsTestConfig = { endpoint: env.state.awsEndpoint ?? "", region: "us-east-1", credentials };
    const version = await kc.makeApiClient(VersionApi).getCode();
    const kubernetesVersion = `${version.major}.${version.minor.replace(/\D+$/, "")}`;
    const seeded = await seedMoto(moto, {
      clusterName: CLUSTER,
      ssmPrefix: SEED_SSM_PREFIX,
      kubernetesVersion,
      zones: ZONES,
    });
    await seedEksCluster(moto, [...seeded.subnets.values()], seeded.securityGroups, kubernetesVersion);
    const proxy = await startFaultProxy(moto.endpoint);
    const bridge = new E2eMotoBridge(seeded.amis);
    proxy.bridge = bridge;
    const custom = kc.makeApiClient(CustomObjectsApi);
    const nodeClasses = { group: "karpenter.k8s.aws", version: "v1", plural: "ec2nodeclasses" };
    await custom.createClusterCustomObject({ ...nodeClasses, body: nodeClass() });
    await custom.createClusterCustomObject({ ...NODEPOOLS, body: nodePool(o.consolidateAfter) });
    const sim = new KubeletSim({ kubeConfig: kc, aws: moto, clusterName: CLUSTER });
    sim.start();
    return {
      env,
      kc,
      moto,
      proxy,
      bridge,
      sim,
      stop: async () => {
        await sim.stop();
        await proxy.stop();
        await env.stop();
      },
    };
  } catch (error) {
    await env.stop();
    throw error;
  }
}

/** Waits until the controller reports the NodePool Ready (its EC2NodeClass resolved). */
export async function waitNodePoolReady(kc: KubeConfig, timeoutMs = 180_000): Promise<void> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  await eventually(
    "the NodePool to be Ready",
    async () => {
      const pool = (await custom.getClusterCustomObject({ ...NODEPOOLS, name: "default" })) as {
        status?: { conditions?: { type: string; status: string }[] };
      };
      return pool.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");
    },
    timeoutMs,
    250,
  );
}

/** A controller process the bench measures. */
export interface Controller {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  stop(): Promise<void>;
}

/** Karpenter's controller on the cluster. */
export async function runKarpenter(cluster: Cluster, binary: string): Promise<Controller> {
  const proc: ManagedProcess = await startKarpenter({
    binary,
    kubeconfig: cluster.env.state.kubeconfig,
    apiserverUrl: cluster.env.state.apiserverUrl,
    awsEndpoint: cluster.proxy.url,
    clusterName: CLUSTER,
    logDir: cluster.env.state.dir,
  });
  return { name: "karpenter", pid: proc.pid ?? 0, logFile: proc.logFile, stop: () => proc.stop(10_000) };
}

/**
 * kerf's operator on the cluster, as the operator benches run it (operator-process.ts: the real
 * composition root, every informer and controller, AWS providers). Its SSM prefix is the real
 * `/aws/service`, served by the bridge as for Karpenter.
 */
export async function runKerf(cluster: Cluster): Promise<Controller> {
  const logFile = path.join(cluster.env.state.dir, "kerf-operator.log");
  const args = [
    path.join(import.meta.dirname, "..", "operator", "operator-process.ts"),
    "--kubeconfig",
    cluster.env.state.kubeconfig,
    "--aws-endpoint",
    cluster.proxy.url,
    "--cluster-name",
    CLUSTER,
    "--ssm-prefix",
    "/aws/service",
    "--log",
    logFile,
  ];
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (c: Buffer) => {
      if (c.toString().includes("SYNCED")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`kerf's operator exited with ${code}; log ${logFile}`)));
  });
  return {
    name: "kerf",
    pid: child.pid ?? 0,
    logFile,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
