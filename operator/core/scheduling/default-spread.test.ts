import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../../policies/domain/catalog/catalog.ts";
import type { Pod } from "../lifecycle/objects.ts";
import { planProvisioning, type ClusterView } from "../provisioning/plan.ts";
import {
  DefaultSpread,
  parseSchedulerConfig,
  SchedulerConfigError,
  SYSTEM_DEFAULT_CONSTRAINTS,
  type SchedulerConfig,
} from "./default-spread.ts";
import { buildScenario } from "./scenario.ts";
import { simulate } from "./simulate.ts";

type Obj = Record<string, unknown>;

const zone = { maxSkew: 1, topologyKey: "topology.kubernetes.io/zone", whenUnsatisfiable: "DoNotSchedule" } as const;
const hostname = { maxSkew: 1, topologyKey: "kubernetes.io/hostname", whenUnsatisfiable: "DoNotSchedule" } as const;
const config = (...defaultConstraints: Obj[]): SchedulerConfig =>
  parseSchedulerConfig({ podTopologySpread: { defaultConstraints } });

describe("parseSchedulerConfig (Karpenter's ParseSchedulerConfiguration and validation)", () => {
  it("reads defaultConstraints, keeping minDomains and the node policies", () => {
    const c = config({ ...zone, minDomains: 3, nodeTaintsPolicy: "Honor" });
    assert.deepEqual(c.defaultConstraints, [{ ...zone, minDomains: 3, nodeTaintsPolicy: "Honor" }]);
  });
  it("reads an empty document, or one without podTopologySpread, as no defaults", () => {
    assert.deepEqual(parseSchedulerConfig(undefined).defaultConstraints, []);
    assert.deepEqual(parseSchedulerConfig({}).defaultConstraints, []);
  });
  it("gives kube-scheduler's system defaults for defaultingType System", () => {
    assert.deepEqual(
      parseSchedulerConfig({ podTopologySpread: { defaultingType: "System" } }).defaultConstraints,
      SYSTEM_DEFAULT_CONSTRAINTS,
    );
  });
  const bad: { name: string; doc: unknown; message: RegExp }[] = [
    {
      name: "a maxSkew of 0",
      doc: { podTopologySpread: { defaultConstraints: [{ ...zone, maxSkew: 0 }] } },
      message: /defaultConstraints\[0\]\.maxSkew must be greater than 0/,
    },
    {
      name: "no topologyKey",
      doc: { podTopologySpread: { defaultConstraints: [{ maxSkew: 1, whenUnsatisfiable: "DoNotSchedule" }] } },
      message: /\[0\]\.topologyKey must be set/,
    },
    {
      name: "a topologyKey that is no label name",
      doc: { podTopologySpread: { defaultConstraints: [{ ...zone, topologyKey: "zone key" }] } },
      message: /topologyKey "zone key" is not a valid label name/,
    },
    {
      name: "an unknown whenUnsatisfiable",
      doc: { podTopologySpread: { defaultConstraints: [{ ...zone, whenUnsatisfiable: "Sometimes" }] } },
      message: /whenUnsatisfiable "Sometimes" must be one of/,
    },
    {
      name: "a labelSelector",
      doc: { podTopologySpread: { defaultConstraints: [{ ...zone, labelSelector: { matchLabels: { a: "b" } } }] } },
      message: /labelSelector must not be set/,
    },
    {
      name: "matchLabelKeys",
      doc: { podTopologySpread: { defaultConstraints: [{ ...zone, matchLabelKeys: ["app"] }] } },
      message: /matchLabelKeys must not be set/,
    },
    {
      name: "two constraints on the same key and action",
      doc: { podTopologySpread: { defaultConstraints: [zone, { ...zone, maxSkew: 2 }] } },
      message: /\[1\] is a duplicate of \[0\]/,
    },
    {
      name: "an unknown field",
      doc: { podTopologySpread: { defaultConstraints: [{ ...zone, maxskew: 1 }] } },
      message: /unknown field "maxskew"/,
    },
    { name: "an unknown top-level field", doc: { profiles: [] }, message: /unknown field "profiles"/ },
    {
      name: "System with constraints of its own",
      doc: { podTopologySpread: { defaultingType: "System", defaultConstraints: [zone] } },
      message: /must be empty when defaultingType is System/,
    },
  ];
  for (const c of bad) {
    it(`refuses ${c.name}, naming the field`, () => {
      assert.throws(
        () => parseSchedulerConfig(c.doc),
        (e: Error) => e instanceof SchedulerConfigError && c.message.test(e.message),
      );
    });
  }
});

// Karpenter's defaultconstraints_test.go expectations (the test each case names), on plain objects.
describe("DefaultSpread deduces each pod's selector as kube-scheduler's helper.DefaultSelector", () => {
  const labels = { app: "web", tier: "front" };
  const rs = {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name: "web-1", namespace: "default" },
    spec: { selector: { matchLabels: { app: "web" } } },
  };
  const owner = (kind: string, name: string, apiVersion = "apps/v1", controller = true): Obj => ({
    apiVersion,
    kind,
    name,
    uid: `${kind}-${name}`,
    controller,
  });
  const pod = (meta: Obj = {}, spec: Obj = {}): Obj => ({
    metadata: { name: "p", namespace: "default", labels, ...meta },
    spec: { containers: [], ...spec },
  });
  const service = (name: string, selector: unknown, namespace = "default"): Obj => ({
    metadata: { name, namespace },
    spec: selector === undefined ? {} : { selector },
  });
  const selectorOf = (p: Obj, sources: ConstructorParameters<typeof DefaultSpread>[1], cfg = config(zone)): unknown => {
    const out = new DefaultSpread(cfg, sources).apply(p) as {
      spec: { topologySpreadConstraints?: { labelSelector: unknown }[] };
    };
    return out.spec.topologySpreadConstraints?.[0]?.labelSelector;
  };
  const cases: { name: string; pod: Obj; sources: ConstructorParameters<typeof DefaultSpread>[1]; want: unknown }[] = [
    {
      name: "should deduce a ReplicaSet's selector, not the pod's labels",
      pod: pod({ ownerReferences: [owner("ReplicaSet", "web-1")] }),
      sources: { replicaSets: [rs] },
      want: { matchExpressions: [{ key: "app", operator: "In", values: ["web"] }] },
    },
    {
      name: "should deduce a StatefulSet's selector and ignore the pod's volatile labels",
      pod: pod({
        labels: { ...labels, "statefulset.kubernetes.io/pod-name": "db-0" },
        ownerReferences: [owner("StatefulSet", "db")],
      }),
      sources: {
        statefulSets: [
          { metadata: { name: "db", namespace: "default" }, spec: { selector: { matchLabels: { app: "web" } } } },
        ],
      },
      want: { matchExpressions: [{ key: "app", operator: "In", values: ["web"] }] },
    },
    {
      name: "should carry a ReplicaSet's matchExpressions through verbatim",
      pod: pod({ ownerReferences: [owner("ReplicaSet", "web-1")] }),
      sources: {
        replicaSets: [
          { ...rs, spec: { selector: { matchExpressions: [{ key: "tier", operator: "NotIn", values: ["back"] }] } } },
        ],
      },
      want: { matchExpressions: [{ key: "tier", operator: "NotIn", values: ["back"] }] },
    },
    {
      name: "should deduce a ReplicationController's selector",
      pod: pod({ ownerReferences: [owner("ReplicationController", "web", "v1")] }),
      sources: {
        replicationControllers: [
          { metadata: { name: "web", namespace: "default" }, spec: { selector: { app: "web" } } },
        ],
      },
      want: { matchLabels: { app: "web" } },
    },
    {
      name: "should not deduce a selector from an unsupported owner kind",
      pod: pod({ ownerReferences: [owner("Job", "batch", "batch/v1")] }),
      sources: {},
      want: undefined,
    },
    {
      name: "should ignore a non-controller owner reference",
      pod: pod({ ownerReferences: [owner("ReplicaSet", "web-1", "apps/v1", false)] }),
      sources: { replicaSets: [rs] },
      want: undefined,
    },
    {
      name: "should tolerate an owner that no longer exists",
      pod: pod({ ownerReferences: [owner("ReplicaSet", "gone")] }),
      sources: { replicaSets: [rs] },
      want: undefined,
    },
    {
      name: "should deduce a selector from a matching service",
      pod: pod(),
      sources: { services: [service("web", { app: "web" })] },
      want: { matchLabels: { app: "web" } },
    },
    {
      name: "should merge the selectors of every matching service",
      pod: pod(),
      sources: { services: [service("a", { app: "web" }), service("b", { tier: "front" })] },
      want: { matchLabels: { app: "web", tier: "front" } },
    },
    {
      name: "should not deduce a selector from a non-matching service",
      pod: pod(),
      sources: { services: [service("db", { app: "db" })] },
      want: undefined,
    },
    {
      name: "should skip a service with a nil selector",
      pod: pod(),
      sources: { services: [service("external", undefined)] },
      want: undefined,
    },
    {
      name: "should contribute nothing for a service with an empty selector",
      pod: pod(),
      sources: { services: [service("all", {})] },
      want: undefined,
    },
    {
      name: "should ignore a matching service in another namespace",
      pod: pod(),
      sources: { services: [service("web", { app: "web" }, "other")] },
      want: undefined,
    },
    {
      name: "should combine a service selector with the owner's",
      pod: pod({ ownerReferences: [owner("ReplicaSet", "web-1")] }),
      sources: { services: [service("front", { tier: "front" })], replicaSets: [rs] },
      want: { matchLabels: { tier: "front" }, matchExpressions: [{ key: "app", operator: "In", values: ["web"] }] },
    },
    {
      name: "should let a ReplicationController's selector overwrite a conflicting service label",
      pod: pod({ labels: { app: "web" }, ownerReferences: [owner("ReplicationController", "web", "v1")] }),
      sources: {
        services: [service("web", { app: "web" })],
        replicationControllers: [
          { metadata: { name: "web", namespace: "default" }, spec: { selector: { app: "other" } } },
        ],
      },
      want: { matchLabels: { app: "other" } },
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(selectorOf(c.pod, c.sources), c.want));
  }

  it("should leave a pod that declares its own constraints untouched", () => {
    const own = pod(
      {},
      { topologySpreadConstraints: [{ ...hostname, maxSkew: 3, labelSelector: { matchLabels: labels } }] },
    );
    assert.equal(new DefaultSpread(config(zone), { services: [service("web", { app: "web" })] }).apply(own), own);
  });
  it("should be a no-op when no defaults are configured", () => {
    const p = pod();
    assert.equal(
      new DefaultSpread(parseSchedulerConfig({}), { services: [service("web", { app: "web" })] }).apply(p),
      p,
    );
  });
  it("should preserve the configured constraint fields on the injected copy", () => {
    const out = new DefaultSpread(
      config({ ...zone, minDomains: 2, nodeAffinityPolicy: "Ignore", nodeTaintsPolicy: "Honor" }),
      { services: [service("web", { app: "web" })] },
    ).apply(pod()) as { spec: { topologySpreadConstraints: unknown[] } };
    assert.deepEqual(out.spec.topologySpreadConstraints, [
      {
        ...zone,
        minDomains: 2,
        nodeAffinityPolicy: "Ignore",
        nodeTaintsPolicy: "Honor",
        labelSelector: { matchLabels: { app: "web" } },
      },
    ]);
  });
});

// Karpenter's topology_test.go "DefaultConstraints" context, as kerf simulate scenarios (a Deployment's
// pods are controlled by its ReplicaSet, whose selector the default's is deduced from).
describe("default topology spread constraints in the simulation (issue 22 item 9)", () => {
  const nodeClass = {
    apiVersion: "karpenter.k8s.aws/v1",
    kind: "EC2NodeClass",
    metadata: { name: "default" },
    spec: { amiSelectorTerms: [{ alias: "al2023@latest" }] },
  };
  const nodePool = (zones: string[]): Obj => ({
    apiVersion: "karpenter.sh/v1",
    kind: "NodePool",
    metadata: { name: "default" },
    spec: {
      template: {
        spec: {
          nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
          requirements: [
            { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["m5"] },
            { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
            { key: "topology.kubernetes.io/zone", operator: "In", values: zones },
          ],
        },
      },
    },
  });
  const deployment = (replicas: number, spec: Obj = {}): Obj => ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "default" },
    spec: {
      replicas,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: {
          containers: [{ name: "app", resources: { requests: { cpu: "100m" } } }],
          ...spec,
        },
      },
    },
  });
  const zones3 = ["us-east-1a", "us-east-1b", "us-east-1c"];
  const plan = (docs: Obj[], cfg?: SchedulerConfig): ReturnType<typeof simulate> => {
    const s = buildScenario([nodeClass, ...docs], builtinCatalog(), new Date(0), { schedulerConfig: cfg });
    return simulate(s.snapshot, s.pending);
  };
  const perZone = (r: ReturnType<typeof simulate>): number[] => {
    const counts = new Map<string, number>();
    for (const c of r.newClaims) counts.set(c.launch.zone, (counts.get(c.launch.zone) ?? 0) + c.pods.length);
    return [...counts.values()].sort();
  };

  it("should apply default zonal spread to a pod that declares no constraints of its own", () => {
    assert.deepEqual(perZone(plan([nodePool(zones3), deployment(4)], config(zone))), [1, 1, 2]);
    assert.deepEqual(perZone(plan([nodePool(zones3), deployment(4)])), [4], "without defaults, one node takes all");
  });
  it("should apply default hostname spread to a pod that declares no constraints of its own", () => {
    assert.deepEqual(
      plan([nodePool(zones3), deployment(3)], config(hostname)).newClaims.map((c) => c.pods.length),
      [1, 1, 1],
    );
  });
  it("should NOT apply the default to a pod that declares its own constraints", () => {
    const own = {
      topologySpreadConstraints: [{ ...hostname, maxSkew: 3, labelSelector: { matchLabels: { app: "web" } } }],
    };
    assert.deepEqual(
      plan([nodePool(zones3), deployment(3, own)], config(hostname)).newClaims.map((c) => c.pods.length),
      [3],
    );
  });
  it("should carry minDomains through a synthesized default", () => {
    const r = plan([nodePool(["us-east-1a", "us-east-1b"]), deployment(3)], config({ ...zone, minDomains: 3 }));
    assert.deepEqual(perZone(r), [1, 1]);
    assert.equal(r.podErrors.length, 1);
  });
  it("should NOT schedule past a synthesized DoNotSchedule default that can't be satisfied", () => {
    const r = plan([nodePool(["us-east-1a"]), deployment(3)], config({ ...zone, minDomains: 3 }));
    assert.equal(
      r.newClaims.reduce((n, c) => n + c.pods.length, 0),
      1,
    );
  });
  it("should relax a synthesized ScheduleAnyway default when it can't be satisfied", () => {
    const r = plan(
      [nodePool(["us-east-1a"]), deployment(3)],
      config({ ...zone, whenUnsatisfiable: "ScheduleAnyway", minDomains: 3 }),
    );
    assert.equal(
      r.newClaims.reduce((n, c) => n + c.pods.length, 0),
      3,
    );
  });
  it("leaves a pod no Service or controller selects unconstrained (an empty selector would select every pod)", () => {
    const bare = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "lone", namespace: "default", labels: { app: "web" } },
      spec: { containers: [{ name: "a", resources: { requests: { cpu: "100m" } } }] },
    };
    const pods = ["a", "b", "c"].map((n) => ({ ...bare, metadata: { ...bare.metadata, name: n } }));
    assert.equal(plan([nodePool(zones3), ...pods], config(hostname)).newClaims.length, 1);
    const svc = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", namespace: "default" },
      spec: { selector: { app: "web" } },
    };
    assert.equal(
      plan([nodePool(zones3), svc, ...pods], config(hostname)).newClaims.length,
      3,
      "a Service selecting them gives them a selector",
    );
  });
});

describe("the operator's provisioning applies --scheduler-config's defaults (issue 22 item 9)", () => {
  it("spreads a ReplicaSet's pending pods one per node under a hostname default, and not without it", () => {
    const pool = {
      metadata: { name: "default" },
      status: { conditions: [{ type: "Ready", status: "True" }] },
      spec: {
        template: {
          spec: {
            nodeClassRef: { name: "default" },
            requirements: [
              { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["m5"] },
              { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
            ],
          },
        },
      },
    };
    const replicaSet = {
      metadata: { name: "web-1", namespace: "default" },
      spec: { selector: { matchLabels: { app: "web" } } },
    };
    const pods = [1, 2, 3].map((i) => ({
      metadata: {
        name: `web-1-${i}`,
        namespace: "default",
        uid: `u${i}`,
        labels: { app: "web" },
        ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "web-1", uid: "rs", controller: true }],
      },
      spec: { containers: [{ name: "a", resources: { requests: { cpu: "100m" } } }] },
    }));
    const cluster = {
      nodePools: [pool],
      nodes: [],
      nodeClaims: [],
      pods,
      daemonSets: [],
      replicaSets: [replicaSet],
    } as unknown as ClusterView;
    const instanceTypes = new Map([["default", toInstanceTypes(builtinCatalog(), {})]]);
    const input = { cluster, pending: pods as unknown as Pod[], instanceTypes };
    assert.equal(planProvisioning({ ...input, options: { schedulerConfig: config(hostname) } }).claims.length, 3);
    assert.equal(planProvisioning(input).claims.length, 1);
  });
});
