// Zonal volumes (issue 22 item 7) through the scenario builder: PersistentVolumeClaims, PersistentVolumes,
// StorageClasses and CSINodes as `kerf simulate` reads them (Karpenter provisioning/suite_test.go "Volume Topology
// Requirements" and scheduling/suite_test.go "VolumeUsage"). The bundled catalog declares no per-type attachment
// limits, so the limit cases use a CSINode on an existing node, as Karpenter's do for registered nodes.
import type { NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";
import {
  HOSTNAME,
  ZONE,
  ZONES,
  node,
  nodeClass,
  nodePool,
  pod,
  req,
  term,
  type Doc,
  type ParityCase,
  type PodOptions,
  type Source,
} from "./harness.ts";

const prov = (it: string): Source => ({ file: "suite_test.go", it });
const suite = (it: string): Source => ({ file: "scheduling/suite_test.go", it });
const [Z1, Z2, Z3] = ZONES;
const EBS = "ebs.csi.aws.com";
const base: Doc[] = [nodeClass(), nodePool()];

/** A PersistentVolume of `driver` (an NFS one when null) with node-affinity terms (one per array). */
const pv = (
  name: string,
  terms: readonly (readonly NodeSelectorRequirement[])[],
  o: { driver?: string | null; className?: string; local?: boolean } = {},
): Doc => ({
  apiVersion: "v1",
  kind: "PersistentVolume",
  metadata: { name },
  spec: {
    ...(o.local === true
      ? { local: { path: "/mnt/disk" } }
      : o.driver === null
        ? { nfs: { server: "fake.server", path: "/some/path" } }
        : { csi: { driver: o.driver ?? EBS, volumeHandle: name } }),
    ...(o.className === undefined ? {} : { storageClassName: o.className }),
    ...(terms.length === 0
      ? {}
      : { nodeAffinity: { required: { nodeSelectorTerms: terms.map((t) => ({ matchExpressions: t })) } } }),
  },
});
const zonal = (name: string, ...zones: string[]): Doc => pv(name, [[req(ZONE, "In", ...zones)]]);
const pvc = (name: string, o: { className?: string; volumeName?: string; phase?: string } = {}): Doc => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name, namespace: "default" },
  spec: {
    ...(o.className === undefined ? {} : { storageClassName: o.className }),
    ...(o.volumeName ? { volumeName: o.volumeName } : {}),
  },
  ...(o.volumeName ? { status: { phase: o.phase ?? "Bound" } } : {}),
});
/** A WaitForFirstConsumer StorageClass of `provisioner`, allowed in `zones` (one topology term each when `split`). */
const storageClass = (
  name: string,
  zones?: readonly string[],
  o: { provisioner?: string; split?: boolean } = {},
): Doc => ({
  apiVersion: "storage.k8s.io/v1",
  kind: "StorageClass",
  metadata: { name },
  provisioner: o.provisioner ?? EBS,
  volumeBindingMode: "WaitForFirstConsumer",
  ...(zones === undefined
    ? {}
    : {
        allowedTopologies:
          o.split === true
            ? zones.map((z) => ({ matchLabelExpressions: [{ key: ZONE, values: [z] }] }))
            : [{ matchLabelExpressions: [{ key: ZONE, values: zones }] }],
      }),
});
const csiNode = (name: string, count: number): Doc => ({
  apiVersion: "storage.k8s.io/v1",
  kind: "CSINode",
  metadata: { name },
  spec: { drivers: [{ name: EBS, nodeID: name, allocatable: { count } }] },
});
/** Karpenter's BeforeEach class: WaitForFirstConsumer in zones 2 and 3. */
const sc = storageClass("zonal", [Z2, Z3]);
/** A pod mounting `claims`. */
const mounting = (name: string, claims: readonly string[], o: PodOptions = {}): Doc =>
  pod(name, {
    ...o,
    spec: { volumes: claims.map((c, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: c } })) },
  });
/** A pod with one generic ephemeral volume `data` of `className`; its claim is `<pod>-data`. */
const ephemeral = (name: string, className: string, o: PodOptions = {}): Doc =>
  pod(name, {
    ...o,
    spec: {
      volumes: [
        {
          name: "data",
          ephemeral: {
            volumeClaimTemplate: {
              spec: {
                storageClassName: className,
                accessModes: ["ReadWriteOnce"],
                resources: { requests: { storage: "1Gi" } },
              },
            },
          },
        },
      ],
    },
  });
const inZones = (...zones: string[]): PodOptions => ({ required: [[req(ZONE, "In", ...zones)]] });

export const cases: ParityCase[] = [
  {
    name: "a pod whose claim does not exist is unschedulable",
    from: prov("should not schedule if invalid pvc"),
    scenario: [...base, mounting("p", ["invalid"])],
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a claim with an empty storage class bound to a PV schedules",
    from: prov("should schedule with an empty storage class if the pvc is bound"),
    scenario: [
      ...base,
      pv("test-volume", [], { className: "" }),
      pvc("claim", { className: "", volumeName: "test-volume" }),
      mounting("p", ["claim"]),
    ],
    expect: { scheduled: ["p"] },
  },
  {
    name: "an unbound claim with an empty storage class is unschedulable",
    from: prov("should not schedule with an empty storage class if the pvc is not bound"),
    scenario: [...base, pvc("claim", { className: "" }), mounting("p", ["claim"])],
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a bound claim naming a storage class that does not exist schedules",
    from: prov("should schedule with a missing storage class if the pvc is bound"),
    scenario: [
      ...base,
      pv("test-volume", [], { className: "missing" }),
      pvc("claim", { className: "missing", volumeName: "test-volume" }),
      mounting("p", ["claim"]),
    ],
    expect: { scheduled: ["p"] },
  },
  {
    name: "an unbound claim naming a storage class that does not exist is unschedulable",
    from: prov("should not schedule with a missing storage class if the pvc is not bound"),
    scenario: [...base, pvc("claim", { className: "missing" }), mounting("p", ["claim"])],
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a pod with a missing claim does not stop a valid pod scheduling",
    from: prov("should schedule valid pods when a pod with an invalid pvc is encountered (pvc)"),
    scenario: [...base, mounting("invalid", ["missing"]), pod("valid")],
    expect: { unschedulable: ["invalid"], scheduled: ["valid"] },
  },
  {
    name: "a pod whose claim names a missing storage class does not stop a valid pod scheduling",
    from: prov("should schedule valid pods when a pod with an invalid pvc is encountered (storage class)"),
    scenario: [
      ...base,
      pvc("claim", { className: "invalid-storage-class" }),
      mounting("invalid", ["claim"]),
      pod("valid"),
    ],
    expect: { unschedulable: ["invalid"], scheduled: ["valid"] },
  },
  {
    name: "a pod whose claim is bound to a missing volume does not stop a valid pod scheduling",
    from: prov("should schedule valid pods when a pod with an invalid pvc is encountered (volume name)"),
    scenario: [
      ...base,
      pvc("claim", { volumeName: "invalid-volume-name" }),
      mounting("invalid", ["claim"]),
      pod("valid"),
    ],
    expect: { unschedulable: ["invalid"], scheduled: ["valid"] },
  },
  {
    name: "an unbound claim's storage class zones narrow the pod's zones (zones 1|3 and 2|3 leave 3)",
    from: prov("should schedule to storage class zones if volume does not exist"),
    scenario: [...base, sc, pvc("claim", { className: "zonal" }), mounting("p", ["claim"], inZones(Z1, Z3))],
    expect: { nodeLabels: { p: { [ZONE]: Z3 } } },
  },
  {
    name: "an ephemeral volume's storage class zones narrow the pod's zones",
    from: prov("should schedule to storage class zones if volume does not exist (ephemeral volume)"),
    scenario: [...base, sc, pvc("p-data", { className: "zonal" }), ephemeral("p", "zonal", inZones(Z1, Z3))],
    expect: { nodeLabels: { p: { [ZONE]: Z3 } } },
  },
  {
    name: "an unbound claim whose storage class zones exclude the pod's zone is unschedulable",
    from: prov("should not schedule if storage class zones are incompatible"),
    scenario: [...base, sc, pvc("claim", { className: "zonal" }), mounting("p", ["claim"], inZones(Z1))],
    expect: { unschedulable: ["p"] },
  },
  {
    name: "an ephemeral volume whose storage class zones exclude the pod's zone is unschedulable",
    from: prov("should not schedule if storage class zones are incompatible (ephemeral volume)"),
    scenario: [...base, sc, pvc("p-data", { className: "zonal" }), ephemeral("p", "zonal", inZones(Z1))],
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a claim bound to a zonal volume puts the pod in the volume's zone",
    from: prov("should schedule to volume zones if volume already bound"),
    scenario: [
      ...base,
      sc,
      zonal("vol", Z3),
      pvc("claim", { className: "zonal", volumeName: "vol" }),
      mounting("p", ["claim"]),
    ],
    expect: { nodeLabels: { p: { [ZONE]: Z3 } } },
  },
  {
    name: "an ephemeral volume's claim bound to a zonal volume puts the pod in the volume's zone",
    from: prov("should schedule to volume zones if volume already bound (ephemeral volume)"),
    scenario: [
      ...base,
      sc,
      zonal("vol", Z3),
      pvc("p-data", { className: "zonal", volumeName: "vol" }),
      ephemeral("p", "zonal"),
    ],
    expect: { nodeLabels: { p: { [ZONE]: Z3 } } },
  },
  ...(
    [
      ["when using local volumes", true],
      ["when using hostpath volumes", false],
    ] as const
  ).flatMap(([entry, local]) => [
    {
      name:
        `a local-path volume's hostname affinity is ignored (${local ? "local" : "hostPath"} volume): the pod ` +
        `schedules`,
      from: prov(`should ignore hostname affinity scheduling when using local path volumes / ${entry}`),
      scenario: [
        ...base,
        storageClass("local-path", undefined, { provisioner: "kubernetes.io/no-provisioner" }),
        local
          ? pv("vol", [[req(HOSTNAME, "In", "some-host")]], { local: true })
          : {
              ...pv("vol", [[req(HOSTNAME, "In", "some-host")]]),
              spec: {
                hostPath: { path: "/mnt" },
                nodeAffinity: {
                  required: { nodeSelectorTerms: [{ matchExpressions: [req(HOSTNAME, "In", "some-host")] }] },
                },
              },
            },
        pvc("claim", { className: "local-path", volumeName: "vol" }),
        mounting("p", ["claim"]),
      ],
      expect: { scheduled: ["p"] },
    },
  ]),
  {
    name: "a CSI volume's hostname affinity holds: no new node can have that name",
    from: prov("should not ignore hostname affinity when using non-local path volumes"),
    scenario: [
      ...base,
      sc,
      pv("vol", [[req(HOSTNAME, "In", "some-host")]]),
      pvc("claim", { className: "zonal", volumeName: "vol" }),
      mounting("p", ["claim"]),
    ],
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a claim bound to a volume in a zone the pod excludes is unschedulable",
    from: prov("should not schedule if volume zones are incompatible"),
    scenario: [
      ...base,
      sc,
      zonal("vol", Z3),
      pvc("claim", { className: "zonal", volumeName: "vol" }),
      mounting("p", ["claim"], inZones(Z1)),
    ],
    expect: { unschedulable: ["p"] },
  },
  {
    name: "an ephemeral volume's claim bound to a volume in a zone the pod excludes is unschedulable",
    from: prov("should not schedule if volume zones are incompatible (ephemeral volume)"),
    scenario: [
      ...base,
      sc,
      zonal("vol", Z3),
      pvc("p-data", { className: "zonal", volumeName: "vol" }),
      ephemeral("p", "zonal", inZones(Z1)),
    ],
    expect: { unschedulable: ["p"] },
  },
  {
    name: "a volume's zone is kept when the pod's first node-affinity term is relaxed to its second",
    from: prov("should not relax an added volume topology zone node-selector away"),
    scenario: [
      ...base,
      sc,
      zonal("vol", Z3),
      pvc("claim", { className: "zonal", volumeName: "vol" }),
      mounting("p", ["claim"], {
        required: [
          [req("example.com/label", "In", "unsupported")],
          [req("karpenter.sh/capacity-type", "In", "on-demand")],
        ],
      }),
    ],
    expect: { nodeLabels: { p: { [ZONE]: Z3, "karpenter.sh/capacity-type": "on-demand" } } },
  },
  // VolumeUsage
  {
    name: "a node whose CSINode allows 10 volumes takes 5 pods of 2 new volumes each; the sixth gets a new node",
    from: suite("should launch multiple nodes if required due to volume limits"),
    scenario: [
      ...base,
      storageClass("ebs", [Z1]),
      node("n1", { instanceType: "m5.24xlarge", labels: { [ZONE]: Z1 } }),
      csiNode("n1", 10),
      ...[0, 1, 2, 3, 4, 5].flatMap((i) => [
        pvc(`a-${i}`, { className: "ebs" }),
        pvc(`b-${i}`, { className: "ebs" }),
        mounting(`p${i}`, [`a-${i}`, `b-${i}`]),
      ]),
    ],
    expect: { scheduled: "all", onExisting: 5, newNodes: 1 },
  },
  {
    name: "pods sharing one claim use one attachment: all go to the node whose CSINode allows 10",
    from: [
      suite("should launch a single node if all pods use the same PVC"),
      suite("should count each PVC once when shared by multiple pods"),
    ],
    scenario: [
      ...base,
      storageClass("ebs", [Z1]),
      zonal("vol", Z1),
      pvc("claim", { className: "ebs", volumeName: "vol" }),
      node("n1", { instanceType: "m5.24xlarge", labels: { [ZONE]: Z1 } }),
      csiNode("n1", 10),
      ...Array.from({ length: 20 }, (_, i) => mounting(`p${i}`, ["claim"], { cpu: "10m" })),
    ],
    expect: { scheduled: "all", onExisting: 20, newNodes: 0 },
  },
  {
    name: "NFS volumes count against no attachment limit",
    from: suite("should not fail for NFS volumes"),
    scenario: [
      ...base,
      pv("nfs", [[req(ZONE, "In", Z1)]], { driver: null, className: "nfs" }),
      pvc("claim", { className: "", volumeName: "nfs" }),
      node("n1", { instanceType: "m5.24xlarge", labels: { [ZONE]: Z1 } }),
      csiNode("n1", 1),
      ...Array.from({ length: 5 }, (_, i) => mounting(`p${i}`, ["claim", "claim"])),
    ],
    expect: { scheduled: "all", onExisting: 5, newNodes: 0 },
  },
  {
    name: "volumes allowed in zone 1 or zone 2 and a zonal anti-affinity put two pods in zones 1 and 2",
    from: suite("should schedule pods using a PV with multiple zones"),
    scenario: [
      ...base,
      ...[0, 1].flatMap((i) => [
        pv(`pv-${i}`, [[req(ZONE, "In", Z1)], [req(ZONE, "In", Z2)]]),
        pvc(`pvc-${i}`, { volumeName: `pv-${i}` }),
        mounting(`p${i}`, [`pvc-${i}`], { labels: { app: "mz" }, podAntiAffinity: [term(ZONE, { app: "mz" })] }),
      ]),
    ],
    expect: {
      scheduled: "all",
      apart: ["p0", "p1"],
      skew: { key: ZONE, counts: [1, 1], select: { app: "mz" } },
      nodeLabelsNot: { p0: { [ZONE]: Z3 }, p1: { [ZONE]: Z3 } },
    },
  },
  {
    name: "a storage class allowing zone 1 or zone 2 and a zonal anti-affinity put two pods in zones 1 and 2",
    from: suite("should schedule pods using a StorageClass with multiple zones in AllowedTopologies"),
    scenario: [
      ...base,
      storageClass("mz", [Z1, Z2], { split: true }),
      ...[0, 1].flatMap((i) => [
        pvc(`pvc-${i}`, { className: "mz" }),
        mounting(`p${i}`, [`pvc-${i}`], { labels: { app: "mz" }, podAntiAffinity: [term(ZONE, { app: "mz" })] }),
      ]),
    ],
    expect: {
      scheduled: "all",
      skew: { key: ZONE, counts: [1, 1], select: { app: "mz" } },
      nodeLabelsNot: { p0: { [ZONE]: Z3 }, p1: { [ZONE]: Z3 } },
    },
  },
  ...(
    [
      ["for local volumes", true],
      ["for hostpath volumes", false],
    ] as const
  ).map(([entry, local]) => ({
    name:
      `a local-path volume allowed on one host or an invalid zone still schedules ` +
      `(${local ? "local" : "hostPath"}): the hostname term is dropped`,
    from: suite(`should preserve unconstrained PV alternatives after ignoring hostname affinity / ${entry}`),
    scenario: [
      ...base,
      local
        ? pv("hz", [[req(HOSTNAME, "In", "existing-host")], [req(ZONE, "In", "invalid-zone")]], { local: true })
        : {
            ...pv("hz", []),
            spec: {
              hostPath: { path: "/mnt" },
              nodeAffinity: {
                required: {
                  nodeSelectorTerms: [
                    { matchExpressions: [req(HOSTNAME, "In", "existing-host")] },
                    { matchExpressions: [req(ZONE, "In", "invalid-zone")] },
                  ],
                },
              },
            },
          },
      pvc("hz", { volumeName: "hz" }),
      mounting("p", ["hz"]),
    ],
    expect: { scheduled: ["p"] },
  })),
  ...(
    [
      ["non-existent storage class", "non-existent"],
      ["explicitly disabled storage class (empty string)", ""],
    ] as const
  ).flatMap(([entry, className]) => [
    {
      name:
        `an ephemeral volume whose claim is bound schedules though its class is ` +
        `${className === "" ? "empty" : "missing"}`,
      from: suite(
        `should launch nodes for pods with ephemeral volume without a storage class when the PVC is ` +
          `bound / ${entry}`,
      ),
      scenario: [
        ...base,
        pv("test-pv", []),
        pvc("p-data", { className, volumeName: "test-pv" }),
        ephemeral("p", className),
      ],
      expect: { scheduled: ["p"], newNodes: 1 },
    },
    {
      name:
        `an ephemeral volume whose claim is not bound yet and whose class is ` +
        `${className === "" ? "empty" : "missing"} launches nothing`,
      from: suite(
        `should not launch nodes for pods with ephemeral volume without a storage class when the PVC is ` +
          `unbound / ${entry}`,
      ),
      scenario: [...base, ephemeral("p", className)],
      expect: { unschedulable: ["p"], newNodes: 0 },
    },
  ]),
  {
    name: "a pod whose volume is in zone 1 joins a minDomains 3 spread already 1-1-1 in zone 1",
    from: {
      file: "scheduling/topology_test.go",
      it: "should schedule pod with PVC and TSC minDomains=3 when pods are spread across 3 zones",
    },
    scenario: [
      ...base,
      zonal("test-pv", Z1),
      pvc("test-pvc", { volumeName: "test-pv" }),
      ...ZONES.flatMap((z, i) => [
        node(`n${i}`, { instanceType: "m5.large", labels: { [ZONE]: z } }),
        pod(`run${i}`, { labels: { test: "test" }, nodeName: `n${i}`, cpu: "1500m" }),
      ]),
      mounting("p", ["test-pvc"], {
        labels: { test: "test" },
        cpu: "1500m",
        spread: [
          {
            maxSkew: 1,
            topologyKey: ZONE,
            whenUnsatisfiable: "DoNotSchedule",
            minDomains: 3,
            labelSelector: { matchLabels: { test: "test" } },
          },
        ],
      }),
    ],
    expect: { nodeLabels: { p: { [ZONE]: Z1 } }, skew: { key: ZONE, counts: [2, 1, 1], select: { test: "test" } } },
  },
  {
    name: "an in-tree EBS volume counts against the EBS CSI driver's CSINode limit: a second volume needs another node",
    from: suite("should launch nodes for pods with non-dynamic PVC using a migrated PVC/PV"),
    scenario: [
      ...base,
      storageClass("in-tree", [Z1], { provisioner: "kubernetes.io/aws-ebs" }),
      {
        ...pv("my-volume", [[req(ZONE, "In", Z1)]]),
        spec: {
          awsElasticBlockStore: { volumeID: "vol-1" },
          nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [req(ZONE, "In", Z1)] }] } },
        },
      },
      pvc("first", { className: "in-tree", volumeName: "my-volume" }),
      node("n1", { instanceType: "m5.24xlarge", labels: { [ZONE]: Z1 } }),
      csiNode("n1", 1),
      mounting("running", ["first"], { nodeName: "n1" }),
      pvc("second", { className: "in-tree" }),
      mounting("p", ["second"]),
    ],
    expect: { onExisting: 0, newNodes: 1 },
  },
  ...(
    [
      ["when using local volumes", true],
      ["when using hostpath volumes", false],
    ] as const
  ).map(([entry, local]) => ({
    name:
      `an ephemeral volume bound to a local-path volume (${local ? "local" : "hostPath"}): its hostname affinity ` +
      `is ignored`,
    from: prov(
      `should ignore hostname affinity scheduling when using local path volumes (ephemeral volume) / ` + `${entry}`,
    ),
    scenario: [
      ...base,
      storageClass("local-path", undefined, { provisioner: "kubernetes.io/no-provisioner" }),
      local
        ? pv("vol", [[req(HOSTNAME, "In", "some-host")]], { local: true })
        : {
            ...pv("vol", []),
            spec: {
              hostPath: { path: "/mnt" },
              nodeAffinity: {
                required: { nodeSelectorTerms: [{ matchExpressions: [req(HOSTNAME, "In", "some-host")] }] },
              },
            },
          },
      pvc("p-data", { className: "local-path", volumeName: "vol" }),
      ephemeral("p", "local-path"),
    ],
    expect: { scheduled: ["p"] },
  })),
  {
    name: "an ephemeral in-tree EBS volume counts against the EBS CSI driver's CSINode limit",
    from: suite("should launch nodes for pods with ephemeral volume using a migrated PVC/PV"),
    scenario: [
      ...base,
      storageClass("in-tree", [Z1], { provisioner: "kubernetes.io/aws-ebs" }),
      {
        ...pv("my-volume", [[req(ZONE, "In", Z1)]]),
        spec: {
          awsElasticBlockStore: { volumeID: "vol-1" },
          nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [req(ZONE, "In", Z1)] }] } },
        },
      },
      pvc("running-data", { className: "in-tree", volumeName: "my-volume" }),
      node("n1", { instanceType: "m5.24xlarge", labels: { [ZONE]: Z1 } }),
      csiNode("n1", 1),
      ephemeral("running", "in-tree", { nodeName: "n1" }),
      pvc("p-data", { className: "in-tree" }),
      ephemeral("p", "in-tree"),
    ],
    expect: { onExisting: 0, newNodes: 1 },
  },
  ...(
    [
      ["when pv.kubernetes.io/bind-completed is missing", false],
      ["when pv.kubernetes.io/bind-completed is present", true],
    ] as const
  ).map(([entry, bound]) => ({
    // A scenario's claim gets the annotation as a healthy cluster has it unless its phase says it is not Bound.
    name: bound
      ? "a claim naming its volume and marked bind-completed schedules"
      : "a claim naming its volume but not bind-completed (phase Pending) is not bound yet: the pod waits",
    from: suite(`should handle pods with PVCs with defined volumeName / ${entry}`),
    scenario: [
      ...base,
      storageClass("default-storage-class", [Z1], { provisioner: "other-provider" }),
      pv("pv", [], { driver: "other-provider" }),
      pvc("tmp-ephemeral", {
        className: "default-storage-class",
        volumeName: "pv",
        phase: bound ? "Bound" : "Pending",
      }),
      mounting("p", ["tmp-ephemeral"]),
    ],
    expect: bound ? { scheduled: ["p"] } : { unschedulable: ["p"] },
  })),
];
