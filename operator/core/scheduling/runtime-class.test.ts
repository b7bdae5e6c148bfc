import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { admitRuntimeClass, runtimeClassesOf } from "./runtime-class.ts";
import { buildScenario, ScenarioError } from "./scenario.ts";
import { simulate } from "./simulate.ts";

type Obj = Record<string, unknown>;

const runtimeClass = (name: string, extra: Obj = {}): Obj => ({
  apiVersion: "node.k8s.io/v1",
  kind: "RuntimeClass",
  metadata: { name },
  handler: name,
  ...extra,
});

const kata = runtimeClass("kata", { overhead: { podFixed: { cpu: "2", memory: "160Mi" } } });
const windows = runtimeClass("windows", {
  scheduling: {
    nodeSelector: { "kubernetes.io/os": "windows" },
    tolerations: [{ key: "os", operator: "Equal", value: "windows", effect: "NoSchedule" }],
  },
});

const nodePool: Obj = {
  apiVersion: "karpenter.sh/v1",
  kind: "NodePool",
  metadata: { name: "default" },
  spec: {
    template: {
      spec: {
        nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
        requirements: [
          { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["c5"] },
          { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
        ],
      },
    },
  },
};

const podSpec = (extra: Obj = {}): Obj => ({
  containers: [{ name: "app", resources: { requests: { cpu: "1" } } }],
  ...extra,
});
const pod = (name: string, extra: Obj = {}): Obj => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "default" },
  spec: podSpec(extra),
});

describe("admitRuntimeClass", () => {
  const classes = runtimeClassesOf([kata, windows, runtimeClass("plain")]);
  const cases: { name: string; spec: Obj; want: Obj | RegExp }[] = [
    { name: "leaves a pod without runtimeClassName as it is", spec: podSpec(), want: podSpec() },
    {
      name: "sets the RuntimeClass's overhead.podFixed as the pod's overhead",
      spec: podSpec({ runtimeClassName: "kata" }),
      want: podSpec({ runtimeClassName: "kata", overhead: { cpu: "2", memory: "160Mi" } }),
    },
    {
      name: "accepts a pod that repeats its RuntimeClass's overhead in other units",
      spec: podSpec({ runtimeClassName: "kata", overhead: { cpu: "2000m", memory: "160Mi" } }),
      want: podSpec({ runtimeClassName: "kata", overhead: { cpu: "2", memory: "160Mi" } }),
    },
    {
      name: "rejects a pod whose overhead differs from its RuntimeClass's",
      spec: podSpec({ runtimeClassName: "kata", overhead: { cpu: "1" } }),
      want: /Overhead doesn't match RuntimeClass "kata"/,
    },
    {
      name: "rejects a pod whose RuntimeClass does not exist",
      spec: podSpec({ runtimeClassName: "gvisor" }),
      want: /"gvisor" not found/,
    },
    {
      name: "adds the RuntimeClass's nodeSelector and tolerations to the pod's",
      spec: podSpec({ runtimeClassName: "windows", nodeSelector: { app: "x" } }),
      want: podSpec({
        runtimeClassName: "windows",
        nodeSelector: { app: "x", "kubernetes.io/os": "windows" },
        tolerations: [{ key: "os", operator: "Equal", value: "windows", effect: "NoSchedule" }],
      }),
    },
    {
      name: "rejects a pod whose nodeSelector gives a RuntimeClass key another value",
      spec: podSpec({ runtimeClassName: "windows", nodeSelector: { "kubernetes.io/os": "linux" } }),
      want: /conflict: runtimeClass.scheduling.nodeSelector\[kubernetes.io\/os\] = windows/,
    },
    {
      name: "changes nothing for a RuntimeClass without overhead or scheduling",
      spec: podSpec({ runtimeClassName: "plain" }),
      want: podSpec({ runtimeClassName: "plain" }),
    },
  ];
  for (const { name, spec, want } of cases) {
    it(name, () => {
      if (want instanceof RegExp) assert.throws(() => admitRuntimeClass(spec, classes), want);
      else assert.deepEqual(admitRuntimeClass(spec, classes), want);
    });
  }
});

describe("RuntimeClass objects in kerf simulate scenarios", () => {
  const ec2NodeClass: Obj = {
    apiVersion: "karpenter.k8s.aws/v1",
    kind: "EC2NodeClass",
    metadata: { name: "default" },
    spec: {},
  };
  const plan = (docs: Obj[]) => {
    const scenario = buildScenario([nodePool, ec2NodeClass, ...docs], builtinCatalog());
    return { scenario, result: simulate(scenario.snapshot, scenario.pending) };
  };
  it("adds the RuntimeClass overhead to a pod's requests", () => {
    // Karpenter: scheduling/suite_test.go 'should take pod runtime class into consideration': 1 CPU requested plus
    // 2 CPUs of overhead no longer fit the type the pod alone would take.
    const { scenario, result } = plan([kata, pod("p", { runtimeClassName: "kata" })]);
    assert.equal(scenario.pending[0]?.requests["cpu"], 3000);
    assert.equal(result.newClaims[0]?.launch.instanceType, "c5.xlarge");
    assert.equal(plan([pod("p")]).result.newClaims[0]?.launch.instanceType, "c5.large");
  });
  it("adds the overhead to every replica of a Deployment and to a DaemonSet's pod", () => {
    const template = { metadata: { labels: { app: "a" } }, spec: podSpec({ runtimeClassName: "kata" }) };
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d" },
      spec: { replicas: 2, template },
    };
    const daemonSet = { apiVersion: "apps/v1", kind: "DaemonSet", metadata: { name: "ds" }, spec: { template } };
    const { scenario } = plan([kata, deployment, daemonSet]);
    assert.deepEqual(
      scenario.pending.map((p) => p.requests["cpu"]),
      [3000, 3000],
    );
    assert.equal(scenario.snapshot.daemonSets[0]?.pod.requests["cpu"], 3000);
    // The disruption what-if reads the DaemonSet objects: their template carries the overhead too.
    const kept = scenario.objects.daemonSets[0] as { spec: { template: { spec: { overhead?: unknown } } } };
    assert.deepEqual(kept.spec.template.spec.overhead, { cpu: "2", memory: "160Mi" });
  });
  it("keeps a pod bound to a node with its RuntimeClass overhead", () => {
    const bound = pod("b", { runtimeClassName: "kata", nodeName: "n1" });
    const allocatable = { cpu: "8", memory: "16Gi", pods: "110" };
    const node = { apiVersion: "v1", kind: "Node", metadata: { name: "n1" }, status: { allocatable } };
    const { scenario } = plan([kata, node, bound]);
    assert.equal(scenario.snapshot.nodes[0]?.pods[0]?.requests["cpu"], 3000);
  });
  it("puts the RuntimeClass's nodeSelector on the pod", () => {
    const { scenario } = plan([windows, pod("w", { runtimeClassName: "windows" })]);
    assert.deepEqual(scenario.pending[0]?.nodeSelector, { "kubernetes.io/os": "windows" });
  });
  it("names the pod whose RuntimeClass is missing", () => {
    const rejected = /Pod p: pod rejected: RuntimeClass "kata" not found/;
    assert.throws(
      () => plan([pod("p", { runtimeClassName: "kata" })]),
      (e: unknown) => e instanceof ScenarioError && e.document === 2 && rejected.test(e.message),
    );
  });
});
