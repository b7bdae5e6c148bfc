// What of Karpenter's v1.15 API kerf's operator does not act on: the single source for the `operator-ignores`
// warning (kerf check and the webhook), the operator's IgnoredFields condition and start-up log, and the refusal
// table in docs/migrate.md (kept true by operator-coverage.test.ts, which walks every field of manifests/crds).
// Adding or removing a feature is one line in the lists below. Pure data and functions, no I/O.
import { asObject, asString, get, isObject, objects, strings } from "./object.ts";
import { amiFamilyOf } from "./ec2nodeclass/ami-family.ts";

/** The kinds whose fields are classified here. */
export type CoverageKind = "NodePool" | "NodeClaim" | "EC2NodeClass" | "NodeOverlay";

/**
 * A schema location as operator-coverage.test.ts spells it: dot-separated property names from the root of the
 * object, `[]` after a list, `{}` after a map ("spec.networkInterfaces[].deviceIndex"). An entry covers the field
 * and everything under it.
 */
export type SchemaPath = string;

/** A field kerf's operator does not act on, and the Karpenter feature that field asks for. */
export interface IgnoredField {
  readonly kind: CoverageKind;
  readonly path: SchemaPath;
  /** What Karpenter does with it, as the user reads it after "kerf's operator ignores <field> (…)". */
  readonly feature: string;
  /** A status field kerf never writes: listed in the docs, never warned about (users do not set status). */
  readonly status?: true;
}

/** The fields kerf's operator ignores. One line per feature; its children are covered too. */
export const IGNORED_FIELDS: readonly IgnoredField[] = [
  {
    kind: "NodePool",
    path: "status.nodeClassObservedGeneration",
    feature: "the node class generation last seen (for the NodeRegistrationHealthy condition)",
    status: true,
  },
  {
    kind: "EC2NodeClass",
    path: "spec.blockDeviceMappings[].ebs.volumeInitializationRate",
    feature: "EBS volume initialization rate of snapshot volumes",
  },
  { kind: "EC2NodeClass", path: "spec.connectionTracking", feature: "ENI connection-tracking timeouts" },
  { kind: "EC2NodeClass", path: "spec.context", feature: "the reserved Context field of EC2 CreateFleet" },
  { kind: "EC2NodeClass", path: "spec.cpuOptions", feature: "CPU options (nested virtualization)" },
  { kind: "EC2NodeClass", path: "spec.enclaveOptions", feature: "Nitro Enclaves" },
  { kind: "EC2NodeClass", path: "spec.ipPrefixCount", feature: "IPv4 prefixes assigned to the network interface" },
  {
    kind: "EC2NodeClass",
    path: "spec.networkInterfaces",
    feature: "the network interfaces of an instance (EFA, several network cards)",
  },
  { kind: "EC2NodeClass", path: "spec.placementGroupSelector", feature: "launching into a placement group" },
];

/**
 * The fields kerf's operator implements (reads, or writes for status), by parent location: parent → child names.
 * Unlike IGNORED_FIELDS an entry covers only itself, so a field Karpenter adds under an implemented one is
 * caught by operator-coverage.test.ts until it is classified here or there.
 */
export const IMPLEMENTED_FIELDS: Readonly<Record<CoverageKind, Readonly<Record<SchemaPath, readonly string[]>>>> = {
  NodePool: {
    "": ["apiVersion", "kind", "metadata", "spec", "status"],
    spec: ["disruption", "limits", "replicas", "template", "weight"],
    "spec.disruption": ["budgets", "consolidateAfter", "consolidationPolicy"],
    "spec.disruption.budgets[]": ["duration", "nodes", "reasons", "schedule"],
    "spec.template": ["metadata", "spec"],
    "spec.template.metadata": ["annotations", "labels"],
    "spec.template.spec": [
      "expireAfter",
      "nodeClassRef",
      "requirements",
      "startupTaints",
      "taints",
      "terminationGracePeriod",
    ],
    "spec.template.spec.nodeClassRef": ["group", "kind", "name"],
    "spec.template.spec.requirements[]": ["key", "minValues", "operator", "values"],
    "spec.template.spec.startupTaints[]": ["effect", "key", "timeAdded", "value"],
    "spec.template.spec.taints[]": ["effect", "key", "timeAdded", "value"],
    status: ["conditions", "nodes", "resources"],
    "status.conditions[]": ["lastTransitionTime", "message", "observedGeneration", "reason", "status", "type"],
  },
  NodeClaim: {
    "": ["apiVersion", "kind", "metadata", "spec", "status"],
    spec: [
      "expireAfter",
      "nodeClassRef",
      "requirements",
      "resources",
      "startupTaints",
      "taints",
      "terminationGracePeriod",
    ],
    "spec.nodeClassRef": ["group", "kind", "name"],
    "spec.requirements[]": ["key", "minValues", "operator", "values"],
    "spec.resources": ["requests"],
    "spec.startupTaints[]": ["effect", "key", "timeAdded", "value"],
    "spec.taints[]": ["effect", "key", "timeAdded", "value"],
    status: ["allocatable", "capacity", "conditions", "imageID", "lastPodEventTime", "nodeName", "providerID"],
    "status.conditions[]": ["lastTransitionTime", "message", "observedGeneration", "reason", "status", "type"],
  },
  NodeOverlay: {
    "": ["apiVersion", "kind", "metadata", "spec", "status"],
    spec: ["capacity", "price", "priceAdjustment", "requirements", "weight"],
    "spec.requirements[]": ["key", "operator", "values"],
    status: ["conditions"],
    "status.conditions[]": ["lastTransitionTime", "message", "observedGeneration", "reason", "status", "type"],
  },
  EC2NodeClass: {
    "": ["apiVersion", "kind", "metadata", "spec", "status"],
    spec: [
      "amiFamily",
      "amiSelectorTerms",
      "associatePublicIPAddress",
      "blockDeviceMappings",
      "capacityReservationSelectorTerms",
      "detailedMonitoring",
      "instanceProfile",
      "instanceStorePolicy",
      "kubelet",
      "metadataOptions",
      "role",
      "securityGroupSelectorTerms",
      "subnetSelectorTerms",
      "tags",
      "userData",
    ],
    "spec.capacityReservationSelectorTerms[]": ["id", "instanceMatchCriteria", "ownerID", "tags"],
    "spec.amiSelectorTerms[]": ["alias", "id", "name", "owner", "ssmParameter", "tags"],
    "spec.blockDeviceMappings[]": ["deviceName", "ebs", "rootVolume"],
    "spec.blockDeviceMappings[].ebs": [
      "deleteOnTermination",
      "encrypted",
      "iops",
      "kmsKeyID",
      "snapshotID",
      "throughput",
      "volumeSize",
      "volumeType",
    ],
    "spec.metadataOptions": ["httpEndpoint", "httpProtocolIPv6", "httpPutResponseHopLimit", "httpTokens"],
    "spec.securityGroupSelectorTerms[]": ["id", "name", "tags"],
    "spec.subnetSelectorTerms[]": ["id", "tags"],
    status: ["amis", "capacityReservations", "conditions", "instanceProfile", "securityGroups", "subnets"],
    "status.capacityReservations[]": [
      "availabilityZone",
      "endTime",
      "id",
      "instanceMatchCriteria",
      "instanceType",
      "interruptible",
      "ownerID",
      "reservationType",
      "state",
    ],
    "status.amis[]": ["deprecated", "id", "name", "requirements"],
    "status.amis[].requirements[]": ["key", "operator", "values"],
    "status.conditions[]": ["lastTransitionTime", "message", "observedGeneration", "reason", "status", "type"],
    "status.securityGroups[]": ["id", "name"],
    "status.subnets[]": ["id", "zone", "zoneID"],
  },
};

/**
 * spec.kubelet is free-form from Karpenter v1.15 (any KubeletConfiguration field): AL2023 passes every field
 * through to its NodeConfig, as Karpenter does; the other families write these keys and ignore the others.
 */
export const HONOURED_KUBELET_KEYS: readonly string[] = [
  "clusterDNS",
  "cpuCFSQuota",
  "evictionHard",
  "evictionMaxPodGracePeriod",
  "evictionSoft",
  "evictionSoftGracePeriod",
  "imageGCHighThresholdPercent",
  "imageGCLowThresholdPercent",
  "kubeReserved",
  "maxPods",
  "podsPerCore",
  "systemReserved",
];

/** NodePool requirement keys (labels) kerf never puts on an instance type: a requirement on them is ignored. */
export const IGNORED_REQUIREMENT_LABELS: Readonly<Record<string, string>> = {
  "karpenter.k8s.aws/placement-group-id": "launching into a placement group",
  "karpenter.k8s.aws/placement-group-partition": "launching into a placement group",
};

/** Annotations in a NodePool's template (they go onto its Nodes) that ask for something kerf does not do. */
export const IGNORED_TEMPLATE_ANNOTATIONS: Readonly<Record<string, string>> = {
  "karpenter.sh/do-not-repair": "keeping a node out of node repair (kerf's node repair does not read it)",
};

/** Values of a field kerf honours that ask for a feature it lacks. */
export const IGNORED_VALUES: readonly {
  readonly kind: CoverageKind;
  readonly path: SchemaPath;
  readonly value: string;
  readonly feature: string;
}[] = [
  {
    kind: "NodePool",
    path: "spec.disruption.budgets[].reasons",
    value: "Unhealthy",
    feature: "pacing node repair by budgets (kerf's repairs are not paced by budgets)",
  },
];

/** Karpenter feature gates (FEATURE_GATES) kerf does not implement: on (true) they would be ignored. */
export const IGNORED_FEATURE_GATES: Readonly<Record<string, string>> = {
  CapacityBuffer: "CapacityBuffer",
  TerminateFirstDrift: "terminating a drifted node before its replacement launches",
  TerminateFirstRepair: "terminating an unhealthy node before its replacement launches",
  PodDeletionCostManagement: "writing controller.kubernetes.io/pod-deletion-cost",
};

/** Karpenter feature gates kerf implements. */
export const HONOURED_FEATURE_GATES: readonly string[] = [
  "NodeOverlay",
  "NodeRepair",
  "ReservedCapacity",
  "SpotToSpotConsolidation",
  "StaticCapacity",
];

/**
 * Karpenter settings (environment variables of its controller) kerf's operator does not read, with the one value
 * that means what kerf does anyway; any other value would be ignored.
 */
export const IGNORED_SETTINGS: readonly { readonly env: string; readonly means: string; readonly feature: string }[] = [
  {
    env: "VM_MEMORY_OVERHEAD_PERCENT",
    means: "0.075",
    feature: "the VM memory overhead subtracted from capacity (kerf: 7.5 %)",
  },
  { env: "RESERVED_ENIS", means: "0", feature: "ENIs held back from max-pods" },
  { env: "ENABLE_ZONAL_SHIFT", means: "false", feature: "following EKS zonal shifts" },
  { env: "PREFERENCE_POLICY", means: "Respect", feature: "ignoring preferences" },
  { env: "MIN_VALUES_POLICY", means: "Strict", feature: "relaxing minValues" },
  {
    env: "DISABLE_CLUSTER_STATE_OBSERVABILITY",
    means: "false",
    feature: "turning cluster-state metrics and events off",
  },
];

/** One ignored thing found in an object: where (apiserver style), which table entry, and why. */
export interface IgnoredUse {
  /** Where in the object: "spec.networkInterfaces", "spec.kubelet.shutdownGracePeriod". */
  readonly path: string;
  /** The field as the docs table names it (a SchemaPath, or a label/annotation key). */
  readonly field: string;
  readonly feature: string;
}

/**
 * The objects a SchemaPath's parts lead to in an object, with their apiserver paths ("spec.a[0].b"); a part
 * ending in `[]` steps into each list item. Absent (or null) values lead nowhere.
 */
function reached(node: unknown, parts: readonly string[], at = ""): { node: unknown; at: string }[] {
  if (node === undefined || node === null) return [];
  const [head, ...rest] = parts;
  if (head === undefined) return [{ node, at }];
  const name = head.endsWith("[]") ? head.slice(0, -2) : head;
  const child = isObject(node) && Object.hasOwn(node, name) ? node[name] : undefined;
  const here = at === "" ? name : `${at}.${name}`;
  if (!head.endsWith("[]")) return reached(child, rest, here);
  return Array.isArray(child) ? child.flatMap((item, i) => reached(item, rest, `${here}[${i}]`)) : [];
}

function fieldUses(kind: CoverageKind, object: unknown): IgnoredUse[] {
  return IGNORED_FIELDS.filter((f) => f.kind === kind && f.status !== true).flatMap((f) =>
    reached(object, f.path.split(".")).map(({ at }) => ({ path: at, field: f.path, feature: f.feature })),
  );
}

function valueUses(kind: CoverageKind, object: unknown): IgnoredUse[] {
  return IGNORED_VALUES.filter((v) => v.kind === kind).flatMap((v) =>
    reached(object, v.path.split("."))
      .filter(({ node }) => strings(node).includes(v.value))
      .map(({ at }) => ({ path: at, field: `${v.path}: ${v.value}`, feature: v.feature })),
  );
}

/** The families that pass spec.kubelet through whole (AL2023's NodeConfig, as Karpenter v1.15). */
const PASSTHROUGH_KUBELET_FAMILIES: ReadonlySet<string> = new Set(["AL2023"]);

function kubeletUses(object: unknown): IgnoredUse[] {
  const kubelet = asObject(get(object, "spec", "kubelet")) ?? {};
  const family = amiFamilyOf({
    amiFamily: asString(get(object, "spec", "amiFamily")),
    amiSelectorTerms: objects(get(object, "spec", "amiSelectorTerms")).map((t) => ({ alias: asString(t["alias"]) })),
  });
  if (PASSTHROUGH_KUBELET_FAMILIES.has(family)) return [];
  return Object.keys(kubelet)
    .filter((k) => !HONOURED_KUBELET_KEYS.includes(k))
    .sort()
    .map((key) => ({
      path: `spec.kubelet.${key}`,
      field: "spec.kubelet.*",
      feature:
        `a KubeletConfiguration field the ${family} family does not write into user data ` +
        `(AL2023 passes every field)`,
    }));
}

function nodePoolUses(object: unknown): IgnoredUse[] {
  const requirements = objects(get(object, "spec", "template", "spec", "requirements")).flatMap((r, i) => {
    const key = asString(r["key"]) ?? "";
    const feature = Object.hasOwn(IGNORED_REQUIREMENT_LABELS, key) ? IGNORED_REQUIREMENT_LABELS[key] : undefined;
    return feature === undefined ? [] : [{ path: `spec.template.spec.requirements[${i}].key`, field: key, feature }];
  });
  const annotations = Object.keys(asObject(get(object, "spec", "template", "metadata", "annotations")) ?? {})
    .filter((key) => Object.hasOwn(IGNORED_TEMPLATE_ANNOTATIONS, key))
    .map((key) => ({
      path: `spec.template.metadata.annotations.${key}`,
      field: key,
      feature: IGNORED_TEMPLATE_ANNOTATIONS[key] ?? "",
    }));
  return [...requirements, ...annotations];
}

/** What in this object kerf's operator would ignore, in a stable order (table order, then location). */
export function ignoredUses(kind: CoverageKind, object: unknown): IgnoredUse[] {
  const uses = [...fieldUses(kind, object), ...valueUses(kind, object)];
  if (kind === "EC2NodeClass") uses.push(...kubeletUses(object));
  if (kind === "NodePool") uses.push(...nodePoolUses(object));
  return uses;
}

/** One sentence naming every ignored use, for warnings, the condition message and the log. */
export function ignoredUsesMessage(uses: readonly IgnoredUse[]): string {
  return `kerf's operator ignores ${uses.map((u) => `${u.path} (${u.feature})`).join(", ")}`;
}

/** The feature gates turned on that kerf ignores, and gate names neither Karpenter's nor kerf's; sorted. */
export function ignoredFeatureGates(gates: Readonly<Record<string, boolean>>): {
  readonly ignored: string[];
  readonly unknown: string[];
} {
  const names = Object.keys(gates).sort();
  return {
    ignored: names.filter((n) => gates[n] === true && Object.hasOwn(IGNORED_FEATURE_GATES, n)),
    unknown: names.filter((n) => !Object.hasOwn(IGNORED_FEATURE_GATES, n) && !HONOURED_FEATURE_GATES.includes(n)),
  };
}

/** The Karpenter settings present in an environment with a value kerf would ignore (env name → value), sorted. */
export function ignoredSettings(
  env: Readonly<Record<string, string | undefined>>,
): { readonly env: string; readonly value: string; readonly feature: string }[] {
  return IGNORED_SETTINGS.flatMap((s) => {
    const value = env[s.env];
    return value === undefined || value === "" || value === s.means ? [] : [{ env: s.env, value, feature: s.feature }];
  });
}

/** One row of the refusal table in docs/migrate.md: what (code), where, what Karpenter does with it. */
export type CoverageRow = readonly [what: string, where: string, karpenter: string];

/** The refusal table of docs/migrate.md, row by row, in the order the lists above give. */
export function coverageTableRows(): CoverageRow[] {
  return [
    ...IGNORED_FIELDS.map((f): CoverageRow => [
      f.path,
      f.status === true ? `${f.kind} (status, never written)` : f.kind,
      f.feature,
    ]),
    [
      "spec.kubelet.*",
      "EC2NodeClass",
      `outside AL2023 (which passes every field through), ` +
        `any KubeletConfiguration field but ${HONOURED_KUBELET_KEYS.join(", ")}`,
    ],
    ...IGNORED_VALUES.map((v): CoverageRow => [`${v.path}: ${v.value}`, v.kind, v.feature]),
    ...Object.entries(IGNORED_REQUIREMENT_LABELS).map(([key, feature]): CoverageRow => [
      key,
      "NodePool requirement key",
      feature,
    ]),
    ...Object.entries(IGNORED_TEMPLATE_ANNOTATIONS).map(([key, feature]): CoverageRow => [
      key,
      "NodePool template annotation",
      feature,
    ]),
    ...Object.entries(IGNORED_FEATURE_GATES).map(([gate, feature]): CoverageRow => [
      `${gate}=true`,
      "feature gate",
      feature,
    ]),
    ...IGNORED_SETTINGS.map((s): CoverageRow => [s.env, `setting (only ${s.means})`, s.feature]),
  ];
}
