/**
 * Stands in for instances booting and kubelets joining: for every running moto instance tagged
 * kubernetes.io/cluster/<name>, creates a kwok-managed Node (annotation kwok.x-k8s.io/node: fake) with
 * spec.providerID aws:///<zone>/<id>, the karpenter.sh/unregistered:NoExecute taint, the instance-type,
 * zone, capacity-type, arch and os labels, and capacity/allocatable from the NodeClaim status (or a
 * default). kwok then heartbeats it Ready and runs the pods bound to it.
 */
import { DescribeInstancesCommand, EC2Client, type Instance } from "@aws-sdk/client-ec2";
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import type { AwsTestConfig } from "./use-environment.ts";

export interface KubeletSimOptions {
  readonly kubeConfig: KubeConfig;
  readonly aws: AwsTestConfig;
  readonly clusterName: string;
  /** Wait this long after first seeing an instance before its Node joins (a boot delay). */
  readonly startDelayMs?: number;
  readonly pollMs?: number;
}

const DEFAULT_RESOURCES = { cpu: "2", memory: "8Gi", pods: "110" };

function tag(instance: Instance, key: string): string | undefined {
  return instance.Tags?.find((t) => t.Key === key)?.Value;
}

/** The simulated kubelets; `joined` lists the Node names it created. */
export class KubeletSim {
  private readonly o: KubeletSimOptions;
  private readonly ec2: EC2Client;
  private readonly core: CoreV1Api;
  private readonly custom: CustomObjectsApi;
  private readonly firstSeen = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  readonly joined: string[] = [];

  constructor(options: KubeletSimOptions) {
    this.o = options;
    this.ec2 = new EC2Client({ ...options.aws });
    this.core = options.kubeConfig.makeApiClient(CoreV1Api);
    this.custom = options.kubeConfig.makeApiClient(CustomObjectsApi);
  }

  start(): void {
    const loop = (): void => {
      this.running = this.pass().catch(() => undefined).finally(() => {
        if (this.timer !== undefined) this.timer = setTimeout(loop, this.o.pollMs ?? 250);
      });
    };
    this.timer = setTimeout(loop, 0);
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One scan: join every eligible running instance that has no Node yet. */
  async pass(): Promise<void> {
    const out = await this.ec2.send(new DescribeInstancesCommand({ Filters: [{ Name: `tag-key`, Values: [`kubernetes.io/cluster/${this.o.clusterName}`] }, { Name: "instance-state-name", Values: ["running"] }] }));
    const instances = (out.Reservations ?? []).flatMap((r) => r.Instances ?? []);
    const now = Date.now();
    for (const instance of instances) {
      const id = instance.InstanceId ?? "";
      if (this.joined.includes(id)) continue;
      if (!this.firstSeen.has(id)) this.firstSeen.set(id, now);
      if (now - (this.firstSeen.get(id) ?? now) < (this.o.startDelayMs ?? 0)) continue;
      await this.join(instance);
    }
  }

  private async resources(instance: Instance): Promise<{ capacity: Record<string, string>; allocatable: Record<string, string> }> {
    const claim = tag(instance, "karpenter.sh/nodeclaim");
    if (claim === undefined) return { capacity: DEFAULT_RESOURCES, allocatable: DEFAULT_RESOURCES };
    try {
      const nc = (await this.custom.getClusterCustomObject({ group: "karpenter.sh", version: "v1", plural: "nodeclaims", name: claim })) as { status?: { capacity?: Record<string, string>; allocatable?: Record<string, string> } };
      return { capacity: nc.status?.capacity ?? DEFAULT_RESOURCES, allocatable: nc.status?.allocatable ?? DEFAULT_RESOURCES };
    } catch {
      return { capacity: DEFAULT_RESOURCES, allocatable: DEFAULT_RESOURCES };
    }
  }

  private async join(instance: Instance): Promise<void> {
    const id = instance.InstanceId ?? "";
    const zone = instance.Placement?.AvailabilityZone ?? "";
    const name = id;
    const { capacity, allocatable } = await this.resources(instance);
    const labels: Record<string, string> = {
      "kubernetes.io/hostname": name,
      "node.kubernetes.io/instance-type": instance.InstanceType ?? "",
      "topology.kubernetes.io/zone": zone,
      "topology.kubernetes.io/region": zone.slice(0, -1),
      "karpenter.sh/capacity-type": instance.InstanceLifecycle === "spot" ? "spot" : "on-demand",
      "kubernetes.io/arch": instance.Architecture === "arm64" ? "arm64" : "amd64",
      "kubernetes.io/os": "linux",
      type: "kwok",
    };
    try {
      await this.core.createNode({
        body: {
          metadata: { name, labels, annotations: { "kwok.x-k8s.io/node": "fake" } },
          spec: { providerID: `aws:///${zone}/${id}`, taints: [{ key: "karpenter.sh/unregistered", effect: "NoExecute" }] },
          status: { capacity, allocatable },
        },
      });
    } catch (error) {
      if ((error as { code?: number }).code !== 409) throw error;
    }
    this.joined.push(id);
  }
}
