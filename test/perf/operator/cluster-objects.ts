/**
 * Realistic Nodes and Pods for the operator benchmarks, and a bounded-concurrency writer. Nodes look
 * like kubelet-registered Karpenter nodes (well-known labels, capacity, conditions, addresses,
 * nodeInfo, an image list); Pods look like Deployment replicas bound to them and Running.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { rawRequest, RawApiError } from "../../harness/raw.ts";

/** An object as sent to the apiserver (JSON: timestamps are strings, which client-node's models do not allow). */
export interface Manifest {
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

const TYPES = [
  ["m5.large", "2", "7910348Ki"],
  ["m5.xlarge", "4", "15896264Ki"],
  ["c5.2xlarge", "8", "15896264Ki"],
  ["r5.large", "2", "15896264Ki"],
] as const;
const ZONES = ["us-east-1a", "us-east-1b", "us-east-1c"];

/** Node `i` of a fake fleet: what kubelet and Karpenter put on a real one. */
export function benchNode(i: number): Manifest {
  const [type, cpu, memory] = TYPES[i % TYPES.length] ?? TYPES[0];
  const zone = ZONES[i % ZONES.length] ?? "us-east-1a";
  const name = `ip-10-${Math.floor(i / 250)}-${i % 250}-${(i * 7) % 250}.ec2.internal`;
  const time = "2026-11-20T00:00:00Z";
  const condition = (type: string, status: string, reason: string) => ({
    type,
    status,
    reason,
    message: reason,
    lastHeartbeatTime: time,
    lastTransitionTime: time,
  });
  return {
    metadata: {
      name,
      labels: {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "node.kubernetes.io/instance-type": type,
        "topology.kubernetes.io/zone": zone,
        "topology.kubernetes.io/region": "us-east-1",
        "karpenter.sh/nodepool": "default",
        "karpenter.sh/capacity-type": i % 3 === 0 ? "spot" : "on-demand",
        "karpenter.sh/registered": "true",
        "karpenter.sh/initialized": "true",
        "karpenter.k8s.aws/instance-category": type[0] ?? "m",
        "karpenter.k8s.aws/instance-family": type.split(".")[0] ?? "",
        "karpenter.k8s.aws/instance-cpu": cpu,
        "karpenter.k8s.aws/ec2nodeclass": "default",
      },
      annotations: {
        "karpenter.sh/nodepool-hash": "4010951020068392240",
        "karpenter.sh/nodepool-hash-version": "v3",
        "node.alpha.kubernetes.io/ttl": "0",
      },
      finalizers: ["karpenter.sh/termination"],
    },
    spec: { providerID: `aws:///${zone}/i-${(0x10000000000 + i).toString(16).padStart(17, "0")}` },
    status: {
      capacity: {
        cpu,
        memory,
        pods: "110",
        "ephemeral-storage": "20959212Ki",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
      },
      allocatable: {
        cpu: `${Number(cpu) * 1000 - 80}m`,
        memory,
        pods: "110",
        "ephemeral-storage": "18242267924",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
      },
      conditions: [
        condition("MemoryPressure", "False", "KubeletHasSufficientMemory"),
        condition("DiskPressure", "False", "KubeletHasNoDiskPressure"),
        condition("PIDPressure", "False", "KubeletHasSufficientPID"),
        condition("Ready", "True", "KubeletReady"),
      ],
      addresses: [
        { type: "InternalIP", address: `10.${Math.floor(i / 250)}.${i % 250}.10` },
        { type: "Hostname", address: name },
        { type: "InternalDNS", address: name },
      ],
      nodeInfo: {
        machineID: "ec2d1f1e2bc04c5f9c1b7d3b1c0f4a2e",
        systemUUID: "ec2d1f1e-2bc0-4c5f-9c1b-7d3b1c0f4a2e",
        bootID: "0b6a7c4e-8f1d-4d2e-9a3b-5c6d7e8f9a0b",
        kernelVersion: "6.1.112-124.190.amzn2023.x86_64",
        osImage: "Amazon Linux 2023.6.20241031",
        containerRuntimeVersion: "containerd://1.7.22",
        kubeletVersion: "v1.36.4",
        kubeProxyVersion: "v1.36.4",
        operatingSystem: "linux",
        architecture: "amd64",
      },
      images: Array.from({ length: 8 }, (_, k) => ({
        names: [
          `602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/image-${k}@sha256:${"ab".repeat(32)}`,
          `602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/image-${k}:v1.${k}.0`,
        ],
        sizeBytes: 10_000_000 * (k + 1),
      })),
    },
  };
}

/** Pod `i`, a replica of one of 100 Deployments, bound to `nodeName`. */
export function benchPod(i: number, namespace: string, nodeName: string): Manifest {
  const app = `app-${i % 100}`;
  return {
    metadata: {
      name: `${app}-7d9f8c6b5-${i.toString(36).padStart(5, "0")}`,
      namespace,
      labels: { app, "pod-template-hash": "7d9f8c6b5", "app.kubernetes.io/part-of": "bench" },
      ownerReferences: [
        {
          apiVersion: "apps/v1",
          kind: "ReplicaSet",
          name: `${app}-7d9f8c6b5`,
          uid: "5b0f4a3e-7c1d-4e2f-8a9b-0c1d2e3f4a5b",
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      nodeName,
      containers: [
        {
          name: app,
          image: `registry.example.com/team/${app}:1.2.3`,
          ports: [{ containerPort: 8080, protocol: "TCP" }],
          resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "256Mi" } },
          env: [
            { name: "LOG_LEVEL", value: "info" },
            { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
          ],
          readinessProbe: { httpGet: { path: "/healthz", port: 8080 }, periodSeconds: 10 },
        },
      ],
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: "topology.kubernetes.io/zone",
          whenUnsatisfiable: "ScheduleAnyway",
          labelSelector: { matchLabels: { app } },
        },
      ],
    },
  };
}

/** The status a kubelet reports for a running pod. */
export function runningStatus(i: number): Record<string, unknown> {
  const time = "2026-11-20T00:00:00Z";
  return {
    phase: "Running",
    podIP: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
    hostIP: "10.0.0.10",
    startTime: time,
    qosClass: "Burstable",
    conditions: ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"].map(
      (type) => ({ type, status: "True", lastTransitionTime: time }),
    ),
    containerStatuses: [
      {
        name: `app-${i % 100}`,
        ready: true,
        started: true,
        restartCount: 0,
        image: `registry.example.com/team/app-${i % 100}:1.2.3`,
        imageID: `registry.example.com/team/app@sha256:${"cd".repeat(32)}`,
        containerID: `containerd://${"ef".repeat(32)}`,
        state: { running: { startedAt: time } },
      },
    ],
  };
}

/**
 * Runs `task()`, retrying 429, 5xx and connection errors a few times with a growing pause (a 409 on a
 * retry means the first try landed).
 */
async function withRetries(task: () => Promise<unknown>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await task();
      return;
    } catch (error) {
      const code = error instanceof RawApiError ? error.code : 0;
      if (code === 409 && attempt > 0) return;
      if (attempt >= 5 || (code !== 429 && code < 500 && code !== 0)) throw error;
      await new Promise((r) => setTimeout(r, 200 * (attempt + 1)));
    }
  }
}

/** Runs `task(i)` for i in [0, n) with at most `concurrency` in flight. */
export async function forEachConcurrently(
  n: number,
  concurrency: number,
  task: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) {
      const i = next++;
      await withRetries(() => task(i));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** POSTs `body` to `path` (JSON). */
export function create(kc: KubeConfig, path: string, body: unknown): Promise<unknown> {
  return rawRequest(kc, { method: "POST", path, body });
}

/** Merge-patches a pod's status subresource. */
export function patchPodStatus(kc: KubeConfig, namespace: string, name: string, status: unknown): Promise<unknown> {
  return rawRequest(kc, {
    method: "PATCH",
    path: `/api/v1/namespaces/${namespace}/pods/${name}/status`,
    body: { status },
    contentType: "application/merge-patch+json",
  });
}
