import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../../policies/domain/catalog/catalog.ts";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { simPodFromPod } from "./pod-spec.ts";
import { simulate } from "./simulate.ts";
import type { ExistingNode, NodePoolView, SimPod, Snapshot } from "./types.ts";
import { volumeIndexOf } from "./volume-objects.ts";
import { isVolumeProblem, podVolumes, VolumeUsage, type VolumeIndex } from "./volumes.ts";

// Karpenter references: "suite" is provisioning/suite_test.go (Context "Volume Topology Requirements"),
// "scheduling suite" is provisioning/scheduling/suite_test.go (Describe "VolumeUsage" and its volume contexts).

const ZONE = "topology.kubernetes.io/zone";
const EBS = "ebs.csi.aws.com";

const zonalPv = (name: string, zones: readonly string[], key = ZONE, extra: Record<string, unknown> = {}): unknown => ({
  kind: "PersistentVolume",
  metadata: { name },
  spec: {
    csi: { driver: EBS, volumeHandle: name },
    ...extra,
    nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key, operator: "In", values: zones }] }] } },
  },
});
/** A claim; one naming a volume carries pv.kubernetes.io/bind-completed unless `metadata` says otherwise. */
const pvc = (name: string, spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): unknown => ({
  kind: "PersistentVolumeClaim",
  spec,
  metadata: {
    name,
    namespace: "default",
    ...(spec["volumeName"] === undefined ? {} : { annotations: { "pv.kubernetes.io/bind-completed": "yes" } }),
    ...metadata,
  },
});
const storageClass = (
  name: string,
  o: { mode?: string; zones?: readonly (readonly string[])[]; provisioner?: string; isDefault?: boolean } = {},
): unknown => ({
  kind: "StorageClass",
  metadata: {
    name,
    ...(o.isDefault === true ? { annotations: { "storageclass.kubernetes.io/is-default-class": "true" } } : {}),
  },
  provisioner: o.provisioner ?? EBS,
  volumeBindingMode: o.mode ?? "WaitForFirstConsumer",
  ...(o.zones === undefined
    ? {}
    : { allowedTopologies: o.zones.map((z) => ({ matchLabelExpressions: [{ key: ZONE, values: z }] })) }),
});
const csiNode = (name: string, count: number | undefined): unknown => ({
  kind: "CSINode",
  metadata: { name },
  spec: { drivers: [{ name: EBS, nodeID: name, ...(count === undefined ? {} : { allocatable: { count } }) }] },
});

function index(objects: readonly unknown[]): VolumeIndex {
  const of = (kind: string): unknown[] => objects.filter((o) => (o as { kind: string }).kind === kind);
  return volumeIndexOf({
    claims: of("PersistentVolumeClaim"),
    volumes: of("PersistentVolume"),
    classes: of("StorageClass"),
    csiNodes: of("CSINode"),
  });
}

function pod(name: string, claims: readonly string[], extra: Record<string, unknown> = {}): SimPod {
  return simPodFromPod({
    metadata: { name, namespace: "default", uid: name },
    spec: {
      containers: [{ resources: { requests: { cpu: "100m", memory: "128Mi" } } }],
      volumes: claims.map((c, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: c } })),
      ...extra,
    },
  });
}

const zonesOf = (v: ReturnType<typeof podVolumes>): string[][] =>
  isVolumeProblem(v) ? [] : v.alternatives.map((a) => a.flatMap((r) => (r.key === ZONE ? [...(r.values ?? [])] : [])));

void describe("what a pod's claims ask of its node", () => {
  const cases: {
    name: string;
    objects: unknown[];
    claims: string[];
    zones?: string[][];
    problem?: RegExp;
    attached?: number;
  }[] = [
    {
      // suite 'should schedule to volume zones if volume already bound'
      name: "a claim bound to a zonal PV restricts the node to the PV's zone",
      objects: [zonalPv("pv-a", ["us-east-1a"]), pvc("data", { volumeName: "pv-a" })],
      claims: ["data"],
      zones: [["us-east-1a"]],
      attached: 1,
    },
    {
      // karpenter-provider-aws operator.go: topology.ebs.csi.aws.com/zone is normalized to topology.kubernetes.io/zone
      name: "the EBS CSI driver's own zone key means the well-known zone",
      objects: [zonalPv("pv-a", ["us-east-1b"], "topology.ebs.csi.aws.com/zone"), pvc("data", { volumeName: "pv-a" })],
      claims: ["data"],
      zones: [["us-east-1b"]],
    },
    {
      // suite 'should schedule to storage class zones if volume does not exist'
      name: "an unbound claim of a WaitForFirstConsumer class honours allowedTopologies",
      objects: [
        storageClass("zonal", { zones: [["us-east-1c", "us-east-1d"]] }),
        pvc("data", { storageClassName: "zonal" }),
      ],
      claims: ["data"],
      zones: [["us-east-1c", "us-east-1d"]],
      attached: 1,
    },
    {
      // scheduling suite 'should schedule pods using a StorageClass with multiple zones in AllowedTopologies'
      name: "each allowedTopologies term is one alternative",
      objects: [
        storageClass("zonal", { zones: [["us-east-1a"], ["us-east-1b"]] }),
        pvc("data", { storageClassName: "zonal" }),
      ],
      claims: ["data"],
      zones: [["us-east-1a"], ["us-east-1b"]],
    },
    {
      // scheduling suite 'should schedule pods when a valid multi-volume topology alternative remains after pruning'
      name: "two volumes keep only the combinations that can hold together",
      objects: [
        storageClass("ab", { zones: [["us-east-1a"], ["us-east-1b"]] }),
        storageClass("bc", { zones: [["us-east-1b"], ["us-east-1c"]] }),
        pvc("one", { storageClassName: "ab" }),
        pvc("two", { storageClassName: "bc" }),
      ],
      claims: ["one", "two"],
      zones: [["us-east-1b", "us-east-1b"]],
      attached: 2,
    },
    {
      // suite 'should schedule with a missing storage class if the pvc is bound'
      name: "a bound claim needs no storage class",
      objects: [zonalPv("pv-a", ["us-east-1a"]), pvc("data", { volumeName: "pv-a", storageClassName: "gone" })],
      claims: ["data"],
      zones: [["us-east-1a"]],
    },
    {
      // suite 'should not ignore hostname affinity when using non-local path volumes'
      // (and its local-volume counterpart)
      name: "a local PV's hostname affinity is dropped, leaving no constraint",
      objects: [
        zonalPv("pv-l", ["node-1"], "kubernetes.io/hostname", { local: { path: "/mnt" } }),
        pvc("data", { volumeName: "pv-l" }),
      ],
      claims: ["data"],
      zones: [],
    },
    {
      // scheduling suite 'should not fail for NFS volumes'
      name: "a volume no CSI driver attaches constrains nothing and counts nothing",
      objects: [
        { kind: "PersistentVolume", metadata: { name: "nfs" }, spec: { nfs: { server: "x", path: "/" } } },
        pvc("data", { volumeName: "nfs" }),
      ],
      claims: ["data"],
      zones: [],
      attached: 0,
    },
    {
      // scheduling suite 'should launch nodes for pods with ephemeral volume using a default storage class'
      name: "an unbound claim without a class gets the default StorageClass",
      objects: [storageClass("default", { zones: [["us-east-1d"]], isDefault: true }), pvc("data", {})],
      claims: ["data"],
      zones: [["us-east-1d"]],
    },
    // suite 'should not schedule if invalid pvc'
    {
      name: "a missing claim refuses the pod",
      objects: [],
      claims: ["nope"],
      problem: /persistentvolumeclaim default\/nope not found/,
    },
    {
      // scheduling suite 'should handle pods with PVCs with defined volumeName when
      // pv.kubernetes.io/bind-completed is missing'
      name: "a claim naming a volume without the bind-completed annotation refuses the pod",
      objects: [zonalPv("pv-a", ["us-east-1a"]), pvc("data", { volumeName: "pv-a" }, { annotations: {} })],
      claims: ["data"],
      problem: /not bound yet \(no pv\.kubernetes\.io\/bind-completed annotation\)/,
    },
    {
      // suite 'should not schedule with an empty storage class if the pvc is not bound'
      name: "an unbound claim with an empty class refuses the pod",
      objects: [pvc("data", { storageClassName: "" })],
      claims: ["data"],
      problem: /unbound and names no storage class/,
    },
    {
      // suite 'should not schedule with a missing storage class if the pvc is not bound'
      name: "an unbound claim of a missing class refuses the pod",
      objects: [pvc("data", { storageClassName: "gone" })],
      claims: ["data"],
      problem: /storageclass gone not found/,
    },
    {
      // scheduling suite 'should not launch nodes for pod with unbound volume for volumeBindingMode immediate'
      name: "an unbound claim of an Immediate class refuses the pod",
      objects: [storageClass("now", { mode: "Immediate" }), pvc("data", { storageClassName: "now" })],
      claims: ["data"],
      problem: /binds Immediate/,
    },
    {
      // scheduling suite 'should not launch nodes for pod with deleting persistentVolumeClaim'
      name: "a deleting claim refuses the pod",
      objects: [
        zonalPv("pv-a", ["us-east-1a"]),
        pvc("data", { volumeName: "pv-a" }, { deletionTimestamp: "2026-01-01T00:00:00Z" }),
      ],
      claims: ["data"],
      problem: /is being deleted/,
    },
    {
      // scheduling suite 'should not launch nodes for pod with bound persistentVolume that is marked for deletion'
      name: "a claim whose PV is being deleted refuses the pod",
      objects: [
        {
          ...(zonalPv("pv-a", ["us-east-1a"]) as object),
          metadata: { name: "pv-a", deletionTimestamp: "2026-01-01T00:00:00Z" },
        },
        pvc("data", { volumeName: "pv-a" }),
      ],
      claims: ["data"],
      problem: /persistentvolume pv-a is being deleted/,
    },
    {
      // scheduling suite 'should not launch nodes for pod with Lost persistentVolumeClaim'
      name: "a Lost claim refuses the pod",
      objects: [{ ...(pvc("data", { volumeName: "pv-a" }) as object), status: { phase: "Lost" } }],
      claims: ["data"],
      problem: /non-existent persistentvolume/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = podVolumes(
        index(c.objects),
        "default",
        c.claims.map((name) => ({ name })),
      );
      if (c.problem !== undefined) {
        assert.ok(isVolumeProblem(got), "expected a problem");
        assert.match(got.reason, c.problem);
        return;
      }
      assert.ok(!isVolumeProblem(got), isVolumeProblem(got) ? got.reason : "");
      if (c.zones !== undefined) assert.deepEqual(zonesOf(got), c.zones);
      if (c.attached !== undefined) assert.equal(got.attachments.get(EBS)?.length ?? 0, c.attached);
    });
  }

  it("an ephemeral volume whose claim does not exist yet uses its template's class", () => {
    // scheduling suite 'should launch nodes for pods with ephemeral volume using the specified storage class name'
    const p = simPodFromPod({
      metadata: { name: "web-0", namespace: "default" },
      spec: {
        containers: [{}],
        volumes: [{ name: "scratch", ephemeral: { volumeClaimTemplate: { spec: { storageClassName: "zonal" } } } }],
      },
    });
    assert.deepEqual(p.claims, [{ name: "web-0-scratch", ephemeralClass: "zonal" }]);
    const got = podVolumes(index([storageClass("zonal", { zones: [["us-east-1c"]] })]), "default", p.claims ?? []);
    assert.deepEqual(zonesOf(got), [["us-east-1c"]]);
  });

  it("the newest of several default StorageClasses is the default", () => {
    // scheduling suite 'should launch nodes for pods with ephemeral volume using the newest storage class'
    const at = (name: string, zone: string, created: string): unknown => ({
      ...(storageClass(name, { zones: [[zone]], isDefault: true }) as { metadata: object }),
      metadata: {
        name,
        creationTimestamp: created,
        annotations: { "storageclass.kubernetes.io/is-default-class": "true" },
      },
    });
    const idx = index([
      at("old", "us-east-1a", "2026-01-01T00:00:00Z"),
      at("new", "us-east-1b", "2026-02-01T00:00:00Z"),
      at("older", "us-east-1c", "2025-01-01T00:00:00Z"),
    ]);
    assert.equal(idx.defaultClass, "new");
    assert.deepEqual(zonesOf(podVolumes(idx, "default", [{ name: "web-0-scratch", ephemeralClass: "" }])), [
      ["us-east-1b"],
    ]);
  });

  it("a bound pod skips claims it cannot read instead of failing", () => {
    const got = podVolumes(index([]), "default", [{ name: "gone" }], true);
    assert.ok(!isVolumeProblem(got));
    assert.equal(got.attachments.size, 0);
  });
});

void describe("volume usage on one node", () => {
  it("counts a claim shared by several pods once and recounts when a pod leaves", () => {
    // scheduling suite 'should count each PVC once when shared by multiple pods'
    const usage = new VolumeUsage();
    usage.add("p1", new Map([[EBS, ["ns/a", "ns/b"]]]));
    usage.add("p2", new Map([[EBS, ["ns/b"]]]));
    assert.equal(usage.counts().get(EBS), 2);
    assert.equal(usage.exceeds(new Map([[EBS, ["ns/b"]]]), new Map([[EBS, 2]])), undefined);
    assert.match(usage.exceeds(new Map([[EBS, ["ns/c"]]]), new Map([[EBS, 2]])) ?? "", /3 volumes, limit 2/);
    usage.remove("p1");
    assert.equal(usage.counts().get(EBS), 1);
  });

  it("a driver listed without a count, or not listed, is unbounded", () => {
    const usage = new VolumeUsage();
    assert.equal(usage.exceeds(new Map([[EBS, ["a", "b", "c"]]]), new Map([[EBS, null]])), undefined);
    assert.equal(usage.exceeds(new Map([["efs.csi.aws.com", ["a"]]]), new Map([[EBS, 0]])), undefined);
  });
});

// Simulations on the real catalog: c5 on-demand in every us-east-1 zone.
const c5Types = toInstanceTypes(builtinCatalog()).filter((t) => t.name.startsWith("c5."));
const poolOf = (types: readonly InstanceType[] = c5Types): NodePoolView => ({
  name: "default",
  weight: 0,
  labels: {},
  taints: [],
  startupTaints: [],
  instanceTypes: types,
  requirements: [{ key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] }],
});
const node = (name: string, zone: string, pods: SimPod[] = []): ExistingNode => ({
  name,
  nodePool: "default",
  pods,
  taints: [],
  labels: {
    [ZONE]: zone,
    "kubernetes.io/hostname": name,
    "node.kubernetes.io/instance-type": "c5.2xlarge",
    "karpenter.sh/nodepool": "default",
  },
  allocatable: { cpu: 7900, memory: 14 * 2 ** 30, pods: 58 },
});
const snapshot = (objects: unknown[], nodes: ExistingNode[] = [], pool = poolOf()): Snapshot => ({
  nodes,
  nodePools: [pool],
  daemonSets: [],
  volumes: index(objects),
});

void describe("scheduling with zonal volumes", () => {
  it("plans the new node in the zone of the pod's bound PV", () => {
    // suite 'should schedule to volume zones if volume already bound'
    for (const zone of ["us-east-1b", "us-east-1d"]) {
      const result = simulate(snapshot([zonalPv("pv", [zone]), pvc("data", { volumeName: "pv" })]), [
        pod("db-0", ["data"]),
      ]);
      assert.equal(result.podErrors.length, 0);
      assert.equal(result.newClaims[0]?.launch.zone, zone);
      assert.deepEqual(result.newClaims[0]?.requirements.find((r) => r.key === ZONE)?.values, [zone]);
    }
  });

  it("never places the pod on an existing node in another zone, but uses one in its zone", () => {
    const objects = [zonalPv("pv", ["us-east-1a"]), pvc("data", { volumeName: "pv" })];
    const away = simulate(snapshot(objects, [node("node-b", "us-east-1b")]), [pod("db-0", ["data"])]);
    assert.deepEqual(away.existingPlacements, []);
    assert.equal(away.newClaims[0]?.launch.zone, "us-east-1a");
    const home = simulate(snapshot(objects, [node("node-b", "us-east-1b"), node("node-a", "us-east-1a")]), [
      pod("db-0", ["data"]),
    ]);
    assert.deepEqual(
      home.existingPlacements.map((p) => p.node),
      ["node-a"],
    );
  });

  it("refuses the pod when no NodeClaim may open outside the volume's zone (consolidation's zero-new-claim question)", () => {
    const objects = [zonalPv("pv", ["us-east-1a"]), pvc("data", { volumeName: "pv" })];
    const result = simulate(snapshot(objects, [node("node-b", "us-east-1b")]), [pod("db-0", ["data"])], {
      maxNewClaims: 0,
    });
    assert.equal(result.existingPlacements.length, 0);
    assert.equal(result.podErrors.length, 1);
  });

  it("does not relax the volume's zone away with the pod's other required terms", () => {
    // suite 'should not relax an added volume topology zone node-selector away'
    const objects = [zonalPv("pv", ["us-east-1c"]), pvc("data", { volumeName: "pv" })];
    const affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: "example.com/label", operator: "In", values: ["unsupported"] }] },
            { matchExpressions: [{ key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] }] },
          ],
        },
      },
    };
    const result = simulate(snapshot(objects), [pod("db-0", ["data"], { affinity })]);
    assert.equal(result.newClaims[0]?.launch.zone, "us-east-1c");
  });

  it("tries the next allowedTopologies term when the first cannot be met", () => {
    const objects = [
      storageClass("zonal", { zones: [["us-east-1a"], ["us-east-1c"]] }),
      pvc("data", { storageClassName: "zonal" }),
    ];
    const selector = { nodeSelector: { [ZONE]: "us-east-1c" } };
    const result = simulate(snapshot(objects), [pod("db-0", ["data"], selector)]);
    assert.equal(result.podErrors.length, 0);
    assert.equal(result.newClaims[0]?.launch.zone, "us-east-1c");
  });

  it("reports a pod whose claim is missing, and still places the others", () => {
    // suite 'should schedule valid pods when a pod with an invalid pvc is encountered (pvc)'
    const result = simulate(snapshot([]), [pod("broken", ["nope"]), pod("fine", [])]);
    assert.deepEqual(
      result.podErrors.map((e) => [e.pod.name, e.reason]),
      [["broken", "persistentvolumeclaim default/nope not found"]],
    );
    assert.deepEqual(
      result.newClaims.flatMap((c) => c.pods.map((p) => p.name)),
      ["fine"],
    );
  });

  it("bounds the pods per existing node by its CSINode count, counting shared claims once", () => {
    // scheduling suite 'should launch multiple nodes if required due to volume limits' and
    // 'should launch a single node if all pods use the same PVC'
    const sc = storageClass("zonal", { zones: [["us-east-1a"]] });
    const own = Array.from({ length: 6 }, (_, i) => pvc(`data-${i}`, { storageClassName: "zonal" }));
    const pods = Array.from({ length: 6 }, (_, i) => pod(`db-${i}`, [`data-${i}`]));
    const limited = simulate(snapshot([sc, ...own, csiNode("node-a", 4)], [node("node-a", "us-east-1a")]), pods);
    assert.equal(limited.existingPlacements.length, 4);
    assert.equal(limited.newClaims.flatMap((c) => c.pods).length, 2);
    const shared = Array.from({ length: 6 }, (_, i) => pod(`web-${i}`, ["data-0"]));
    const one = simulate(snapshot([sc, ...own, csiNode("node-a", 4)], [node("node-a", "us-east-1a")]), shared);
    assert.equal(one.existingPlacements.length, 6);
    const unbounded = simulate(
      snapshot([sc, ...own, csiNode("node-a", undefined)], [node("node-a", "us-east-1a")]),
      pods,
    );
    assert.equal(unbounded.existingPlacements.length, 6);
  });

  it("counts the claims of pods already on the node against its limit", () => {
    const sc = storageClass("zonal", { zones: [["us-east-1a"]] });
    const claims = Array.from({ length: 3 }, (_, i) => pvc(`data-${i}`, { storageClassName: "zonal" }));
    const running = [pod("db-0", ["data-0"]), pod("db-1", ["data-1"])];
    const result = simulate(snapshot([sc, ...claims, csiNode("node-a", 2)], [node("node-a", "us-east-1a", running)]), [
      pod("db-2", ["data-2"]),
    ]);
    assert.equal(result.existingPlacements.length, 0);
    assert.equal(result.newClaims.length, 1);
  });

  it("filters the instance types whose attachment limit the pods' volumes exceed", () => {
    // scheduling suite 'should filter out instance types which cannot support the pod's volumes' and
    // 'should not schedule pods which exceed the volume limits of every instance type'
    const limits = (t: InstanceType): InstanceType => ({
      ...t,
      volumeLimits: { [EBS]: t.name === "c5.large" ? 1 : 2 },
    });
    const pool = poolOf(c5Types.map(limits));
    const sc = storageClass("zonal", { zones: [["us-east-1a"]] });
    const claims = Array.from({ length: 3 }, (_, i) => pvc(`data-${i}`, { storageClassName: "zonal" }));
    const two = simulate(snapshot([sc, ...claims], [], pool), [pod("db", ["data-0", "data-1"])]);
    assert.ok(two.newClaims[0] !== undefined && !two.newClaims[0].instanceTypes.some((t) => t.name === "c5.large"));
    const three = simulate(snapshot([sc, ...claims], [], pool), [pod("db", ["data-0", "data-1", "data-2"])]);
    assert.equal(three.newClaims.length, 0);
    assert.match(three.podErrors[0]?.reason ?? "", /attach/);
    const spread = simulate(snapshot([sc, ...claims], [], pool), [
      pod("a", ["data-0"]),
      pod("b", ["data-1"]),
      pod("c", ["data-2"]),
    ]);
    assert.ok(spread.newClaims.length >= 2, "three one-volume pods need two nodes when a type attaches at most two");
  });

  it("models no volumes when the snapshot carries none (the claims then ask nothing)", () => {
    const result = simulate({ nodes: [], nodePools: [poolOf()], daemonSets: [] }, [pod("db-0", ["nope"])]);
    assert.equal(result.podErrors.length, 0);
  });
});

void describe("reading volume objects", () => {
  const cases: { name: string; doc: unknown; error: RegExp }[] = [
    {
      name: "a StorageClass without a provisioner",
      doc: { kind: "StorageClass", metadata: { name: "x" } },
      error: /provisioner is required/,
    },
    {
      name: "an unknown binding mode",
      doc: { kind: "StorageClass", metadata: { name: "x" }, provisioner: EBS, volumeBindingMode: "Later" },
      error: /volumeBindingMode must be Immediate or WaitForFirstConsumer/,
    },
    {
      name: "a PV term with a bad operator",
      doc: {
        kind: "PersistentVolume",
        metadata: { name: "x" },
        spec: {
          nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: "Near" }] }] } },
        },
      },
      error: /spec\.nodeAffinity\.required\.nodeSelectorTerms\[0\]\.matchExpressions\[0\]/,
    },
    {
      name: "a CSINode count that is not a whole number",
      doc: {
        kind: "CSINode",
        metadata: { name: "x" },
        spec: { drivers: [{ name: EBS, allocatable: { count: "many" } }] },
      },
      error: /allocatable\.count/,
    },
    {
      name: "a claim whose volumeName is not a string",
      doc: pvc("x", { volumeName: 3 }),
      error: /spec\.volumeName must be a string/,
    },
  ];
  for (const c of cases) it(`names the field of ${c.name}`, () => assert.throws(() => index([c.doc]), c.error));
});
