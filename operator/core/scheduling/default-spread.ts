/**
 * Default topology spread constraints (issue 22 item 9): kube-scheduler's PodTopologySpread plugin can be
 * configured with `defaultConstraints` that apply to every pod declaring no `topologySpreadConstraints` of
 * its own; Karpenter v1.15 mirrors them from its `--scheduler-config` (SCHEDULER_CONFIG) document
 * (`podTopologySpread.defaultConstraints`, options.go ParseSchedulerConfiguration) and injects them into
 * the pods it schedules (scheduling/defaultconstraints.go). kerf reads the same document (operator
 * `--scheduler-config`, `kerf simulate --scheduler-config FILE`) and does the same:
 *
 * - only a pod with no constraints of its own gets the defaults (all or nothing);
 * - the defaults carry no selector: each pod's is deduced as kube-scheduler's helper.DefaultSelector does:
 *   the selectors of the Services of its namespace that select it, merged as equality labels (a Service
 *   without a selector contributes nothing), then its controller's: a ReplicationController's selector
 *   overwrites those labels, a ReplicaSet's or StatefulSet's is ANDed on as expressions; any other
 *   controller (a Job, a DaemonSet) or one that cannot be found contributes nothing;
 * - a pod whose deduced selector is empty is left unconstrained (an empty selector would select all).
 *
 * Validation is Karpenter's: maxSkew > 0, a qualified topologyKey, whenUnsatisfiable DoNotSchedule or
 * ScheduleAnyway, no labelSelector, no matchLabelKeys, no two constraints with the same key and
 * whenUnsatisfiable, no unknown field. Beyond Karpenter, kube-scheduler's `defaultingType` is read:
 * `List` (the default here, Karpenter's only behaviour) uses `defaultConstraints`; `System` uses
 * kube-scheduler's built-in defaults (zone maxSkew 5 and hostname maxSkew 3, both ScheduleAnyway) and
 * then `defaultConstraints` must be empty, as kube-scheduler requires.
 */
import type { LabelSelector } from "./leaf-types.ts";

type Obj = Readonly<Record<string, unknown>>;
const o = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});

/** A default constraint as configured (no selector: deduced per pod). */
export interface DefaultConstraint {
  readonly maxSkew: number;
  readonly topologyKey: string;
  readonly whenUnsatisfiable: "DoNotSchedule" | "ScheduleAnyway";
  readonly minDomains?: number | undefined;
  readonly nodeAffinityPolicy?: "Honor" | "Ignore" | undefined;
  readonly nodeTaintsPolicy?: "Honor" | "Ignore" | undefined;
}

/** The parts of the cluster's kube-scheduler configuration the simulation mirrors. */
export interface SchedulerConfig {
  readonly defaultConstraints: readonly DefaultConstraint[];
}

/** kube-scheduler's `defaultingType: System` constraints (pkg/scheduler/apis/config/v1 systemDefaultConstraints). */
export const SYSTEM_DEFAULT_CONSTRAINTS: readonly DefaultConstraint[] = Object.freeze([
  { maxSkew: 3, topologyKey: "kubernetes.io/hostname", whenUnsatisfiable: "ScheduleAnyway" },
  { maxSkew: 5, topologyKey: "topology.kubernetes.io/zone", whenUnsatisfiable: "ScheduleAnyway" },
]);

/** A scheduler configuration that cannot be used; the message names the field. */
export class SchedulerConfigError extends Error {
  constructor(message: string) {
    super(`reading the scheduler configuration: ${message}`);
    this.name = "SchedulerConfigError";
  }
}

const DNS_PREFIX = String.raw`([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?`;
const QUALIFIED_NAME = new RegExp(`^${DNS_PREFIX}[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`, "u");
const CONSTRAINT_FIELDS = new Set([
  "maxSkew",
  "topologyKey",
  "whenUnsatisfiable",
  "labelSelector",
  "minDomains",
  "nodeAffinityPolicy",
  "nodeTaintsPolicy",
  "matchLabelKeys",
]);

function unknownField(obj: Obj, known: ReadonlySet<string>, at: string): void {
  const extra = Object.keys(obj).find((k) => !known.has(k));
  if (extra !== undefined) throw new SchedulerConfigError(`${at}: unknown field "${extra}"`);
}

function policy(value: unknown, at: string): "Honor" | "Ignore" | undefined {
  if (value === undefined || value === "Honor" || value === "Ignore") return value;
  throw new SchedulerConfigError(`${at} ${JSON.stringify(value)} must be one of "Honor" or "Ignore"`);
}

const positive = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v > 0;

/** The topology key, if it is a qualified label name (Kubernetes' IsQualifiedName). */
function topologyKeyOf(value: unknown, at: string): string {
  if (typeof value !== "string" || value === "") throw new SchedulerConfigError(`${at}.topologyKey must be set`);
  const name = value.split("/").at(-1) ?? "";
  if (!QUALIFIED_NAME.test(value) || name.length > 63 || value.length - name.length > 254) {
    throw new SchedulerConfigError(`${at}.topologyKey "${value}" is not a valid label name`);
  }
  return value;
}

/** What a default constraint must not carry: a selector (deduced per pod) or matchLabelKeys (inert upstream). */
function checkNoSelector(c: Obj, at: string): void {
  if (c["labelSelector"] !== undefined && c["labelSelector"] !== null) {
    throw new SchedulerConfigError(`${at}.labelSelector must not be set, as selectors are deduced for each pod`);
  }
  if (Array.isArray(c["matchLabelKeys"]) && c["matchLabelKeys"].length > 0) {
    throw new SchedulerConfigError(`${at}.matchLabelKeys must not be set, as it has no effect on default constraints`);
  }
}

type PolicyKey = "nodeAffinityPolicy" | "nodeTaintsPolicy";

function optionalPolicy<K extends PolicyKey>(key: K, c: Obj, at: string): Partial<Record<K, "Honor" | "Ignore">> {
  const value = policy(c[key], `${at}.${key}`);
  return (value === undefined ? {} : { [key]: value }) as Partial<Record<K, "Honor" | "Ignore">>;
}

function constraint(raw: unknown, at: string): DefaultConstraint {
  const c = o(raw);
  unknownField(c, CONSTRAINT_FIELDS, at);
  const { maxSkew, whenUnsatisfiable, minDomains } = c;
  if (!positive(maxSkew)) throw new SchedulerConfigError(`${at}.maxSkew must be greater than 0`);
  const topologyKey = topologyKeyOf(c["topologyKey"], at);
  if (whenUnsatisfiable !== "DoNotSchedule" && whenUnsatisfiable !== "ScheduleAnyway") {
    const given = JSON.stringify(whenUnsatisfiable);
    const allowed = `"DoNotSchedule" or "ScheduleAnyway"`;
    throw new SchedulerConfigError(`${at}.whenUnsatisfiable ${given} must be one of ${allowed}`);
  }
  checkNoSelector(c, at);
  if (minDomains !== undefined && !positive(minDomains)) {
    throw new SchedulerConfigError(`${at}.minDomains must be greater than 0`);
  }
  return {
    maxSkew,
    topologyKey,
    whenUnsatisfiable,
    ...(minDomains === undefined ? {} : { minDomains }),
    ...optionalPolicy("nodeAffinityPolicy", c, at),
    ...optionalPolicy("nodeTaintsPolicy", c, at),
  };
}

/**
 * Reads the scheduler configuration document (already parsed from YAML or JSON): `podTopologySpread`
 * with `defaultConstraints` and optionally `defaultingType`. Throws SchedulerConfigError naming the field.
 */
export function parseSchedulerConfig(doc: unknown): SchedulerConfig {
  if (doc === null || doc === undefined) return { defaultConstraints: [] };
  if (typeof doc !== "object" || Array.isArray(doc)) throw new SchedulerConfigError("the document must be a mapping");
  const top = o(doc);
  unknownField(top, new Set(["podTopologySpread"]), "the document");
  if (top["podTopologySpread"] === undefined || top["podTopologySpread"] === null) return { defaultConstraints: [] };
  return podTopologySpread(o(top["podTopologySpread"]));
}

/** The `podTopologySpread` section: its constraints, checked one by one and against each other. */
function podTopologySpread(spread: Obj): SchedulerConfig {
  unknownField(spread, new Set(["defaultConstraints", "defaultingType"]), "podTopologySpread");
  const raw = spread["defaultConstraints"] ?? [];
  if (!Array.isArray(raw)) throw new SchedulerConfigError("podTopologySpread.defaultConstraints must be a list");
  const listed = raw.map((c, i) => constraint(c, `podTopologySpread.defaultConstraints[${i}]`));
  listed.forEach((c, i) => {
    const same = (d: DefaultConstraint): boolean =>
      d.topologyKey === c.topologyKey && d.whenUnsatisfiable === c.whenUnsatisfiable;
    const j = listed.slice(0, i).findIndex(same);
    if (j >= 0) {
      const pair = `{${c.topologyKey}, ${c.whenUnsatisfiable}}`;
      throw new SchedulerConfigError(`podTopologySpread.defaultConstraints[${i}] is a duplicate of [${j}], ${pair}`);
    }
  });
  const type = spread["defaultingType"] ?? "List";
  if (type !== "List" && type !== "System") {
    const given = JSON.stringify(type);
    throw new SchedulerConfigError(`podTopologySpread.defaultingType ${given} must be one of "List" or "System"`);
  }
  if (type === "System" && listed.length > 0) {
    throw new SchedulerConfigError("podTopologySpread.defaultConstraints must be empty when defaultingType is System");
  }
  return { defaultConstraints: type === "System" ? SYSTEM_DEFAULT_CONSTRAINTS : listed };
}

/** The objects a pod's default selector is deduced from (Services and the controllers of its namespace). */
export interface SelectorSources {
  readonly services?: readonly object[] | undefined;
  readonly replicaSets?: readonly object[] | undefined;
  readonly statefulSets?: readonly object[] | undefined;
  readonly replicationControllers?: readonly object[] | undefined;
}

type Requirement = { readonly key: string; readonly operator: string; readonly values?: readonly string[] };

/** A LabelSelector as a list of requirements (matchLabels as single-value In), as Karpenter's requirementsFrom. */
function requirementsOf(selector: Obj): Requirement[] {
  const labels = Object.entries(o(selector["matchLabels"])).map(([key, v]) => ({
    key,
    operator: "In",
    values: [String(v)],
  }));
  const expressions = (Array.isArray(selector["matchExpressions"]) ? selector["matchExpressions"] : []).map((e) => {
    const x = o(e);
    const values = Array.isArray(x["values"]) ? x["values"].map(String) : undefined;
    const key = String(x["key"] ?? "");
    return { key, operator: String(x["operator"] ?? ""), ...(values === undefined ? {} : { values }) };
  });
  return [...labels, ...expressions];
}

const nsName = (obj: Obj): string => {
  const meta = o(obj["metadata"]);
  return `${String(meta["namespace"] ?? "default")}/${String(meta["name"] ?? "")}`;
};

/** The controllers kube-scheduler deduces selectors from, by apiVersion/kind. */
const OWNER_KINDS: Readonly<Record<string, string>> = {
  "v1/ReplicationController": "ReplicationController",
  "apps/v1/ReplicaSet": "ReplicaSet",
  "apps/v1/StatefulSet": "StatefulSet",
};

/** Applies default constraints to pods, deducing and caching each workload's selector. */
export class DefaultSpread {
  private readonly constraints: readonly DefaultConstraint[];
  private readonly services = new Map<string, Obj[]>();
  private readonly owners: ReadonlyMap<string, Obj>;
  private readonly cache = new Map<string, LabelSelector | undefined>();

  constructor(config: SchedulerConfig, sources: SelectorSources) {
    this.constraints = config.defaultConstraints;
    for (const s of (sources.services ?? []).map(o)) {
      const ns = String(o(s["metadata"])["namespace"] ?? "default");
      this.services.set(ns, [...(this.services.get(ns) ?? []), s]);
    }
    const owners = new Map<string, Obj>();
    const add = (kind: string, list: readonly object[] | undefined): void => {
      for (const x of (list ?? []).map(o)) owners.set(`${kind}/${nsName(x)}`, x);
    };
    add("ReplicaSet", sources.replicaSets);
    add("StatefulSet", sources.statefulSets);
    add("ReplicationController", sources.replicationControllers);
    this.owners = owners;
  }

  /** Whether any default is configured (otherwise `apply` returns every pod as it is). */
  get active(): boolean {
    return this.constraints.length > 0;
  }

  /** The pod with the defaults when it declares no constraints and a selector can be deduced; else the pod itself. */
  apply<P>(pod: P): P {
    const p = o(pod);
    const spec = o(p["spec"]);
    const own = spec["topologySpreadConstraints"];
    if (!this.active || (Array.isArray(own) && own.length > 0)) return pod;
    const selector = this.selectorOf(p);
    if (selector === undefined) return pod;
    const constraints = this.constraints.map((c) => ({ ...c, labelSelector: selector }));
    return { ...p, spec: { ...spec, topologySpreadConstraints: constraints } } as P;
  }

  private selectorOf(pod: Obj): LabelSelector | undefined {
    const meta = o(pod["metadata"]);
    const ns = String(meta["namespace"] ?? "default");
    const labels = Object.fromEntries(Object.entries(o(meta["labels"])).map(([k, v]) => [k, String(v)]));
    const refs = Array.isArray(meta["ownerReferences"]) ? meta["ownerReferences"].map(o) : [];
    const owner = refs.find((r) => r["controller"] === true);
    const ownerKey =
      owner === undefined ? "" : [owner["apiVersion"], owner["kind"], owner["name"]].map(String).join("|");
    const key = JSON.stringify([ns, ownerKey, Object.entries(labels).sort()]);
    if (this.cache.has(key)) return this.cache.get(key);
    const selector = this.deduce(ns, labels, owner);
    this.cache.set(key, selector);
    return selector;
  }

  /**
   * The equality labels of the namespace's Services that select the pod (a Service without a selector selects none).
   */
  private serviceLabels(ns: string, labels: Readonly<Record<string, string>>): Record<string, string> {
    const matchLabels: Record<string, string> = {};
    for (const svc of this.services.get(ns) ?? []) {
      const sel = o(svc["spec"])["selector"];
      if (sel === undefined || sel === null) continue;
      const entries = Object.entries(o(sel)).map(([k, v]) => [k, String(v)] as const);
      if (entries.every(([k, v]) => labels[k] === v)) for (const [k, v] of entries) matchLabels[k] = v;
    }
    return matchLabels;
  }

  private deduce(ns: string, labels: Readonly<Record<string, string>>, owner?: Obj): LabelSelector | undefined {
    const matchLabels = this.serviceLabels(ns, labels);
    const expressions: Requirement[] = [];
    const controller = owner === undefined ? undefined : this.ownerObject(ns, owner);
    if (controller !== undefined) {
      const sel = o(controller.obj["spec"])["selector"];
      if (controller.kind === "ReplicationController") {
        for (const [k, v] of Object.entries(o(sel))) matchLabels[k] = String(v);
      } else {
        expressions.push(...requirementsOf(o(sel)));
      }
    }
    if (Object.keys(matchLabels).length === 0 && expressions.length === 0) return undefined;
    return {
      ...(Object.keys(matchLabels).length === 0 ? {} : { matchLabels }),
      ...(expressions.length === 0 ? {} : { matchExpressions: expressions }),
    };
  }

  /** The controller when it is a kind kube-scheduler deduces selectors from (by group, version and kind) and exists. */
  private ownerObject(ns: string, owner: Obj): { kind: string; obj: Obj } | undefined {
    const gvk = `${String(owner["apiVersion"])}/${String(owner["kind"])}`;
    const kind = OWNER_KINDS[gvk];
    if (kind === undefined) return undefined;
    const obj = this.owners.get(`${kind}/${ns}/${String(owner["name"] ?? "")}`);
    return obj === undefined ? undefined : { kind, obj };
  }
}
