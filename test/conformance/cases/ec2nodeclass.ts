// EC2NodeClass cases: schema, one per CEL rule (exact messages), strict gaps (§10.1–3, 13) and security policies.
import { EC2NODECLASS, variant, type ConformanceCase, type Draft } from "../case.ts";

const nc = (edit: (o: Draft) => void): Record<string, unknown> => variant(EC2NODECLASS, edit);
const S = "spec";
type Row = [name: string, edit: (o: Draft) => void, path: string, message: string];

const ebs = (e: Record<string, unknown>) => (o: Draft) =>
  (o.spec.blockDeviceMappings = [{ deviceName: "/dev/xvda", ebs: { encrypted: true, ...e } }]);
const kubelet = (k: Record<string, unknown>) => (o: Draft) => (o.spec.kubelet = k);
const amiTerms = (terms: unknown[], family?: string) => (o: Draft) => {
  o.spec.amiSelectorTerms = terms;
  if (family !== undefined) o.spec.amiFamily = family;
};
const EVICTION_KEYS =
  "['memory.available','nodefs.available','nodefs.inodesFree','imagefs.available'," +
  "'imagefs.inodesFree','pid.available']";

/** [name, edit, path, exact CEL message]: each row breaks exactly one upstream rule. */
const CEL_ROWS: Row[] = [
  [
    "rejects both role and instanceProfile",
    (o) => (o.spec.instanceProfile = "p"),
    S,
    "must specify exactly one of ['role', 'instanceProfile']",
  ],
  [
    "rejects amiFamily AL2023 with an al2 alias",
    amiTerms([{ alias: "al2@latest" }], "AL2023"),
    S,
    "if set, amiFamily must be 'AL2' or 'Custom' when using an AL2 alias",
  ],
  [
    "rejects amiFamily AL2 with an al2023 alias",
    amiTerms([{ alias: "al2023@latest" }], "AL2"),
    S,
    "if set, amiFamily must be 'AL2023' or 'Custom' when using an AL2023 alias",
  ],
  [
    "rejects amiFamily AL2 with a bottlerocket alias",
    amiTerms([{ alias: "bottlerocket@latest" }], "AL2"),
    S,
    "if set, amiFamily must be 'Bottlerocket' or 'Custom' when using a Bottlerocket alias",
  ],
  [
    "rejects amiFamily AL2 with a windows2019 alias",
    amiTerms([{ alias: "windows2019@latest" }], "AL2"),
    S,
    "if set, amiFamily must be 'Windows2019' or 'Custom' when using a Windows2019 alias",
  ],
  [
    "rejects amiFamily AL2 with a windows2022 alias",
    amiTerms([{ alias: "windows2022@latest" }], "AL2"),
    S,
    "if set, amiFamily must be 'Windows2022' or 'Custom' when using a Windows2022 alias",
  ],
  [
    "rejects amiFamily AL2 with a windows2025 alias",
    amiTerms([{ alias: "windows2025@latest" }], "AL2"),
    S,
    "if set, amiFamily must be 'Windows2025' or 'Custom' when using a Windows2025 alias",
  ],
  [
    "rejects AMI terms without alias and without amiFamily",
    amiTerms([{ id: "ami-123" }]),
    S,
    "must specify amiFamily if amiSelectorTerms does not contain an alias",
  ],
  [
    "rejects an empty AMI selector term",
    amiTerms([{ owner: "self" }], "AL2023"),
    `${S}.amiSelectorTerms`,
    "expected at least one, got none, ['tags', 'id', 'name', 'alias', 'ssmParameter']",
  ],
  [
    "rejects an AMI id combined with a name",
    amiTerms([{ id: "ami-123", name: "x" }], "AL2023"),
    `${S}.amiSelectorTerms`,
    "'id' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms",
  ],
  [
    "rejects an alias combined with an owner",
    amiTerms([{ alias: "al2023@latest", owner: "self" }]),
    `${S}.amiSelectorTerms`,
    "'alias' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms",
  ],
  [
    "rejects an alias next to another term",
    amiTerms([{ alias: "al2023@latest" }, { name: "x" }]),
    `${S}.amiSelectorTerms`,
    "'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms",
  ],
  [
    "rejects an alias without a version",
    amiTerms([{ alias: "al2023" }]),
    `${S}.amiSelectorTerms[0].alias`,
    "'alias' is improperly formatted, must match the format 'family@version'",
  ],
  [
    "rejects an unsupported alias family",
    amiTerms([{ alias: "ubuntu@latest" }]),
    `${S}.amiSelectorTerms[0].alias`,
    "family is not supported, must be one of the following: 'al2', 'al2023', 'bottlerocket', 'windows2019', " +
      "'windows2022', 'windows2025'",
  ],
  [
    "rejects a pinned windows alias",
    amiTerms([{ alias: "windows2022@v1" }]),
    `${S}.amiSelectorTerms[0].alias`,
    "windows families may only specify version 'latest'",
  ],
  [
    "rejects an empty AMI tag value",
    amiTerms([{ tags: { a: "" } }], "AL2023"),
    `${S}.amiSelectorTerms[0].tags`,
    "empty tag keys or values aren't supported",
  ],
  [
    "rejects two root volumes",
    (o) =>
      (o.spec.blockDeviceMappings = [
        { rootVolume: true, ebs: { volumeSize: "20Gi", encrypted: true } },
        { rootVolume: true, ebs: { volumeSize: "20Gi", encrypted: true } },
      ]),
    `${S}.blockDeviceMappings`,
    "must have only one blockDeviceMappings with rootVolume",
  ],
  [
    "rejects an ebs volume without size or snapshot",
    ebs({ volumeType: "gp3" }),
    `${S}.blockDeviceMappings[0].ebs`,
    "snapshotID or volumeSize must be defined",
  ],
  [
    "rejects volumeInitializationRate without snapshotID",
    ebs({ volumeSize: "20Gi", volumeInitializationRate: 200 }),
    `${S}.blockDeviceMappings[0].ebs`,
    "snapshotID must be set when volumeInitializationRate is set",
  ],
  [
    "rejects an empty capacity reservation term",
    (o) => (o.spec.capacityReservationSelectorTerms = [{ ownerID: "123456789012" }]),
    `${S}.capacityReservationSelectorTerms`,
    "expected at least one, got none, ['tags', 'id', 'instanceMatchCriteria']",
  ],
  [
    "rejects a capacity reservation id with tags",
    (o) => (o.spec.capacityReservationSelectorTerms = [{ id: "cr-1", tags: { a: "b" } }]),
    `${S}.capacityReservationSelectorTerms`,
    "'id' is mutually exclusive, cannot be set along with other fields in a capacity reservation selector term",
  ],
  [
    "rejects an empty capacity reservation tag",
    (o) => (o.spec.capacityReservationSelectorTerms = [{ tags: { a: "" } }]),
    `${S}.capacityReservationSelectorTerms[0].tags`,
    "empty tag keys or values aren't supported",
  ],
  [
    "rejects an empty connectionTracking",
    (o) => (o.spec.connectionTracking = {}),
    `${S}.connectionTracking`,
    "at least one of tcpEstablishedTimeout, udpStreamTimeout, or udpTimeout must be set",
  ],
  [
    "rejects an empty instanceProfile",
    (o) => {
      delete o.spec.role;
      o.spec.instanceProfile = "";
    },
    `${S}.instanceProfile`,
    "instanceProfile cannot be empty",
  ],
  [
    "rejects imageGC high below low",
    kubelet({ imageGCHighThresholdPercent: 50, imageGCLowThresholdPercent: 60 }),
    `${S}.kubelet`,
    "imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent",
  ],
  [
    "rejects evictionSoft without a grace period",
    kubelet({ evictionSoft: { "memory.available": "5%" }, evictionSoftGracePeriod: { "nodefs.available": "1m" } }),
    `${S}.kubelet`,
    "evictionSoft OwnerKey does not have a matching evictionSoftGracePeriod",
  ],
  [
    "rejects a grace period without evictionSoft",
    kubelet({
      evictionSoft: { "memory.available": "5%" },
      evictionSoftGracePeriod: { "memory.available": "1m", "nodefs.available": "1m" },
    }),
    `${S}.kubelet`,
    "evictionSoftGracePeriod OwnerKey does not have a matching evictionSoft",
  ],
  [
    "rejects an unknown evictionHard key",
    kubelet({ evictionHard: { "cpu.available": "5%" } }),
    `${S}.kubelet.evictionHard`,
    `valid keys for evictionHard are ${EVICTION_KEYS}`,
  ],
  [
    "rejects an unknown evictionSoft key",
    kubelet({ evictionSoft: { "cpu.available": "5%" }, evictionSoftGracePeriod: { "cpu.available": "1m" } }),
    `${S}.kubelet.evictionSoft`,
    `valid keys for evictionSoft are ${EVICTION_KEYS}`,
  ],
  [
    "rejects an unknown evictionSoftGracePeriod key",
    kubelet({ evictionSoft: { "cpu.available": "5%" }, evictionSoftGracePeriod: { "cpu.available": "1m" } }),
    `${S}.kubelet.evictionSoftGracePeriod`,
    `valid keys for evictionSoftGracePeriod are ${EVICTION_KEYS}`,
  ],
  [
    "rejects an unknown kubeReserved key",
    kubelet({ kubeReserved: { gpu: "1" } }),
    `${S}.kubelet.kubeReserved`,
    "valid keys for kubeReserved are ['cpu','memory','ephemeral-storage','pid']",
  ],
  [
    "rejects a negative kubeReserved value",
    kubelet({ kubeReserved: { cpu: "-1" } }),
    `${S}.kubelet.kubeReserved`,
    "kubeReserved value cannot be a negative resource quantity",
  ],
  [
    "rejects an unknown systemReserved key",
    kubelet({ systemReserved: { gpu: "1" } }),
    `${S}.kubelet.systemReserved`,
    "valid keys for systemReserved are ['cpu','memory','ephemeral-storage','pid']",
  ],
  [
    "rejects a negative systemReserved value",
    kubelet({ systemReserved: { memory: "-1Gi" } }),
    `${S}.kubelet.systemReserved`,
    "systemReserved value cannot be a negative resource quantity",
  ],
  [
    "rejects network interfaces without a primary interface",
    (o) => (o.spec.networkInterfaces = [{ deviceIndex: 1, networkCardIndex: 0, interfaceType: "interface" }]),
    `${S}.networkInterfaces`,
    "networkInterfaces must include a primary interface with interfaceType='interface'",
  ],
  [
    "rejects two efa devices on one network card",
    (o) =>
      (o.spec.networkInterfaces = [
        { deviceIndex: 0, networkCardIndex: 0, interfaceType: "interface" },
        { deviceIndex: 1, networkCardIndex: 0, interfaceType: "efa-only" },
        { deviceIndex: 2, networkCardIndex: 0, interfaceType: "efa-only" },
      ]),
    `${S}.networkInterfaces`,
    "networkInterfaces must not have duplicate networkCardIndex and deviceIndex pairs, " +
      "and can have at most one efa device per network card",
  ],
  [
    "rejects an empty placementGroupSelector",
    (o) => (o.spec.placementGroupSelector = {}),
    `${S}.placementGroupSelector`,
    "expected at least one, got none, ['name', 'id']",
  ],
  [
    "rejects a placementGroupSelector with name and id",
    (o) => (o.spec.placementGroupSelector = { name: "a", id: "pg-1" }),
    `${S}.placementGroupSelector`,
    "'name' and 'id' are mutually exclusive",
  ],
  ["rejects an empty role", (o) => (o.spec.role = ""), `${S}.role`, "role cannot be empty"],
  [
    "rejects empty securityGroupSelectorTerms",
    (o) => (o.spec.securityGroupSelectorTerms = []),
    `${S}.securityGroupSelectorTerms`,
    "securityGroupSelectorTerms cannot be empty",
  ],
  [
    "rejects an empty security group term",
    (o) => (o.spec.securityGroupSelectorTerms = [{}]),
    `${S}.securityGroupSelectorTerms`,
    "expected at least one, got none, ['tags', 'id', 'name']",
  ],
  [
    "rejects a security group id with tags in every term",
    (o) => (o.spec.securityGroupSelectorTerms = [{ id: "sg-1", tags: { a: "b" } }]),
    `${S}.securityGroupSelectorTerms`,
    "'id' is mutually exclusive, cannot be set with a combination of other fields in a security group selector term",
  ],
  [
    "rejects a security group name with tags in every term",
    (o) => (o.spec.securityGroupSelectorTerms = [{ name: "a", tags: { a: "b" } }]),
    `${S}.securityGroupSelectorTerms`,
    "'name' is mutually exclusive, cannot be set with a combination of other fields in a security group selector term",
  ],
  [
    "rejects an empty security group tag",
    (o) => (o.spec.securityGroupSelectorTerms = [{ tags: { a: "" } }]),
    `${S}.securityGroupSelectorTerms[0].tags`,
    "empty tag keys or values aren't supported",
  ],
  [
    "rejects empty subnetSelectorTerms",
    (o) => (o.spec.subnetSelectorTerms = []),
    `${S}.subnetSelectorTerms`,
    "subnetSelectorTerms cannot be empty",
  ],
  [
    "rejects an empty subnet term",
    (o) => (o.spec.subnetSelectorTerms = [{}]),
    `${S}.subnetSelectorTerms`,
    "expected at least one, got none, ['tags', 'id']",
  ],
  [
    "rejects a subnet id with tags in every term",
    (o) => (o.spec.subnetSelectorTerms = [{ id: "subnet-1", tags: { a: "b" } }]),
    `${S}.subnetSelectorTerms`,
    "'id' is mutually exclusive, cannot be set with a combination of other fields in a subnet selector term",
  ],
  [
    "rejects an empty subnet tag",
    (o) => (o.spec.subnetSelectorTerms = [{ tags: { a: "" } }]),
    `${S}.subnetSelectorTerms[0].tags`,
    "empty tag keys or values aren't supported",
  ],
  ["rejects an empty tag key", (o) => (o.spec.tags = { "": "x" }), `${S}.tags`, "empty tag keys aren't supported"],
  [
    "rejects the eks:eks-cluster-name tag",
    (o) => (o.spec.tags = { "eks:eks-cluster-name": "x" }),
    `${S}.tags`,
    "tag contains a restricted tag matching eks:eks-cluster-name",
  ],
  [
    "rejects a kubernetes.io/cluster tag",
    (o) => (o.spec.tags = { "kubernetes.io/cluster/demo": "owned" }),
    `${S}.tags`,
    "tag contains a restricted tag matching kubernetes.io/cluster/",
  ],
  [
    "rejects the karpenter.sh/nodepool tag",
    (o) => (o.spec.tags = { "karpenter.sh/nodepool": "x" }),
    `${S}.tags`,
    "tag contains a restricted tag matching karpenter.sh/nodepool",
  ],
  [
    "rejects the karpenter.sh/nodeclaim tag",
    (o) => (o.spec.tags = { "karpenter.sh/nodeclaim": "x" }),
    `${S}.tags`,
    "tag contains a restricted tag matching karpenter.sh/nodeclaim",
  ],
  [
    "rejects the karpenter.k8s.aws/ec2nodeclass tag",
    (o) => (o.spec.tags = { "karpenter.k8s.aws/ec2nodeclass": "x" }),
    `${S}.tags`,
    "tag contains a restricted tag matching karpenter.k8s.aws/ec2nodeclass",
  ],
];

/** One case per EC2NodeClass CEL rule. */
export const EC2NODECLASS_CEL_CASES: ConformanceCase[] = CEL_ROWS.map(([name, edit, path, message]) => ({
  name,
  kind: "EC2NodeClass",
  object: nc(edit),
  apiserver: "reject",
  kerf: "deny",
  expect: [{ policy: "cel", path, message }],
}));

/** Schema, strict and security cases. */
export const EC2NODECLASS_OTHER_CASES: ConformanceCase[] = [
  {
    name: "accepts the reference EC2NodeClass",
    kind: "EC2NodeClass",
    object: EC2NODECLASS,
    apiserver: "accept",
    kerf: "allow",
  },
  {
    name: "rejects an unknown amiFamily",
    kind: "EC2NodeClass",
    object: nc((o) => (o.spec.amiFamily = "Ubuntu")),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "spec.amiFamily" }],
  },
  {
    name: "rejects a hop limit of 65",
    kind: "EC2NodeClass",
    object: nc((o) => (o.spec.metadataOptions = { httpPutResponseHopLimit: 65 })),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "spec.metadataOptions.httpPutResponseHopLimit" }],
  },
  {
    name: "rejects a volumeSize of 18Ti (the upstream pattern skips 18 and 19)",
    kind: "EC2NodeClass",
    object: nc(ebs({ volumeSize: "18Ti" })),
    apiserver: "reject",
    kerf: "deny",
    expect: [{ policy: "schema", path: "spec.blockDeviceMappings[0].ebs.volumeSize" }],
    ref: "§10.3",
  },
  {
    name: "denies a bare Ti volumeSize the upstream pattern accepts",
    kind: "EC2NodeClass",
    object: nc(ebs({ volumeSize: "Ti" })),
    apiserver: "accept",
    kerf: "deny",
    expect: [{ policy: "strict", path: "spec.blockDeviceMappings[0].ebs.volumeSize" }],
    ref: "§10.3",
  },
  {
    name: "denies a subnet id with tags hidden by a good term (.all instead of .exists)",
    kind: "EC2NodeClass",
    object: nc((o) => (o.spec.subnetSelectorTerms = [{ id: "subnet-1", tags: { a: "b" } }, { tags: { c: "d" } }])),
    apiserver: "accept",
    kerf: "deny",
    expect: [{ policy: "strict", path: "spec.subnetSelectorTerms[0]" }],
    ref: "§10.1",
  },
  {
    name: "denies an AMI id that merely contains an id",
    kind: "EC2NodeClass",
    object: nc(amiTerms([{ id: "xx ami-1 yy" }], "AL2023")),
    apiserver: "accept",
    kerf: "deny",
    expect: [{ policy: "strict", path: "spec.amiSelectorTerms[0].id" }],
    ref: "§10.2",
  },
  {
    name: "denies an EC2NodeClass without spec",
    kind: "EC2NodeClass",
    object: nc((o) => delete o.spec),
    apiserver: "accept",
    kerf: "deny",
    expect: [{ policy: "strict", path: "spec" }],
    ref: "§10.13 (verify)",
  },
  {
    name: "warns when IMDSv1 is allowed",
    kind: "EC2NodeClass",
    object: nc((o) => (o.spec.metadataOptions = { httpTokens: "optional" })),
    apiserver: "accept",
    kerf: "allow",
    expect: [{ policy: "imdsv2-required", path: "spec.metadataOptions.httpTokens" }],
  },
  {
    name: "warns about an unencrypted EBS volume",
    kind: "EC2NodeClass",
    object: nc((o) => (o.spec.blockDeviceMappings = [{ deviceName: "/dev/xvda", ebs: { volumeSize: "20Gi" } }])),
    apiserver: "accept",
    kerf: "allow",
    expect: [{ policy: "ebs-encrypted", path: "spec.blockDeviceMappings[0].ebs.encrypted" }],
  },
  {
    name: "warns about an unknown field the apiserver would prune",
    kind: "EC2NodeClass",
    object: nc((o) => (o.spec.amiFamilly = "AL2023")),
    apiserver: "accept",
    kerf: "allow",
    expect: [{ policy: "unknown-fields", path: "spec.amiFamilly" }],
  },
];
