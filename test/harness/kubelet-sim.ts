/**
 * Stands in for instances booting and kubelets joining: for every running moto instance tagged
 * kubernetes.io/cluster/<name>, creates a kwok-managed Node (annotation kwok.x-k8s.io/node: fake) with
 * spec.providerID aws:///<zone>/<id>, the karpenter.sh/unregistered:NoExecute taint, the instance-type,
 * zone, capacity-type, arch and os labels, and capacity/allocatable from the NodeClaim status (or a
 * default). kwok then heartbeats it Ready and runs the pods bound to it.
 *
 * As a real kubelet started by Karpenter's user data does (`--node-labels`, `--register-with-taints`),
 * the Node also registers with its NodeClaim's labels, taints and startup taints; and it joins only once
 * the NodeClaim's status says what the instance is (capacity, allocatable), since a Node that registered
 * with made-up resources before the controller recorded its launch would mislead both controllers. The
 * NodeClaim is found as Karpenter finds a Node's, by status.providerID (or by the karpenter.sh/nodeclaim
 * tag, which kerf sets at launch and Karpenter only once the Node registered).
 * Every DescribeInstances page is read (moto pages at 100 instances).
 */
import { EC2Client, paginateDescribeInstances, type Instance } from "@aws-sdk/client-ec2";
import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1Taint } from "@kubernetes/client-node";
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
const UNREGISTERED: V1Taint = { key: "karpenter.sh/unregistered", effect: "NoExecute" };

function tag(instance: Instance, key: string): string | undefined {
  return instance.Tags?.find((t) => t.Key === key)?.Value;
}

/** What a Node registers with: from its NodeClaim when the instance has one. */
interface Registration {
  readonly capacity: Record<string, string>;
  readonly allocatable: Record<string, string>;
  readonly labels: Record<string, string>;
  readonly taints: V1Taint[];
}

interface NodeClaimView {
  metadata?: { name?: string; labels?: Record<string, string>; deletionTimestamp?: unknown };
  spec?: { taints?: V1Taint[]; startupTaints?: V1Taint[] };
  status?: { providerID?: string; capacity?: Record<string, string>; allocatable?: Record<string, string> };
}

/** The NodeClaims of one pass, by status.providerID and by name. */
interface Claims {
  readonly byProviderId: Map<string, NodeClaimView>;
  readonly byName: Map<string, NodeClaimView>;
}

/** How long an instance launched for a NodePool waits for its NodeClaim to record the launch (then: defaults). */
const CLAIM_WAIT_MS = 30_000;

const DEFAULT_REGISTRATION: Registration = {
  capacity: DEFAULT_RESOURCES,
  allocatable: DEFAULT_RESOURCES,
  labels: {},
  taints: [],
};

/** The simulated kubelets; `joined` lists the Node names it created. */
export class KubeletSim {
  private readonly o: KubeletSimOptions;
  private readonly ec2: EC2Client;
  private readonly core: CoreV1Api;
  private readonly custom: CustomObjectsApi;
  private readonly firstSeen = new Map<string, number>();
  private readonly joinedIds = new Set<string>();
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
      this.running = this.pass()
        .catch(() => undefined)
        .finally(() => {
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
    const filters = [
      { Name: "tag-key", Values: [`kubernetes.io/cluster/${this.o.clusterName}`] },
      { Name: "instance-state-name", Values: ["running"] },
    ];
    const instances: Instance[] = [];
    for await (const page of paginateDescribeInstances({ client: this.ec2 }, { Filters: filters })) {
      instances.push(...(page.Reservations ?? []).flatMap((r) => r.Instances ?? []));
    }
    const now = Date.now();
    const waiting = instances.filter((i) => !this.joinedIds.has(i.InstanceId ?? ""));
    if (waiting.length === 0) return;
    const claims = await this.nodeClaims();
    for (const instance of waiting) {
      const id = instance.InstanceId ?? "";
      if (!this.firstSeen.has(id)) this.firstSeen.set(id, now);
      const age = now - (this.firstSeen.get(id) ?? now);
      if (age < (this.o.startDelayMs ?? 0)) continue;
      const registration = this.registration(instance, claims, age);
      if (registration !== undefined) await this.join(instance, registration);
    }
  }

  /** Every NodeClaim, by status.providerID and by name. */
  private async nodeClaims(): Promise<Claims> {
    const ref = { group: "karpenter.sh", version: "v1", plural: "nodeclaims" };
    const list = (await this.custom.listClusterCustomObject(ref)) as { items?: NodeClaimView[] };
    const byProviderId = new Map<string, NodeClaimView>();
    const byName = new Map<string, NodeClaimView>();
    for (const nc of list.items ?? []) {
      if (nc.status?.providerID !== undefined) byProviderId.set(nc.status.providerID, nc);
      if (nc.metadata?.name !== undefined) byName.set(nc.metadata.name, nc);
    }
    return { byProviderId, byName };
  }

  /**
   * What the instance registers with: its NodeClaim's view, found as Karpenter finds a Node's, by
   * provider ID (Karpenter tags an instance with its NodeClaim only after it registered; kerf tags it
   * at launch, which also counts). Undefined while the instance waits for its NodeClaim to record the
   * launch: one a controller launched for a NodePool (karpenter.sh/nodepool tag) waits up to
   * CLAIM_WAIT_MS, then joins with defaults, as an instance launched outside any NodeClaim does at once,
   * and one whose NodeClaim is gone or being deleted (nothing will record the launch any more).
   */
  private registration(instance: Instance, claims: Claims, ageMs: number): Registration | undefined {
    const providerId = `aws:///${instance.Placement?.AvailabilityZone ?? ""}/${instance.InstanceId ?? ""}`;
    const tagged = tag(instance, "karpenter.sh/nodeclaim");
    const nc = claims.byProviderId.get(providerId) ?? (tagged === undefined ? undefined : claims.byName.get(tagged));
    if (nc?.status?.allocatable !== undefined && nc.status.capacity !== undefined) {
      return {
        capacity: nc.status.capacity,
        allocatable: nc.status.allocatable,
        labels: nc.metadata?.labels ?? {},
        taints: [...(nc.spec?.taints ?? []), ...(nc.spec?.startupTaints ?? [])],
      };
    }
    const claimGoing = nc === undefined ? tagged !== undefined : nc.metadata?.deletionTimestamp !== undefined;
    if (claimGoing) return DEFAULT_REGISTRATION;
    const launchedForPool = tag(instance, "karpenter.sh/nodepool") !== undefined;
    return launchedForPool && ageMs < CLAIM_WAIT_MS ? undefined : DEFAULT_REGISTRATION;
  }

  private async join(instance: Instance, registration: Registration): Promise<void> {
    const id = instance.InstanceId ?? "";
    const zone = instance.Placement?.AvailabilityZone ?? "";
    const name = id;
    // A kubelet cannot register as registered or initialized: the controller decides those.
    const { "karpenter.sh/registered": _r, "karpenter.sh/initialized": _i, ...claimLabels } = registration.labels;
    const labels: Record<string, string> = {
      ...claimLabels,
      "kubernetes.io/hostname": name,
      "node.kubernetes.io/instance-type": instance.InstanceType ?? "",
      "topology.kubernetes.io/zone": zone,
      "topology.kubernetes.io/region": zone.slice(0, -1),
      "karpenter.sh/capacity-type": instance.InstanceLifecycle === "spot" ? "spot" : "on-demand",
      "kubernetes.io/arch": instance.Architecture === "arm64" ? "arm64" : "amd64",
      "kubernetes.io/os": "linux",
      type: "kwok",
    };
    const taints = [UNREGISTERED, ...registration.taints.filter((t) => t.key !== UNREGISTERED.key)];
    try {
      await this.core.createNode({
        body: {
          metadata: { name, labels, annotations: { "kwok.x-k8s.io/node": "fake" } },
          spec: { providerID: `aws:///${zone}/${id}`, taints },
          status: { capacity: registration.capacity, allocatable: registration.allocatable },
        },
      });
    } catch (error) {
      if ((error as { code?: number }).code !== 409) throw error;
    }
    this.joinedIds.add(id);
    this.joined.push(id);
  }
}
