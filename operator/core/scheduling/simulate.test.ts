import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../../policies/domain/catalog/catalog.ts";
import { simPodFromSpec } from "./pod-spec.ts";
import { simulate } from "./simulate.ts";
import type { NodePoolView, SimPod } from "./types.ts";

const catalogTypes = toInstanceTypes(builtinCatalog());
const GI = 2 ** 30;

function pool(overrides: Partial<NodePoolView> = {}): NodePoolView {
  return {
    name: "default",
    weight: 0,
    labels: {},
    taints: [],
    startupTaints: [],
    requirements: [],
    instanceTypes: catalogTypes,
    ...overrides,
  };
}

const inflatePool = pool({
  requirements: [
    { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
    { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["c5", "m5", "r5"] },
  ],
});

function pods(
  n: number,
  spec: Record<string, unknown> = {},
  labels: Record<string, string> = { app: "inflate" },
  name = "inflate",
): SimPod[] {
  const base = { containers: [{ resources: { requests: { memory: "1Gi" } } }] };
  return Array.from({ length: n }, (_, i) =>
    simPodFromSpec(
      { labels },
      { ...base, ...spec },
      { name: `${name}-${i}`, namespace: "default", uid: `${name}-${i}`, creationOrder: i },
    ),
  );
}

describe("the EKS workshop inflate walkthrough", () => {
  const run = (n: number) => simulate({ nodes: [], nodePools: [inflatePool], daemonSets: [] }, pods(n));
  it("puts 5 replicas on one m5.large: the cheapest type whose allocatable memory holds five 1Gi pods", () => {
    const result = run(5);
    assert.equal(result.podErrors.length, 0);
    assert.deepEqual(
      result.newClaims.map((c) => c.launch.instanceType),
      ["m5.large"],
    );
    // c5.large ($0.085) has 3,110 MiB allocatable: only 3 pods; m5.large ($0.096) has 6,903 MiB.
    assert.equal(result.newClaims[0]?.launch.capacityType, "on-demand");
  });
  it("puts 1 replica alone on the cheaper c5.large", () => {
    assert.deepEqual(
      run(1).newClaims.map((c) => [c.launch.instanceType, c.launch.pricePerHour]),
      [["c5.large", 0.085]],
    );
  });
  it("puts 12 replicas on one r5.large, cheaper in total than any split", () => {
    // 12 Gi fits r5.large's ~14 GiB allocatable for $0.126/h; the cheapest split (m5.large + m5.large
    // at $0.192, or m5.large + c5.large at $0.181 for 7 + 5... which does not fit) costs more.
    const result = run(12);
    assert.deepEqual(
      result.newClaims.map((c) => [c.launch.instanceType, c.pods.length]),
      [["r5.large", 12]],
    );
    // The cheaper of one r5.large ($0.126) or two m5.large ($0.096 each), to the cent of the catalog.
    assert.equal(
      result.newClaims.reduce((s, c) => s + c.launch.pricePerHour, 0),
      Math.min(0.126, 2 * 0.096),
    );
  });
});

describe("constraints", () => {
  const cases: {
    name: string;
    pool?: Partial<NodePoolView>;
    spec?: Record<string, unknown>;
    n?: number;
    expect: (r: ReturnType<typeof simulate>) => void;
  }[] = [
    {
      name: "honours a nodeSelector on arch",
      spec: { nodeSelector: { "kubernetes.io/arch": "arm64" } },
      expect: (r) =>
        assert.equal(
          r.newClaims[0]?.instanceTypes.every((t) => t.labels["kubernetes.io/arch"] === "arm64"),
          true,
        ),
    },
    {
      name: "normalises a beta nodeSelector key",
      spec: { nodeSelector: { "beta.kubernetes.io/arch": "arm64" } },
      expect: (r) => assert.equal(r.newClaims[0]?.instanceTypes[0]?.labels["kubernetes.io/arch"], "arm64"),
    },
    {
      name: "uses the first required node-affinity term, relaxing to the next when it fails",
      spec: {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchExpressions: [{ key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["nope"] }] },
                { matchExpressions: [{ key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["t3"] }] },
              ],
            },
          },
        },
      },
      expect: (r) => assert.equal(r.newClaims[0]?.instanceTypes[0]?.labels["karpenter.k8s.aws/instance-family"], "t3"),
    },
    {
      name: "treats preferred node affinity as required while it can be met",
      spec: {
        affinity: {
          nodeAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 10,
                preference: {
                  matchExpressions: [{ key: "topology.kubernetes.io/zone", operator: "In", values: ["us-east-1c"] }],
                },
              },
            ],
          },
        },
      },
      expect: (r) => assert.equal(r.newClaims[0]?.launch.zone, "us-east-1c"),
    },
    {
      name: "drops an unsatisfiable preferred node affinity",
      spec: {
        affinity: {
          nodeAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 1,
                preference: { matchExpressions: [{ key: "kubernetes.io/arch", operator: "In", values: ["s390x"] }] },
              },
            ],
          },
        },
      },
      expect: (r) => assert.equal(r.podErrors.length, 0),
    },
    {
      name: "refuses a pool whose taint the pod does not tolerate",
      pool: { taints: [{ key: "gpu", value: "true", effect: "NoSchedule" }] },
      expect: (r) => assert.match(r.podErrors[0]?.reason ?? "", /taint gpu:NoSchedule/),
    },
    {
      name: "accepts a pool taint the pod tolerates",
      pool: { taints: [{ key: "gpu", value: "true", effect: "NoSchedule" }] },
      spec: { tolerations: [{ key: "gpu", operator: "Exists" }] },
      expect: (r) => assert.equal(r.podErrors.length, 0),
    },
    {
      name: "ignores startup taints",
      pool: { startupTaints: [{ key: "init", effect: "NoSchedule" }] },
      expect: (r) => assert.equal(r.podErrors.length, 0),
    },
    {
      name: "spreads 6 pods over 6 zones with a zonal spread",
      n: 6,
      spec: {
        topologySpreadConstraints: [
          {
            maxSkew: 1,
            topologyKey: "topology.kubernetes.io/zone",
            whenUnsatisfiable: "DoNotSchedule",
            labelSelector: { matchLabels: { app: "inflate" } },
          },
        ],
      },
      expect: (r) => assert.equal(new Set(r.newClaims.map((c) => c.launch.zone)).size, r.newClaims.length),
    },
    {
      name: "gives each pod its own node with hostname anti-affinity",
      n: 4,
      spec: {
        affinity: {
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { topologyKey: "kubernetes.io/hostname", labelSelector: { matchLabels: { app: "inflate" } } },
            ],
          },
        },
      },
      expect: (r) => assert.equal(r.newClaims.length, 4),
    },
    {
      name: "keeps self-affine pods in one zone",
      n: 30,
      spec: {
        affinity: {
          podAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { topologyKey: "topology.kubernetes.io/zone", labelSelector: { matchLabels: { app: "inflate" } } },
            ],
          },
        },
      },
      expect: (r) => assert.equal(new Set(r.newClaims.map((c) => c.launch.zone)).size, 1),
    },
    {
      name: "allows two pods per node with a hostname spread of maxSkew 2",
      n: 4,
      spec: {
        topologySpreadConstraints: [
          {
            maxSkew: 2,
            topologyKey: "kubernetes.io/hostname",
            whenUnsatisfiable: "DoNotSchedule",
            labelSelector: { matchLabels: { app: "inflate" } },
          },
        ],
      },
      expect: (r) =>
        assert.deepEqual(
          r.newClaims.map((c) => c.pods.length),
          [2, 2],
        ),
    },
    {
      name: "never puts two pods with the same hostPort on one node",
      n: 3,
      spec: {
        containers: [{ resources: { requests: { memory: "1Gi" } }, ports: [{ containerPort: 80, hostPort: 8080 }] }],
      },
      expect: (r) => assert.equal(r.newClaims.length, 3),
    },
    {
      name: "stops at the NodePool's node limit",
      n: 3,
      pool: { limits: { nodes: 2 } },
      spec: {
        affinity: {
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { topologyKey: "kubernetes.io/hostname", labelSelector: { matchLabels: { app: "inflate" } } },
            ],
          },
        },
      },
      expect: (r) => {
        assert.equal(r.newClaims.length, 2);
        assert.match(r.podErrors[0]?.reason ?? "", /exceed its limits/);
      },
    },
    {
      name: "blames the pod's needs, not spent limits, when no instance type of the pool could ever hold it",
      pool: {
        limits: { nodes: 0 },
        requirements: [{ key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["m5"] }],
      },
      spec: { containers: [{ resources: { requests: { memory: "1Gi", "nvidia.com/gpu": "1" } } }] },
      expect: (r) =>
        assert.match(r.podErrors[0]?.reason ?? "", /^no instance type in NodePool default has 1 nvidia\.com\/gpu/),
    },
    {
      name: "blames spent limits for a pod a type of the pool could hold",
      pool: { limits: { nodes: 0 } },
      expect: (r) => assert.match(r.podErrors[0]?.reason ?? "", /exceed its limits/),
    },
    {
      name: "filters types above the NodePool's cpu limit",
      pool: { limits: { cpu: 4000 } },
      expect: (r) => assert.ok(r.newClaims[0]!.instanceTypes.every((t) => (t.capacity["cpu"] ?? 0) <= 4000)),
    },
    {
      name: "counts init containers, sidecars and overhead in requests",
      spec: {
        containers: [{ resources: { requests: { cpu: "1" } } }],
        initContainers: [
          { resources: { requests: { cpu: "3" } } },
          { restartPolicy: "Always", resources: { requests: { cpu: "1" } } },
        ],
        overhead: { cpu: "500m" },
      },
      expect: (r) => assert.equal(r.newClaims[0]?.requests["cpu"], 3500),
    },
    {
      name: "names the resource no instance type has",
      spec: {
        nodeSelector: { "kubernetes.io/arch": "arm64" },
        containers: [{ resources: { requests: { "nvidia.com/gpu": "8" } } }],
      },
      pool: { name: "gpu" },
      expect: (r) =>
        assert.equal(r.podErrors[0]?.reason, "no instance type in NodePool gpu has 8 nvidia.com/gpu with arch arm64"),
    },
    {
      name: "fails a custom label no pool defines",
      spec: { nodeSelector: { team: "a" } },
      expect: (r) => assert.match(r.podErrors[0]?.reason ?? "", /label "team" does not have known values/),
    },
    {
      name: "accepts a custom label the pool template sets",
      spec: { nodeSelector: { team: "a" } },
      pool: { labels: { team: "a" } },
      expect: (r) => assert.equal(r.podErrors.length, 0),
    },
    {
      name: "meets minValues across instance families",
      pool: {
        requirements: [
          { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["c5", "m5", "r5"], minValues: 3 },
        ],
      },
      expect: (r) =>
        assert.equal(
          new Set(r.newClaims[0]?.instanceTypes.map((t) => t.labels["karpenter.k8s.aws/instance-family"])).size,
          3,
        ),
    },
  ];
  for (const c of cases) {
    it(c.name, () =>
      c.expect(simulate({ nodes: [], nodePools: [pool(c.pool)], daemonSets: [] }, pods(c.n ?? 1, c.spec ?? {}))),
    );
  }
});

describe("existing nodes, weights and daemonsets", () => {
  const node = {
    name: "n1",
    labels: { "kubernetes.io/hostname": "n1", "topology.kubernetes.io/zone": "us-east-1a" },
    taints: [],
    allocatable: { cpu: 2000, memory: 4 * GI, pods: 10 },
    pods: [],
  };
  it("uses an existing node before launching", () => {
    const r = simulate({ nodes: [node], nodePools: [pool()], daemonSets: [] }, pods(3));
    assert.deepEqual([r.newClaims.length, r.existingPlacements.length], [0, 3]);
  });
  it("launches for what does not fit the existing node", () => {
    const r = simulate({ nodes: [node], nodePools: [pool()], daemonSets: [] }, pods(6));
    assert.equal(r.existingPlacements.length, 4);
    assert.equal(
      r.newClaims.reduce((s, c) => s + c.pods.length, 0),
      2,
    );
  });
  it("tries NodePools by weight", () => {
    const r = simulate(
      { nodes: [], nodePools: [pool({ name: "low", weight: 1 }), pool({ name: "high", weight: 50 })], daemonSets: [] },
      pods(1),
    );
    assert.equal(r.newClaims[0]?.nodePool, "high");
  });
  it("sizes nodes for DaemonSet overhead", () => {
    const ds = pods(1, { containers: [{ resources: { requests: { memory: "3Gi" } } }] }, { app: "ds" }, "ds")[0]!;
    const r = simulate({ nodes: [], nodePools: [inflatePool], daemonSets: [{ name: "ds", pod: ds }] }, pods(1));
    assert.notEqual(r.newClaims[0]?.launch.instanceType, "c5.large");
  });
  it("counts pods on existing nodes for anti-affinity", () => {
    const running = pods(1, {}, { app: "inflate" }, "running")[0]!;
    const spec = {
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { topologyKey: "kubernetes.io/hostname", labelSelector: { matchLabels: { app: "inflate" } } },
          ],
        },
      },
    };
    const r = simulate({ nodes: [{ ...node, pods: [running] }], nodePools: [pool()], daemonSets: [] }, pods(1, spec));
    assert.equal(r.existingPlacements.length, 0);
    assert.equal(r.newClaims.length, 1);
  });
  it("reports pods that fit nowhere when no new node may launch", () => {
    const r = simulate({ nodes: [node], nodePools: [pool()], daemonSets: [] }, pods(6), { maxNewClaims: 0 });
    assert.equal(r.podErrors.length, 2);
  });
});
