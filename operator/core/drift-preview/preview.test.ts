import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { nodeClassHashAnnotations } from "../disruption/nodeclass-hash.ts";
import type { NodeClaim } from "../lifecycle/objects.ts";
import { hashAnnotations } from "../nodepool/hash.ts";
import { previewDrift, type ObjectPreview, type PreviewInput } from "./preview.ts";
import { pacedPool } from "./context.ts";
import { pacingOf } from "./pacing.ts";

/** Wednesday 10:00 UTC. */
const NOW = new Date("2026-11-25T10:00:00Z");

type Obj = Record<string, unknown>;

interface PoolOptions {
  labels?: Obj;
  templateSpec?: Obj;
  requirements?: Obj[];
  spec?: Obj;
  annotations?: Record<string, string>;
}

const FAMILIES = { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["c5", "m5", "r5"] };

function nodePool(o: PoolOptions = {}, name = "general"): PreviewInput {
  return {
    kind: "NodePool",
    value: {
      apiVersion: "karpenter.sh/v1",
      kind: "NodePool",
      metadata: { name, ...(o.annotations === undefined ? {} : { annotations: o.annotations }) },
      spec: {
        template: {
          metadata: { labels: { team: "a", ...o.labels } },
          spec: {
            nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
            requirements: o.requirements ?? [FAMILIES],
            expireAfter: "720h",
            taints: [
              { key: "a", effect: "NoSchedule" },
              { key: "b", value: "x", effect: "NoExecute" },
            ],
            ...o.templateSpec,
          },
        },
        limits: { cpu: "100" },
        disruption: { consolidationPolicy: "WhenEmptyOrUnderutilized", consolidateAfter: "0s" },
        ...o.spec,
      },
    },
  };
}

function nodeClass(spec: Obj = {}, name = "default"): PreviewInput {
  return {
    kind: "EC2NodeClass",
    value: {
      apiVersion: "karpenter.k8s.aws/v1",
      kind: "EC2NodeClass",
      metadata: { name },
      spec: {
        role: "KarpenterNodeRole",
        amiSelectorTerms: [{ alias: "al2023@latest" }],
        subnetSelectorTerms: [{ tags: { discovery: "demo" } }],
        securityGroupSelectorTerms: [{ tags: { discovery: "demo" } }],
        ...spec,
      },
    },
  };
}

function only(before: PreviewInput[], after: PreviewInput[]): ObjectPreview {
  const { changed } = previewDrift({ before, after, now: NOW });
  assert.equal(changed.length, 1, JSON.stringify(changed));
  return changed[0] as ObjectPreview;
}

const fieldLines = (p: ObjectPreview): string[] =>
  p.causes.flatMap((c) => c.fields).map((f) => `${f.path}: ${f.before} → ${f.after}`);

void describe("drift preview of a NodePool or EC2NodeClass change", () => {
  const cases: {
    name: string;
    before: PreviewInput[];
    after: PreviewInput[];
    replaces: string;
    reasons: string[];
    fields?: string[];
    unhashed?: string[];
    summary?: RegExp;
  }[] = [
    {
      name: "a template label changes",
      before: [nodePool()],
      after: [nodePool({ labels: { team: "b" } })],
      replaces: "all",
      reasons: ["NodePoolDrifted"],
      fields: ["spec.template.metadata.labels.team: a → b"],
    },
    {
      name: "only the order of the taints changes",
      before: [nodePool()],
      after: [
        nodePool({
          templateSpec: {
            taints: [
              { key: "b", value: "x", effect: "NoExecute" },
              { key: "a", effect: "NoSchedule" },
            ],
          },
        }),
      ],
      replaces: "none",
      reasons: [],
      unhashed: [],
      summary: /template hash is unchanged/,
    },
    {
      name: "expireAfter is respelled 1h → 60m",
      before: [nodePool({ templateSpec: { expireAfter: "1h" } })],
      after: [nodePool({ templateSpec: { expireAfter: "60m" } })],
      replaces: "none",
      reasons: [],
      unhashed: [],
    },
    {
      name: "expireAfter changes value (shown as written)",
      before: [nodePool()],
      after: [nodePool({ templateSpec: { expireAfter: "24h" } })],
      replaces: "all",
      reasons: ["NodePoolDrifted"],
      fields: ["spec.template.spec.expireAfter: 720h → 24h"],
    },
    {
      name: "the requirements narrow",
      before: [nodePool()],
      after: [nodePool({ requirements: [{ ...FAMILIES, values: ["c5"] }] })],
      replaces: "some",
      reasons: ["RequirementsDrifted"],
      summary: /nodes whose karpenter\.k8s\.aws\/instance-family is no longer in \[c5\] \(m5, r5 no longer allowed\)/,
    },
    {
      name: "the requirements widen",
      before: [nodePool()],
      after: [nodePool({ requirements: [{ ...FAMILIES, values: ["c5", "m5", "r5", "m6i"] }] })],
      replaces: "none",
      reasons: [],
      unhashed: ["spec.template.spec.requirements"],
    },
    {
      name: "only limits and weight change",
      before: [nodePool()],
      after: [nodePool({ spec: { limits: { cpu: "200" }, weight: 10 } })],
      replaces: "none",
      reasons: [],
      unhashed: ["spec.limits.cpu", "spec.weight"],
      summary: /no replacement: only spec\.limits, spec\.weight changed/,
    },
    {
      name: "the nodeClassRef changes",
      before: [nodePool()],
      after: [
        nodePool({ templateSpec: { nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "gpu" } } }),
      ],
      replaces: "all",
      reasons: ["NodePoolDrifted"],
      fields: ["spec.template.spec.nodeClassRef.name: default → gpu"],
    },
    {
      name: "the EC2NodeClass role changes",
      before: [nodeClass()],
      after: [nodeClass({ role: "OtherRole" })],
      replaces: "all",
      reasons: ["NodeClassDrift"],
      fields: ["spec.role: KarpenterNodeRole → OtherRole"],
    },
    {
      name: "the AMI selector terms change within the same family",
      before: [nodeClass()],
      after: [nodeClass({ amiSelectorTerms: [{ alias: "al2023@v20241011" }] })],
      replaces: "maybe",
      reasons: ["AMIDrift"],
      summary: /may replace nodes: AMIDrift/,
    },
    {
      name: "the AMI alias moves to another family",
      before: [nodeClass()],
      after: [nodeClass({ amiSelectorTerms: [{ alias: "bottlerocket@latest" }] })],
      replaces: "all",
      reasons: ["NodeClassDrift", "AMIDrift"],
    },
    {
      name: "subnet and security group terms change",
      before: [nodeClass()],
      after: [
        nodeClass({
          subnetSelectorTerms: [{ id: "subnet-1" }],
          securityGroupSelectorTerms: [{ tags: { discovery: "other" } }],
        }),
      ],
      replaces: "maybe",
      reasons: ["SubnetDrift", "SecurityGroupDrift"],
    },
    {
      name: "the selector terms are only reordered",
      before: [nodeClass({ subnetSelectorTerms: [{ id: "subnet-1" }, { id: "subnet-2" }] })],
      after: [nodeClass({ subnetSelectorTerms: [{ id: "subnet-2" }, { id: "subnet-1" }] })],
      replaces: "none",
      reasons: [],
    },
    {
      name: "the capacity reservation terms change (nodes in a reservation no longer selected drift)",
      before: [nodeClass()],
      after: [nodeClass({ capacityReservationSelectorTerms: [{ id: "cr-0123456789" }] })],
      replaces: "maybe",
      reasons: ["CapacityReservationDrift"],
    },
    {
      name: "only ipPrefixCount changes",
      before: [nodeClass()],
      after: [nodeClass({ ipPrefixCount: 2 })],
      replaces: "none",
      reasons: [],
      unhashed: ["spec.ipPrefixCount"],
    },
  ];
  for (const c of cases) {
    void it(`says ${c.replaces === "none" ? "no replacement" : `${c.replaces}: ${c.reasons.join(", ")}`} when ${c.name}`, () => {
      const p = only(c.before, c.after);
      assert.equal(p.replaces, c.replaces, p.summary);
      assert.deepEqual(
        p.causes.map((x) => x.reason),
        c.reasons,
      );
      if (c.fields !== undefined) assert.deepEqual(fieldLines(p), c.fields);
      if (c.unhashed !== undefined)
        assert.deepEqual(
          p.unhashed.map((f) => f.path),
          c.unhashed,
        );
      if (c.summary !== undefined) assert.match(p.summary, c.summary);
    });
  }

  void it("names the NodePools that reference a changed EC2NodeClass, from the files and the cluster", () => {
    const gpu = nodePool(
      { templateSpec: { nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "gpu" } } },
      "gpu",
    );
    const { changed } = previewDrift({
      before: [nodeClass(), nodePool(), gpu],
      after: [nodeClass({ role: "OtherRole" }), nodePool(), gpu],
      now: NOW,
      live: { nodeClaims: [], nodePools: [nodePool({}, "batch").value] },
    });
    assert.deepEqual(
      changed.map((p) => p.nodePools),
      [["batch", "general"]],
    );
  });

  void it("counts an unchanged object, a new one and a removed one", () => {
    const preview = previewDrift({
      before: [nodePool(), nodeClass({}, "old")],
      after: [nodePool(), nodePool({}, "fresh")],
      now: NOW,
    });
    assert.equal(preview.unchanged, 1);
    assert.deepEqual(
      preview.changed.map((p) => [p.name, p.change, p.replaces]),
      [
        ["fresh", "added", "none"],
        ["old", "removed", "none"],
      ],
    );
    const gone = previewDrift({ before: [nodePool()], after: [], now: NOW }).changed[0];
    assert.equal(gone?.replaces, "removes");
  });
});

void describe("drift preview pacing", () => {
  const budgets = [
    { nodes: "0", schedule: "0 9 * * mon-fri", duration: "8h" },
    { nodes: "2" },
    { nodes: "0", reasons: ["Underutilized"] },
  ];
  const before = nodePool({
    spec: { disruption: { consolidationPolicy: "WhenEmpty", consolidateAfter: "0s", budgets } },
  });
  const after = nodePool({
    labels: { team: "b" },
    spec: { disruption: { consolidationPolicy: "WhenEmpty", consolidateAfter: "0s", budgets } },
  });

  void it("is blocked inside a nodes: 0 window and says when it closes; the Underutilized budget does not count", () => {
    const [pacing] = only([before], [after]).pacing;
    assert.equal(pacing?.blocked, true);
    assert.equal(pacing?.blockedUntil, "2026-11-25T17:00:00.000Z");
    assert.equal(pacing?.allowedNow, "0 nodes");
    assert.deepEqual(
      pacing?.budgets.map((b) => [b.index, b.active, b.opensAt, b.closesAt]),
      [
        [0, true, "2026-11-26T09:00:00.000Z", "2026-11-25T17:00:00.000Z"],
        [1, true, undefined, undefined],
      ],
    );
    assert.equal(pacing?.waves, undefined);
  });

  void it("reads the window in the pool's kerf.dev/budget-timezone", () => {
    const zoned = (p: PreviewInput): PreviewInput => ({
      ...p,
      value: {
        ...p.value,
        metadata: { name: "general", annotations: { "kerf.dev/budget-timezone": "America/New_York" } },
      },
    });
    const [pacing] = only([zoned(before)], [zoned(after)]).pacing;
    assert.equal(pacing?.blocked, false, "10:00 UTC is 05:00 in New York, before the 09:00 window");
    assert.equal(pacing?.allowedNow, "2 nodes");
    assert.equal(pacing?.budgets[0]?.opensAt, "2026-11-25T14:00:00.000Z");
  });

  void it("counts the live NodeClaims that drift and estimates the waves after the window closes", () => {
    const stamped = (name: string, annotations: Record<string, string>): NodeClaim => ({
      metadata: {
        name,
        labels: { "karpenter.sh/nodepool": "general", "karpenter.k8s.aws/instance-family": "m5" },
        annotations,
      },
      spec: { nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" } },
      status: { conditions: [{ type: "Initialized", status: "True" }] },
    });
    const nodeClaims = [
      ...["a", "b", "c", "d", "e"].map((n) =>
        stamped(n, { ...hashAnnotations(before.value), ...nodeClassHashAnnotations(nodeClass().value) }),
      ),
      stamped("karpenter-made", { "karpenter.sh/nodepool-hash": "1", "karpenter.sh/nodepool-hash-version": "v3" }),
    ];
    const [p] = previewDrift({
      before: [before],
      after: [after],
      now: NOW,
      live: { nodeClaims, nodePools: [] },
    }).changed;
    assert.deepEqual(p?.live?.[0], {
      nodePool: "general",
      nodeClaims: 6,
      budgetNodes: 6,
      drifting: 5,
      byReason: { NodePoolDrifted: 5 },
      otherHashVersion: 1,
      alreadyDrifted: 0,
    });
    assert.deepEqual(p?.pacing[0]?.waves, {
      nodes: 6,
      drifting: 5,
      perWave: 2,
      waves: 3,
      startsAt: "2026-11-25T17:00:00.000Z",
    });
    const narrowed = nodePool({
      requirements: [{ ...FAMILIES, values: ["c5", "r5"] }],
      spec: { disruption: { consolidationPolicy: "WhenEmpty", consolidateAfter: "0s", budgets } },
    });
    const [r] = previewDrift({
      before: [before],
      after: [narrowed],
      now: NOW,
      live: { nodeClaims, nodePools: [] },
    }).changed;
    assert.deepEqual(r?.live?.[0]?.byReason, { RequirementsDrifted: 6 }, "labels are judged whatever the hash version");
    const [c] = previewDrift({
      before: [nodeClass()],
      after: [nodeClass({ role: "OtherRole" })],
      now: NOW,
      live: { nodeClaims, nodePools: [before.value] },
    }).changed;
    assert.deepEqual(c?.live?.[0]?.byReason, { NodeClassDrift: 5 });
  });

  void it("shows growing waves of 1, 2, 4, … for a pool with kerf.dev/drift-rollout: waves, as the operator runs them", () => {
    const annotated = {
      metadata: { name: "general", annotations: { "kerf.dev/drift-rollout": "waves" } },
      spec: { disruption: { budgets: [{ nodes: "3" }] } },
    };
    const paced = pacedPool(annotated);
    assert.equal(paced.growingWaves, true);
    assert.deepEqual(pacingOf(paced, NOW, { nodes: 12, drifting: 10 }).waves, {
      nodes: 12,
      drifting: 10,
      perWave: 3,
      waves: 4,
      sizes: [1, 2, 4, 3],
    });
    assert.equal(pacedPool({ metadata: { name: "general" } }).growingWaves, undefined);
  });

  void it("paces by the default budget of 10% when the pool has none", () => {
    const [pacing] = only([nodePool()], [nodePool({ labels: { team: "b" } })]).pacing;
    assert.equal(pacing?.allowedNow, "10% of the pool's nodes (rounded up)");
    assert.deepEqual(
      pacing?.budgets.map((b) => b.index),
      [-1],
    );
    assert.equal(pacing?.wavesNote, "node count unknown");
  });
});
