// Default topology spread constraints of the kube-scheduler configuration (issue 22 item 9; Karpenter
// scheduling/topology_test.go "DefaultConstraints"). As kube-scheduler, a pod without constraints of its own gets
// the defaults, with a selector deduced from the Services that select it and its controller (here a ReplicaSet).
import {
  HOSTNAME,
  ZONE,
  ZONES,
  node,
  nodeClass,
  nodePool,
  pod,
  req,
  type Doc,
  type Labels,
  type ParityCase,
  type PoolSpec,
  type Source,
} from "./harness.ts";

const topo = (it: string): Source => ({ file: "scheduling/topology_test.go", it });
const [Z1, Z2] = ZONES;
const L = { test: "test" };
const withPool = (spec: PoolSpec, ...docs: Doc[]): Doc[] => [nodeClass(), nodePool("default", spec), ...docs];

const replicaSet = (name: string, selector: Labels): Doc => ({
  apiVersion: "apps/v1",
  kind: "ReplicaSet",
  metadata: { name, namespace: "default", uid: `${name}-uid` },
  spec: { selector: { matchLabels: selector } },
});
const ownedBy = (kind: string, name: string, apiVersion = "apps/v1"): Doc => ({
  ownerReferences: [{ apiVersion, kind, name, uid: `${name}-uid`, controller: true }],
});
/** `n` pending pods carrying `o.labels` (default L), controlled by ReplicaSet `o.rs` (default "rs"), with `o.extra`. */
const owned = (prefix: string, n: number, o: { rs?: string; labels?: Labels; extra?: Doc } = {}): Doc[] =>
  Array.from({ length: n }, (_, i) =>
    pod(`${prefix}-${i}`, { labels: o.labels ?? L, metadata: ownedBy("ReplicaSet", o.rs ?? "rs"), ...(o.extra ?? {}) }),
  );
const config = (...defaultConstraints: Doc[]): Doc => ({ podTopologySpread: { defaultConstraints } });
const zoneDefault = { topologyKey: ZONE, whenUnsatisfiable: "DoNotSchedule", maxSkew: 1 };
const hostnameDefault = { topologyKey: HOSTNAME, whenUnsatisfiable: "DoNotSchedule", maxSkew: 1 };
const zoneMinDomains = (whenUnsatisfiable: string): Doc => ({ ...zoneDefault, whenUnsatisfiable, minDomains: 3 });
const rs = replicaSet("rs", L);

export const cases: ParityCase[] = [
  {
    name: "a zonal default spreads 4 pods of a ReplicaSet 2-1-1 over three zones",
    from: topo("should apply default zonal spread to a pod that declares no constraints of its own"),
    scenario: withPool({}, rs, ...owned("p", 4)),
    schedulerConfig: config(zoneDefault),
    expect: { scheduled: "all", skew: { key: ZONE, counts: [2, 1, 1], select: L } },
  },
  {
    name: "a hostname default gives each of 3 pods of a ReplicaSet its own node",
    from: topo("should apply default hostname spread to a pod that declares no constraints of its own"),
    scenario: withPool({}, rs, ...owned("p", 3)),
    schedulerConfig: config(hostnameDefault),
    expect: { scheduled: "all", newNodes: 3 },
  },
  {
    name: "a pod with a spread of its own does not get the defaults: 3 pods share one node under its maxSkew 3",
    from: topo("should NOT apply the default to a pod that declares its own constraints"),
    scenario: withPool(
      {},
      rs,
      ...owned("p", 3, { extra: { spread: [{ ...hostnameDefault, maxSkew: 3, labelSelector: { matchLabels: L } }] } }),
    ),
    schedulerConfig: config(hostnameDefault),
    expect: { scheduled: "all", together: [["p"]] },
  },
  {
    name: "a default's minDomains carries over: with two zones and minDomains 3, one pod per zone",
    from: topo("should carry minDomains through a synthesized default"),
    scenario: withPool({ requirements: [req(ZONE, "In", Z1, Z2)] }, rs, ...owned("p", 3)),
    schedulerConfig: config({ ...zoneDefault, minDomains: 3 }),
    expect: { skew: { key: ZONE, counts: [1, 1], select: L } },
  },
  {
    name: "a DoNotSchedule default with minDomains 3 in a one-zone NodePool schedules one pod of three",
    from: topo("should NOT schedule past a synthesized DoNotSchedule default that can't be satisfied"),
    scenario: withPool({ requirements: [req(ZONE, "In", Z1)] }, rs, ...owned("p", 3)),
    schedulerConfig: config(zoneMinDomains("DoNotSchedule")),
    expect: { skew: { key: ZONE, counts: [1], select: L } },
  },
  {
    name: "a ScheduleAnyway default that cannot be met is relaxed: all three pods schedule",
    from: topo("should relax a synthesized ScheduleAnyway default when it can't be satisfied"),
    scenario: withPool({ requirements: [req(ZONE, "In", Z1)] }, rs, ...owned("p", 3)),
    schedulerConfig: config(zoneMinDomains("ScheduleAnyway")),
    expect: { scheduled: "all" },
  },
  {
    name: "without default constraints, 3 pods of a ReplicaSet share one node",
    from: topo("should be a no-op when no default constraints are configured"),
    scenario: withPool({}, rs, ...owned("p", 3)),
    expect: { scheduled: "all", together: [["p"]] },
  },
  {
    name: "a pod with no owner and no Service selecting it gets no default: 3 such pods share one node",
    from: topo("should not apply the default to a pod with no owner and no matching service"),
    scenario: withPool({}, ...[0, 1, 2].map((i) => pod(`p-${i}`, { labels: L }))),
    schedulerConfig: config(hostnameDefault),
    expect: { scheduled: "all", together: [["p"]] },
  },
  {
    name: "running pods the deduced selector matches count: with 2 in zone 1, two new pods go to zone 2",
    from: topo("should count pre-existing cluster pods through the deduced selector"),
    scenario: withPool(
      { requirements: [req(ZONE, "In", Z1, Z2)] },
      rs,
      node("existing", { labels: { [ZONE]: Z1 }, allocatable: { cpu: "100m", memory: "1Gi", pods: "110" } }),
      ...[0, 1].map((i) =>
        pod(`running-${i}`, { labels: L, cpu: null, metadata: ownedBy("ReplicaSet", "rs"), nodeName: "existing" }),
      ),
      ...owned("p", 2),
    ),
    schedulerConfig: config(zoneDefault),
    expect: {
      nodeLabels: { "p-0": { [ZONE]: Z2 }, "p-1": { [ZONE]: Z2 } },
      skew: { key: ZONE, counts: [2, 2], select: L },
    },
  },
  {
    name: "two ReplicaSets each spread 1-1-1 on their own deduced selector",
    from: topo("should spread each workload independently"),
    scenario: withPool(
      {},
      rs,
      replicaSet("other", { test: "other" }),
      ...owned("p", 3),
      ...owned("q", 3, { rs: "other", labels: { test: "other" } }),
    ),
    schedulerConfig: config(zoneDefault),
    expect: { scheduled: "all", skew: { key: ZONE, counts: [1, 1, 1], select: L } },
  },
  {
    name: "the other ReplicaSet's pods spread 1-1-1 too",
    from: topo("should spread each workload independently"),
    scenario: withPool(
      {},
      rs,
      replicaSet("other", { test: "other" }),
      ...owned("p", 3),
      ...owned("q", 3, { rs: "other", labels: { test: "other" } }),
    ),
    schedulerConfig: config(zoneDefault),
    expect: { scheduled: "all", skew: { key: ZONE, counts: [1, 1, 1], select: { test: "other" } } },
  },
  ...(["old", "new"] as const).map((hash) => ({
    name: `each Deployment revision spreads on its own: the ${hash} ReplicaSet's pods go 1-1-1`,
    from: topo("should spread each Deployment revision independently"),
    scenario: withPool(
      {},
      replicaSet("old", { ...L, "pod-template-hash": "old" }),
      replicaSet("new", { ...L, "pod-template-hash": "new" }),
      ...owned("o", 3, { rs: "old", labels: { ...L, "pod-template-hash": "old" } }),
      ...owned("n", 3, { rs: "new", labels: { ...L, "pod-template-hash": "new" } }),
    ),
    schedulerConfig: config(zoneDefault),
    expect: {
      scheduled: "all" as const,
      skew: { key: ZONE, counts: [1, 1, 1], select: { ...L, "pod-template-hash": hash } },
    },
  })),
  {
    name: "a Job's pods get a selector from the Service that selects them: 4 spread 2-1-1",
    from: topo("should deduce a selector from a matching service for a pod with no supported owner"),
    scenario: withPool(
      {},
      { apiVersion: "v1", kind: "Service", metadata: { name: "svc", namespace: "default" }, spec: { selector: L } },
      ...[0, 1, 2, 3].map((i) => pod(`p-${i}`, { labels: L, metadata: ownedBy("Job", "test-job", "batch/v1") })),
    ),
    schedulerConfig: config(zoneDefault),
    expect: { scheduled: "all", skew: { key: ZONE, counts: [2, 1, 1], select: L } },
  },
];
