import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../../policies/domain/catalog/catalog.ts";
import { podRequests, simPodFromSpec } from "./pod-spec.ts";
import { simulate } from "./simulate.ts";
import type { NodePoolView } from "./types.ts";

const GI = 2 ** 30;
const MI = 2 ** 20;

/** A container with the given `resources` (requests and/or limits). */
const c = (resources: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  resources,
  ...extra,
});

describe("podRequests", () => {
  // Each case: a pod spec and the requests the scheduler must see (cpu in millicores, memory in bytes, one pod slot).
  const cases: { name: string; spec: Record<string, unknown>; want: Record<string, number> }[] = [
    {
      // Karpenter: scheduling/suite_test.go 'should exclude instance types that are not supported by the provider
      // constraints (arch)' sizes a pod that sets only limits (cpu 14) by them.
      name: "takes a container's limits as its requests when it sets no requests",
      spec: { containers: [c({ limits: { cpu: "14" } })] },
      want: { cpu: 14000, pods: 1 },
    },
    {
      // Karpenter: utils/daemonset/suite_test.go 'should merge resource limits into requests if no requests exists for
      // the given container'.
      name: "keeps a request and fills only the resources that have a limit and no request",
      spec: { containers: [c({ requests: { cpu: "750m" }, limits: { cpu: "1", memory: "1000Mi" } })] },
      want: { cpu: 750, memory: 1000 * MI, pods: 1 },
    },
    {
      name: "defaults init containers from their limits too",
      spec: {
        containers: [c({ requests: { cpu: "1" } })],
        initContainers: [c({ limits: { cpu: "3", memory: "3Gi" } })],
      },
      want: { cpu: 3000, memory: 3 * GI, pods: 1 },
    },
    {
      name: "defaults sidecars (restartPolicy Always) from their limits and adds them to the containers",
      spec: {
        containers: [c({ requests: { cpu: "1" } })],
        initContainers: [c({ limits: { cpu: "500m" } }, { restartPolicy: "Always" })],
      },
      want: { cpu: 1500, pods: 1 },
    },
    {
      // Karpenter: scheduling/suite_test.go 'should launch pods with resources that aren't on any single instance type
      // on different instances' (GPUs given as limits only).
      name: "defaults extended resources from their limits",
      spec: { containers: [c({ limits: { "nvidia.com/gpu": "1" } })] },
      want: { "nvidia.com/gpu": 1, pods: 1 },
    },
    {
      // Karpenter: provisioning/suite_test.go 'should be able to schedule pods if resource requests and limits are not
      // defined'.
      name: "is one pod slot for a pod without requests or limits",
      spec: { containers: [{}] },
      want: { pods: 1 },
    },
    {
      // Kubernetes PodLevelResources (1.32+): resourcehelper.PodRequests, which Karpenter's resources.Ceiling calls.
      name: "takes pod-level requests instead of the containers' sum for cpu and memory",
      spec: {
        resources: { requests: { cpu: "4", memory: "8Gi" } },
        containers: [c({ requests: { cpu: "1", memory: "1Gi" } }), c({ requests: { cpu: "1" } })],
      },
      want: { cpu: 4000, memory: 8 * GI, pods: 1 },
    },
    {
      name: "keeps the containers' sum for a resource the pod-level requests leave out",
      spec: { resources: { requests: { cpu: "4" } }, containers: [c({ requests: { cpu: "1", memory: "1Gi" } })] },
      want: { cpu: 4000, memory: GI, pods: 1 },
    },
    {
      name: "ignores pod-level requests of resources pod-level resources do not support",
      spec: {
        resources: { requests: { "nvidia.com/gpu": "2" } },
        containers: [c({ requests: { "nvidia.com/gpu": "1" } })],
      },
      want: { "nvidia.com/gpu": 1, pods: 1 },
    },
    {
      // The apiserver's defaultPodRequests: a pod-level limit stands in for the request where no container requests it.
      name: "takes a pod-level limit as the pod's request when no container requests that resource",
      spec: { resources: { limits: { cpu: "2", memory: "4Gi" } }, containers: [c({ requests: { memory: "1Gi" } })] },
      want: { cpu: 2000, memory: GI, pods: 1 },
    },
    {
      name: "takes pod-level requests over the init containers' peak",
      spec: {
        resources: { requests: { cpu: "2" } },
        containers: [c({ requests: { cpu: "1" } })],
        initContainers: [c({ requests: { cpu: "8" } })],
      },
      want: { cpu: 2000, pods: 1 },
    },
    {
      name: "adds the overhead to pod-level requests",
      spec: { resources: { requests: { cpu: "2" } }, overhead: { cpu: "250m" }, containers: [c({})] },
      want: { cpu: 2250, pods: 1 },
    },
  ];
  for (const { name, spec, want } of cases) it(name, () => assert.deepEqual(podRequests(spec), want));
});

describe("requests defaulted from limits in the simulation", () => {
  const catalogTypes = toInstanceTypes(builtinCatalog());
  const c5: NodePoolView = {
    name: "default",
    weight: 0,
    labels: {},
    taints: [],
    startupTaints: [],
    instanceTypes: catalogTypes,
    requirements: [
      { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["c5"] },
      { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
    ],
  };
  const pod = (name: string, spec: Record<string, unknown>) =>
    simPodFromSpec({}, spec, { name, namespace: "default", uid: name });
  it("sizes the node for a pod that sets only limits", () => {
    // Without its limits as requests the pod would fit the cheapest c5.large (2 vCPU); 3 CPUs need a c5.xlarge.
    const p = pod("p", { containers: [c({ limits: { cpu: "3" } })] });
    const r = simulate({ nodes: [], nodePools: [c5], daemonSets: [] }, [p]);
    assert.equal(r.podErrors.length, 0);
    assert.equal(r.newClaims[0]?.launch.instanceType, "c5.xlarge");
  });
  it("counts a DaemonSet that sets only limits as overhead on the new node", () => {
    // Karpenter: provisioning/suite_test.go 'should not schedule if resource requests are not defined and limits
    // (requests) are too large': the DaemonSet's limits are its requests, so no type holds it beside the pod.
    const ds = pod("ds", { containers: [c({ requests: { cpu: "1" }, limits: { cpu: "10000", memory: "10000Gi" } })] });
    const p = pod("p", { containers: [c({ requests: { cpu: "100m" } })] });
    const r = simulate({ nodes: [], nodePools: [c5], daemonSets: [{ name: "ds", pod: ds }] }, [p]);
    assert.equal(r.newClaims.length, 0);
    assert.equal(r.podErrors.length, 1);
  });
});
