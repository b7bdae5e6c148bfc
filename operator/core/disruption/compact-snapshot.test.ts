import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../../policies/domain/catalog/catalog.ts";
import { consolidate } from "../consolidation/questions.ts";
import { simPodFromSpec } from "../scheduling/pod-spec.ts";
import type { ExistingNode, NodePoolView, SimPod, Snapshot } from "../scheduling/types.ts";
import { CompactSnapshot } from "./compact-snapshot.ts";

const GI = 2 ** 30;
const pool: NodePoolView = {
  name: "default",
  weight: 0,
  labels: {},
  taints: [],
  startupTaints: [],
  instanceTypes: toInstanceTypes(builtinCatalog(), { zones: new Set(["us-east-1a", "us-east-1b"]) }),
  requirements: [
    { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
    { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["c5", "m5", "r5"] },
  ],
};

let uid = 0;
function pod(app: string, memory: string, spec: Record<string, unknown> = {}): SimPod {
  const name = `${app}-${uid++}`;
  return simPodFromSpec(
    { labels: { app } },
    {
      containers: [{ resources: { requests: { memory } }, ...(spec["container"] as object) }],
      ...spec,
      container: undefined,
    },
    { name, namespace: "default", uid: name },
  );
}

function node(name: string, zone: string, memGi: number, pods: SimPod[]): ExistingNode {
  return {
    name,
    labels: { "kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone, "karpenter.sh/nodepool": "default" },
    taints: [],
    allocatable: { cpu: 8000, memory: memGi * GI, pods: 50 },
    pods,
    nodePool: "default",
    pricePerHour: 0.05,
  };
}

const spreadWeb = {
  topologySpreadConstraints: [
    {
      maxSkew: 1,
      topologyKey: "topology.kubernetes.io/zone",
      whenUnsatisfiable: "DoNotSchedule",
      labelSelector: { matchLabels: { app: "web" } },
    },
  ],
};
const antiWeb = {
  affinity: {
    podAntiAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [
        { topologyKey: "kubernetes.io/hostname", labelSelector: { matchLabels: { app: "web" } } },
      ],
    },
  },
};
const port = { container: { ports: [{ containerPort: 80, hostPort: 8080 }] } };
const dbTerm = {
  topologyKey: "kubernetes.io/hostname",
  labelSelector: { matchLabels: { app: "db" } },
  namespaceSelector: {},
};
const withDbAnywhere = { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [dbTerm] } } };
const dbInData = (): SimPod => {
  const name = `db-${uid++}`;
  const spec = { containers: [{ resources: { requests: { memory: "1Gi" } } }] };
  return simPodFromSpec({ labels: { app: "db" } }, spec, { name, namespace: "data", uid: name });
};

// Each case: candidate "c" moves; node "a" has room, and what it runs decides whether c's pod may go there.
const cases: { why: string; a: SimPod[]; c: SimPod[]; want: string }[] = [
  {
    why: "plain pods fold into the reserved pod and the move still fits",
    a: [pod("batch", "1Gi"), pod("batch", "1Gi")],
    c: [pod("web", "1Gi")],
    want: "delete",
  },
  {
    why: "pods a moving pod's zone spread counts stay visible",
    a: [pod("web", "1Gi", spreadWeb), pod("web", "1Gi", spreadWeb)],
    c: [pod("web", "1Gi", spreadWeb)],
    want: "none",
  },
  {
    why: "a staying pod's required anti-affinity stays visible",
    a: [pod("guard", "1Gi", antiWeb)],
    c: [pod("web", "1Gi")],
    want: "none",
  },
  {
    why: "a staying pod's host port stays visible",
    a: [pod("proxy", "1Gi", port)],
    c: [pod("web", "1Gi", port)],
    want: "none",
  },
  {
    why: "pods of another namespace a moving pod's namespaceSelector selects stay visible",
    a: [dbInData()],
    c: [pod("web", "1Gi", withDbAnywhere)],
    want: "delete",
  },
];

/**
 * Web pods spread over zones: one on "a" (zone a), one on "b2" (zone b); "c" is full and alone in
 * zone c, which no NodePool offers.
 */
function spreadOverThreeZones(): Snapshot {
  return {
    nodes: [
      node("a", "us-east-1a", 32, [pod("web", "1Gi", spreadWeb)]),
      node("b2", "us-east-1b", 32, [pod("web", "1Gi", spreadWeb)]),
      node("c", "us-east-1c", 2, [pod("filler", "1500Mi")]),
      node("cand", "us-east-1b", 32, [pod("web", "1Gi", spreadWeb)]),
    ],
    nodePools: [pool],
    daemonSets: [],
  };
}

void describe("the compact snapshot of a disruption pass", () => {
  void it("leaves out nodes with no room for the moving pods, but keeps their topology domains", () => {
    const full = spreadOverThreeZones();
    const cand = full.nodes[3]!;
    const compact = new CompactSnapshot(full).forCandidates(new Set(["cand"]), cand.pods);
    const want = consolidate(full, ["cand"]);
    assert.equal(
      want.decision,
      "none",
      "zone c (no web pod) is a spread domain: a second web pod in zone a or b would skew by 2",
    );
    assert.deepEqual(consolidate(compact, ["cand"]), want);
    const noSpread = {
      ...full,
      nodes: full.nodes.map((n) => ({ ...n, pods: n.pods.map((p) => ({ ...p, spread: [] })) })),
    };
    const names = new CompactSnapshot(noSpread)
      .forCandidates(new Set(["cand"]), noSpread.nodes[3]!.pods)
      .nodes.map((n) => n.name);
    assert.deepEqual(names, ["a", "b2", "cand"], "without a topology key, the full node c is left out");
  });

  void it("keeps a full node of each kind a moving pod's spread filter tells apart in a domain", () => {
    // Web pods need team=x and spread over zones: zone c counts only through node "cx" (nodeAffinityPolicy
    // Honor), so the full node "cy" of zone c, listed first, must not stand in for it.
    const web = (): SimPod => pod("web", "1Gi", { ...spreadWeb, nodeSelector: { team: "x" } });
    const ofTeam = (team: string, n: ExistingNode): ExistingNode => ({ ...n, labels: { ...n.labels, team } });
    const filler = (): SimPod[] => [pod("filler", "1500Mi")];
    const full: Snapshot = {
      nodes: [
        ofTeam("x", node("a", "us-east-1a", 32, [web()])),
        ofTeam("x", node("b2", "us-east-1b", 32, [web()])),
        ofTeam("y", node("cy", "us-east-1c", 2, filler())),
        ofTeam("x", node("cx", "us-east-1c", 2, filler())),
        ofTeam("x", node("cand", "us-east-1b", 32, [web()])),
      ],
      nodePools: [{ ...pool, labels: { team: "x" } }],
      daemonSets: [],
    };
    const want = consolidate(full, ["cand"]);
    assert.equal(want.decision, "none", "zone c (no web pod) is a spread domain through cx");
    const compact = new CompactSnapshot(full).forCandidates(new Set(["cand"]), full.nodes[4]!.pods);
    assert.deepEqual(consolidate(compact, ["cand"]), want);
  });

  void it("answers every consolidation question as the full snapshot does", () => {
    for (const c of cases) {
      // "b" is the only other node in zone b, full, so zone b keeps c's pod only if a replacement launches there.
      const full: Snapshot = {
        nodes: [
          node("a", "us-east-1a", 32, c.a),
          node("b", "us-east-1b", 2, [pod("filler", "1500Mi")]),
          node("c", "us-east-1b", 32, c.c),
        ],
        nodePools: [pool],
        daemonSets: [],
      };
      const compact = new CompactSnapshot(full).forCandidates(new Set(["c"]), c.c);
      const want = consolidate(full, ["c"]);
      assert.equal(want.decision, c.want, c.why);
      assert.deepEqual(consolidate(compact, ["c"]), want, c.why);
    }
  });

  void it("folds the pods nothing can see into one reserved pod with their requests", () => {
    const full: Snapshot = {
      nodes: [
        node("a", "us-east-1a", 32, [pod("batch", "1Gi"), pod("batch", "2Gi"), pod("guard", "1Gi", antiWeb)]),
        node("c", "us-east-1b", 32, [pod("web", "1Gi")]),
      ],
      nodePools: [pool],
      daemonSets: [],
    };
    const a = new CompactSnapshot(full).forCandidates(new Set(["c"]), full.nodes[1]!.pods).nodes[0]!;
    assert.deepEqual(
      a.pods.map((p) => p.labels["app"] ?? `reserved ${p.requests["memory"]! / GI}Gi, ${p.requests["pods"]} pods`),
      ["guard", "reserved 3Gi, 2 pods"],
    );
  });
});
