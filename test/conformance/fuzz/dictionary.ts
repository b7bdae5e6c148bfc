// Values the differential fuzz draws from by field name, beside what the schema itself says: Karpenter's own
// vocabulary (well-known labels, operators, crons, durations, quantities) and the near misses of each.

const LONG63 = "a".repeat(63);
const LONG64 = "a".repeat(64);

/** Label keys: well-known, restricted, custom, malformed, and names of Object.prototype members. */
export const LABEL_KEYS: readonly string[] = [
  "team", "example.com/team", "karpenter.k8s.aws/instance-category", "karpenter.k8s.aws/instance-cpu",
  "karpenter.k8s.aws/instance-family", "karpenter.k8s.aws/instance-generation", "karpenter.k8s.aws/instance-hypervisor",
  "karpenter.k8s.aws/instance-memory", "karpenter.k8s.aws/capacity-reservation-id", "karpenter.k8s.aws/foo",
  "kubernetes.io/arch", "kubernetes.io/os", "kubernetes.io/hostname", "node.kubernetes.io/instance-type",
  "node.kubernetes.io/windows-build", "topology.kubernetes.io/zone", "topology.kubernetes.io/region", "topology.k8s.aws/zone-id",
  "karpenter.sh/capacity-type", "karpenter.sh/nodepool", "karpenter.sh/foo", "notkarpenter.sh/x", "sub.karpenter.sh/x",
  "node-restriction.kubernetes.io/x", "k8s.io/x", "kubernetes.io/x", "kops.k8s.io/x",
  "a/b/c", "Example.com/x", "-bad", "bad-", "a b", "", "/x", "x/", "a.b/c_d", `${LONG63}`, `${LONG64}`,
  `${"b".repeat(254)}/x`, "__proto__", "constructor", "toString",
];

/** Requirement values: catalog values, integers at int64's edges, and strings that are not label values. */
export const REQUIREMENT_VALUES: readonly string[] = [
  "c", "m", "r", "amd64", "arm64", "linux", "windows", "spot", "on-demand", "reserved", "us-east-1a", "use1-az1",
  "m5.large", "nitro", "general", "4", "0", "1", "-1", "01", "+5", " 5", "1.5", "1e3", "9223372036854775807",
  "9223372036854775808", "100000000000000000000", "", "a b", LONG63, LONG64, "__proto__", "-a", "a_b",
];

export const OPERATORS: readonly string[] = ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte", "in", "Equal", ""];

export const CRONS: readonly string[] = [
  "@daily", "@hourly", "@weekly", "@monthly", "@yearly", "@annually", "@midnight", "@reboot", "@every 1h",
  "0 9 * * mon-fri", "* * * * *", "*/5 * * * *", "0 0 * *", "0 0 * * * *", "61 * * * *", "0 25 * * *",
  "0 0 1 1 ?", "0 0 L * *", "CRON_TZ=Europe/Berlin 0 9 * * *", "TZ=UTC 0 0 * * *", "a b c d e", "0 0 31 2 *",
  "0 0 * * 7", "0 0 * JAN,FEB SUN", "1-5/0 * * * *", "@daily ", " @daily",
];

export const DURATIONS: readonly string[] = [
  "0s", "1s", "30s", "1m", "5m", "1h", "1h30m", "720h", "1h0m0s", "Never", "never", "-1s", "1.5h", "1d", "10", "",
  "1ms", "1us", "2562047h", "2562048h", "9999999999999h", "0m0s", "h", "1m1m",
];

export const BUDGET_NODES: readonly string[] = ["0", "1", "5", "10%", "0%", "100%", "101%", "-1", "1.5", "%", "010%", "1000%", ""];

export const QUANTITIES: readonly unknown[] = [
  "1", "0", "100m", "1Gi", "1000Gi", "1.5Ki", "0.5", "1e3", "1E20", "-1", "-1Gi", "", "1Gb", "Gi", "1 Gi",
  "9223372036854775807", "9223372036854775808", "1e308", 1, 0, -1, 1.5, 1e20, 2 ** 63,
];

export const VOLUME_SIZES: readonly string[] = ["20Gi", "1Ti", "16Ti", "17Ti", "18Ti", "Ti", "0", "100", "1.5Gi", "-1Gi", "20G", "65536Gi", "65537Gi", "1Mi"];

export const TAG_KEYS: readonly string[] = [
  "team", "Name", "__proto__", "constructor", "toString", "hasOwnProperty", "", "eks:eks-cluster-name",
  "kubernetes.io/cluster/demo", "karpenter.sh/nodepool", "karpenter.sh/nodeclaim", "karpenter.k8s.aws/ec2nodeclass",
  "karpenter.sh/discovery", "aws:x", "a b",
];

export const EVICTION_KEYS: readonly string[] = [
  "memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "pid.available", "cpu.available", "__proto__",
];

export const RESERVED_KEYS: readonly string[] = ["cpu", "memory", "ephemeral-storage", "pid", "gpu", "__proto__"];

export const EVICTION_VALUES: readonly string[] = ["5%", "100Mi", "0%", "100%", "-1%", "abc", "1.5%", ""];

export const ALIASES: readonly string[] = [
  "al2023@latest", "al2@latest", "al2@v20240807", "bottlerocket@latest", "bottlerocket@v1.20.0", "windows2019@latest",
  "windows2022@latest", "windows2025@latest", "windows2022@v1", "ubuntu@latest", "al2023", "@latest", "AL2023@latest", "al2023@",
];

export const NAMES: readonly unknown[] = [
  "default", "general", "a", "a.b", "a-b", "Default", "a_b", "-a", "a-", ".a", "a..b", "", "a".repeat(63), "a".repeat(64),
  `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`, "a".repeat(253), "a".repeat(254), 5, null, "__proto__",
];

export const ANNOTATION_KEYS: readonly string[] = [
  ...LABEL_KEYS, "kerf.dev/exempt", "kerf.dev/budget-timezone", "Example.COM/Note", "karpenter.sh/do-not-disrupt",
];

export const FINALIZERS: readonly unknown[] = ["karpenter.sh/termination", "a b", "example.com/x", "", "x", 5, null];

export const IDS: readonly string[] = [
  "ami-0123456789abcdef0", "ami-123", "subnet-0123456789abcdef0", "subnet-1", "sg-0123456789abcdef0", "sg-1", "cr-1", "pg-1",
  "xx ami-1 yy", "", "odcr-1", "lt-1",
];

/** Per field name (the last path segment), or per dotted path with indices removed, extra values to draw. */
export const BY_FIELD: Readonly<Record<string, readonly unknown[]>> = {
  key: LABEL_KEYS,
  values: REQUIREMENT_VALUES.map((v) => [v]),
  operator: OPERATORS,
  schedule: CRONS,
  duration: DURATIONS,
  consolidateAfter: DURATIONS,
  expireAfter: DURATIONS,
  terminationGracePeriod: DURATIONS,
  nodes: BUDGET_NODES,
  reasons: [["Drifted"], ["Empty", "Underutilized"], ["drifted"], []],
  effect: ["NoSchedule", "PreferNoSchedule", "NoExecute", "noschedule", ""],
  value: ["", "x", "true", LONG63, LONG64, "a b", "-a"],
  volumeSize: VOLUME_SIZES,
  alias: ALIASES,
  id: IDS,
  role: ["KarpenterNodeRole-demo", "", "arn:aws:iam::123456789012:role/x"],
  instanceProfile: ["KarpenterNodeInstanceProfile", ""],
  deviceName: ["/dev/xvda", "/dev/xvdb", ""],
  userData: ["#!/bin/bash\necho hi", "", "[settings]\n"],
  clusterDNS: [["10.0.0.10"], ["not-an-ip"], []],
  "metadata.name": NAMES,
  "metadata.generateName": ["general-", "Gen-", "a_", "", "a".repeat(300)],
  "metadata.finalizers": FINALIZERS.map((f) => [f]),
  "spec.template.spec.nodeClassRef.kind": ["EC2NodeClass", "", "Other"],
  "spec.template.spec.nodeClassRef.group": ["karpenter.k8s.aws", "", "example.com"],
};

/** Map keys by the map's field name (additionalProperties), default LABEL_KEYS. */
export const MAP_KEYS: Readonly<Record<string, readonly string[]>> = {
  tags: TAG_KEYS,
  limits: ["cpu", "memory", "nodes", "nvidia.com/gpu", "pods", "__proto__", "a b"],
  evictionHard: EVICTION_KEYS,
  evictionSoft: EVICTION_KEYS,
  evictionSoftGracePeriod: EVICTION_KEYS,
  kubeReserved: RESERVED_KEYS,
  systemReserved: RESERVED_KEYS,
  annotations: ANNOTATION_KEYS,
};

/** Map values by the map's field name, beside the schema's. */
export const MAP_VALUES: Readonly<Record<string, readonly unknown[]>> = {
  limits: QUANTITIES,
  kubeReserved: QUANTITIES,
  systemReserved: QUANTITIES,
  evictionHard: EVICTION_VALUES,
  evictionSoft: EVICTION_VALUES,
  evictionSoftGracePeriod: DURATIONS,
  labels: ["x", "", LONG63, LONG64, "a b", "-a", null, 5],
  annotations: ["x", "", "spot-diversity,runtime,strict", "Europe/Berlin", "Mars/Base", null, 5],
  tags: ["x", "", null, 5],
};

/** Values of a wrong JSON type for anything (and edge numbers that are the right type for some fields). */
export const WRONG_TYPES: readonly unknown[] = [
  null, 0, -1, 1.5, 2 ** 31, 2 ** 53, 2 ** 63, 1e20, -1e20, "x", "", "5", true, false, [], {}, ["x"], { a: "b" }, [null],
];

/** Characters where regex dialects, length counts and decoders part ways: spaces RE2's \s leaves out, line ends
 * JavaScript's . stops at, astral and combining characters, a lone surrogate's neighbours. */
export const TRICKY_CHARS: readonly string[] = [
  "\v", "\u00a0", "\u2003", "\ufeff", "\r", "\n", "\t", "\f", "\u2028", "\u2029", "\u0085", "😀", "é", "e\u0301", "\u0000", "İ", "K",
];
