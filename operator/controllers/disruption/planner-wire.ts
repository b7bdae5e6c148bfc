/**
 * What the operator and the planner thread (planner-thread.ts) exchange, and how it stays cheap.
 *
 * The planner's input is plain data, but cloning the whole cluster every pass would cost the event
 * loop what the thread saves it (tens of MB at 10,000 pods). So the thread keeps a mirror of the
 * cached objects: ObjectSync, on the operator's side, compares each cached object with the one last
 * sent by identity (the caches replace an object on every change and never mutate one) and sends
 * only what was added, replaced or removed, in chunks; Mirror applies them on the thread's side. A
 * NodeClaim, Node or Pod a plan names travels back as its name and is read from the operator's own
 * caches again (rehydrate), so a plan that skips 1,000 nodes does not clone 1,000 objects back.
 * Instance types travel once per distinct type (by identity, else by content). Pods and Nodes travel as
 * the fields the planner reads (planner-projection.ts), and the mirror keeps one copy of each string.
 *
 * The version ObjectSync keeps counts every change sent: with the other inputs (digestOf) it is the
 * skipped-pass gate's digest (core/disruption/pass-gate.ts).
 */
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import type { DisruptionInput } from "../../core/disruption/plan.ts";
import type { Candidate, Command, DisruptionPlan, Skipped } from "../../core/disruption/types.ts";
import type { Validation } from "../../core/disruption/validation.ts";
import type { Meta, Node, NodeClaim, Pod } from "../../core/lifecycle/objects.ts";
import type { ClusterView } from "../../core/provisioning/cluster-view.ts";
import type { PlannedNodeClaim } from "../../core/scheduling/types.ts";
import { Strings } from "../../core/interning/strings.ts";
import { projectFor } from "./planner-projection.ts";

type Keyed = { readonly metadata?: Meta | undefined };
type TypesByPool = ReadonlyMap<string, readonly InstanceType[]>;

/** One chunk of object changes of one ClusterView field. */
export interface SyncMessage {
  readonly type: "sync";
  readonly field: string;
  readonly upserts: readonly (readonly [string, unknown])[];
  readonly deletes: readonly string[];
}

/** New instance types (by id) and, per NodePool, the ids of its types. */
export interface TypesMessage {
  readonly type: "types";
  readonly reset: boolean;
  readonly added: readonly (readonly [number, InstanceType])[];
  readonly pools: readonly (readonly [string, readonly number[]])[];
}

/** Everything in DisruptionInput except the cluster objects, instance types and pending pods (sent as keys). */
export type Params = Record<string, unknown> & { readonly pendingKeys?: readonly string[] };

export type Request =
  | { readonly type: "plan"; readonly id: number; readonly params: Params }
  | { readonly type: "revalidate"; readonly id: number; readonly params: Params; readonly command: WireCommand };

export type ToThread = SyncMessage | TypesMessage | Request;

export type Reply =
  | { readonly type: "plan"; readonly id: number; readonly plan: WirePlan; readonly cpuMs: number }
  | { readonly type: "revalidate"; readonly id: number; readonly validation: WireValidation }
  | { readonly type: "error"; readonly id: number; readonly message: string; readonly stack?: string | undefined };

export const keyOf = (o: Keyed): string => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;

// ---- the operator's side: what changed since the last sync ----

type Upserts = readonly (readonly [string, unknown])[];

function chunked(field: string, upserts: Upserts, deletes: readonly string[], chunk: number): SyncMessage[] {
  const out: SyncMessage[] = [];
  for (let i = 0; i < Math.max(upserts.length, 1); i += chunk) {
    out.push({ type: "sync", field, upserts: upserts.slice(i, i + chunk), deletes: i === 0 ? deletes : [] });
  }
  return out;
}

const same = (o: unknown): unknown => o;

/**
 * Objects per ClusterView field as last sent to the thread; diffs by identity. With `project`, Pods and
 * Nodes are sent as the planner reads them (planner-projection.ts): the thread's copy lives as long as it does.
 */
export class ObjectSync {
  private readonly project: boolean;
  private readonly sent = new Map<string, Map<string, unknown>>();
  private readonly typeIds = new WeakMap<InstanceType, number>();
  private readonly typeIdsByContent = new Map<string, number>();
  private poolTypes = "";
  private nextTypeId = 1;
  /** Counts every change sent (objects and instance types). */
  version = 0;

  constructor(opts: { readonly project?: boolean } = {}) {
    this.project = opts.project ?? false;
  }

  /**
   * The messages that bring the thread's mirror to `cluster` and `instanceTypes`, chunked at
   * `chunk` objects. Arrays of `cluster` are fields of the mirror; anything else in it is a param.
   */
  diff(cluster: ClusterView, instanceTypes: TypesByPool, chunk = 2_000): (SyncMessage | TypesMessage)[] {
    const out: (SyncMessage | TypesMessage)[] = [];
    for (const [field, value] of Object.entries(cluster)) {
      if (Array.isArray(value)) out.push(...this.diffField(field, value as readonly Keyed[], chunk));
    }
    for (const field of this.sent.keys()) {
      const value = (cluster as unknown as Record<string, unknown>)[field];
      if (!Array.isArray(value)) out.push(...this.diffField(field, [], chunk));
    }
    const types = this.diffTypes(instanceTypes);
    if (types !== undefined) out.push(types);
    return out;
  }

  /** What travels of an object of `field`. */
  private projection(field: string): (o: unknown) => unknown {
    return (this.project ? projectFor(field) : undefined) ?? same;
  }

  private diffField(field: string, objects: readonly Keyed[], chunk: number): SyncMessage[] {
    let sent = this.sent.get(field);
    const fresh = sent === undefined;
    if (sent === undefined) {
      sent = new Map();
      this.sent.set(field, sent);
    }
    const seen = new Set<string>();
    const upserts: (readonly [string, unknown])[] = [];
    const project = this.projection(field);
    for (const obj of objects) {
      let key = keyOf(obj);
      // Two objects under one key (never in a cache): keep both, in order.
      for (let n = 2; seen.has(key); n += 1) key = `${keyOf(obj)}#${n}`;
      seen.add(key);
      // Compared by the cached object's identity; what travels is its projection.
      if (sent.get(key) !== obj) {
        sent.set(key, obj);
        upserts.push([key, project(obj)]);
      }
    }
    const deletes: string[] = [];
    for (const key of sent.keys()) if (!seen.has(key)) deletes.push(key);
    for (const key of deletes) sent.delete(key);
    // A field seen for the first time is sent even empty: the mirror then has it (an empty array, not undefined).
    if (upserts.length === 0 && deletes.length === 0 && !fresh) return [];
    this.version += upserts.length + deletes.length;
    return chunked(field, upserts, deletes, chunk);
  }

  private typeId(t: InstanceType, added: (readonly [number, InstanceType])[]): number {
    const known = this.typeIds.get(t);
    if (known !== undefined) return known;
    const content = JSON.stringify(t);
    let id = this.typeIdsByContent.get(content);
    if (id === undefined) {
      id = this.nextTypeId;
      this.nextTypeId += 1;
      this.typeIdsByContent.set(content, id);
      added.push([id, t]);
    }
    this.typeIds.set(t, id);
    return id;
  }

  private diffTypes(instanceTypes: ReadonlyMap<string, readonly InstanceType[]>): TypesMessage | undefined {
    // Offerings marked unavailable make new type objects each read: start over rather than grow without end.
    const reset = this.typeIdsByContent.size > 20_000;
    if (reset) {
      this.typeIdsByContent.clear();
      this.poolTypes = "";
    }
    const added: (readonly [number, InstanceType])[] = [];
    const pools = [...instanceTypes].map(([pool, types]) => [pool, types.map((t) => this.typeId(t, added))] as const);
    const summary = JSON.stringify(pools);
    if (summary === this.poolTypes && added.length === 0) return undefined;
    this.poolTypes = summary;
    this.version += 1;
    return { type: "types", reset, added, pools };
  }
}

/** The request params of `input` (pending pods as keys into the mirror). */
export function paramsOf(input: DisruptionInput): Params {
  const params: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (k !== "cluster" && k !== "instanceTypes" && k !== "pending" && v !== undefined) params[k] = v;
  }
  const extras: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input.cluster)) if (!Array.isArray(v) && v !== undefined) extras[k] = v;
  if (Object.keys(extras).length > 0) params["clusterExtras"] = extras;
  if (input.pending !== undefined) params["pendingKeys"] = input.pending.map(keyOf);
  return params;
}

function sortedList(v: unknown): unknown {
  if (v instanceof Set) return [...(v as Set<unknown>)].map(String).sort();
  return v instanceof Date ? undefined : v;
}

/** Params the digest leaves out: see digestOf. */
const UNDIGESTED = new Set(["now", "resumeAfter", "driftResumeAfter", "pendingKeys"]);

/**
 * The skipped-pass digest: the object change counter and every other input except the clock (time is
 * the gate's re-arm and wake-up), the resume points of single-node consolidation and drift (a pass
 * that stopped at one is not fruitless, so the gate never compares them) and the pending pods (which
 * pods are pending follows from the pod objects the counter covers).
 */
export function digestOf(version: number, params: Params): string {
  const rest = Object.entries(params)
    .filter(([k]) => !UNDIGESTED.has(k))
    .sort(([a], [b]) => a.localeCompare(b));
  return `${version}|${JSON.stringify(rest.map(([k, v]) => [k, sortedList(v)]))}`;
}

// ---- the thread's side: the mirror ----

/** The thread's copy of the cached objects and instance types. */
export class Mirror {
  private readonly fields = new Map<string, Map<string, unknown>>();
  private readonly arrays = new Map<string, readonly unknown[]>();
  private readonly types = new Map<number, InstanceType>();
  private poolTypes = new Map<string, readonly InstanceType[]>();
  private readonly strings = new Strings();

  apply(message: SyncMessage | TypesMessage): void {
    if (message.type === "types") {
      if (message.reset) this.types.clear();
      for (const [id, t] of message.added) this.types.set(id, t);
      const typesOf = (ids: readonly number[]): InstanceType[] =>
        ids.map((id) => this.types.get(id)).filter((t): t is InstanceType => t !== undefined);
      this.poolTypes = new Map(message.pools.map(([pool, ids]) => [pool, typesOf(ids)]));
      return;
    }
    let objects = this.fields.get(message.field);
    if (objects === undefined) {
      objects = new Map();
      this.fields.set(message.field, objects);
    }
    for (const key of message.deletes) objects.delete(key);
    for (const [key, obj] of message.upserts) objects.set(key, this.strings.intern(obj));
    this.arrays.delete(message.field);
  }

  private array(field: string): readonly unknown[] {
    let out = this.arrays.get(field);
    if (out === undefined) {
      out = [...(this.fields.get(field)?.values() ?? [])];
      this.arrays.set(field, out);
    }
    return out;
  }

  /** The DisruptionInput `params` describe, over the mirrored objects. */
  input(params: Params): DisruptionInput {
    const cluster: Record<string, unknown> = { ...(params["clusterExtras"] as Record<string, unknown> | undefined) };
    for (const field of this.fields.keys()) cluster[field] = this.array(field);
    const { pendingKeys, clusterExtras: _extras, ...rest } = params;
    const pods = this.fields.get("pods");
    const pending = pendingKeys?.map((k) => pods?.get(k)).filter((p): p is Pod => p !== undefined);
    return {
      ...(rest as unknown as DisruptionInput),
      cluster: cluster as unknown as ClusterView,
      instanceTypes: this.poolTypes,
      ...(pending === undefined ? {} : { pending }),
    };
  }
}

// ---- plans and commands, slimmed for the trip back ----

/** A candidate with its objects as names. */
export type WireCandidate = Omit<Candidate, "nodeClaim" | "node" | "pods"> & { readonly pods: readonly string[] };
/** A replacement with its instance types as names. */
export type WireReplacement = Omit<PlannedNodeClaim, "instanceTypes"> & { readonly instanceTypes: readonly string[] };
export type WireCommand = Omit<Command, "candidates" | "replacements"> & {
  readonly candidates: readonly WireCandidate[];
  readonly replacements: readonly WireReplacement[];
};
export interface WireSkipped {
  readonly nodeClaim: string;
  readonly node?: string | undefined;
  readonly blocker: Skipped["blocker"];
}
export type WirePlan = Omit<DisruptionPlan, "command" | "blocked" | "unconsolidatable"> & {
  readonly command?: WireCommand | undefined;
  readonly blocked: readonly WireSkipped[];
  readonly unconsolidatable: readonly WireSkipped[];
};
export type WireValidation =
  { readonly ok: true; readonly command: WireCommand } | { readonly ok: false; readonly reason: string };

const nameOf = (o: Keyed | undefined): string => o?.metadata?.name ?? "";

export function slimCommand(command: Command): WireCommand {
  return {
    ...command,
    candidates: command.candidates.map(({ nodeClaim: _c, node: _n, pods, ...rest }) => ({
      ...rest,
      pods: pods.map(keyOf),
    })),
    replacements: command.replacements.map((r) => ({ ...r, instanceTypes: r.instanceTypes.map((t) => t.name) })),
  };
}

const slimSkipped = (s: Skipped): WireSkipped => ({
  nodeClaim: nameOf(s.nodeClaim),
  node: s.node === undefined ? undefined : nameOf(s.node),
  blocker: s.blocker,
});

export function slimPlan(plan: DisruptionPlan): WirePlan {
  return {
    ...plan,
    command: plan.command === undefined ? undefined : slimCommand(plan.command),
    blocked: plan.blocked.map(slimSkipped),
    unconsolidatable: plan.unconsolidatable.map(slimSkipped),
  };
}

export function slimValidation(v: Validation): WireValidation {
  return v.ok ? { ok: true, command: slimCommand(v.command) } : v;
}

/** Where rehydration reads objects from (the operator's caches, or the thread's mirror). */
export interface ObjectSource {
  nodeClaim(name: string): NodeClaim | undefined;
  node(name: string): Node | undefined;
  pod(namespace: string, name: string): Pod | undefined;
}

/** Reads objects from a DisruptionInput's cluster (the thread's mirror, tests). */
export function viewSource(cluster: ClusterView): ObjectSource {
  const claims = new Map(cluster.nodeClaims.map((c) => [nameOf(c), c]));
  const nodes = new Map(cluster.nodes.map((n) => [nameOf(n), n]));
  const pods = new Map(cluster.pods.map((p) => [keyOf(p), p]));
  return { nodeClaim: (n) => claims.get(n), node: (n) => nodes.get(n), pod: (ns, n) => pods.get(`${ns}/${n}`) };
}

const stub = <T>(name: string): T => ({ metadata: { name } }) as T;

function podAt(source: ObjectSource, key: string): Pod | undefined {
  const slash = key.indexOf("/");
  return source.pod(key.slice(0, slash), key.slice(slash + 1));
}

/** The command with its objects read from `source` (a NodeClaim or Node gone since keeps its name only). */
export function rehydrateCommand(command: WireCommand, source: ObjectSource, types: TypesByPool): Command {
  return {
    ...command,
    candidates: command.candidates.map((c) => ({
      ...c,
      nodeClaim: source.nodeClaim(c.name) ?? stub<NodeClaim>(c.name),
      node: source.node(c.nodeName) ?? stub<Node>(c.nodeName),
      pods: c.pods.map((k) => podAt(source, k)).filter((p): p is Pod => p !== undefined),
    })),
    replacements: command.replacements.map((r) => {
      const byName = new Map((types.get(r.nodePool) ?? []).map((t) => [t.name, t]));
      const instanceTypes = r.instanceTypes.map((n) => byName.get(n)).filter((t): t is InstanceType => t !== undefined);
      return { ...r, instanceTypes };
    }),
  };
}

function rehydrateSkipped(s: WireSkipped, source: ObjectSource): Skipped {
  return {
    nodeClaim: source.nodeClaim(s.nodeClaim) ?? stub<NodeClaim>(s.nodeClaim),
    node: s.node === undefined ? undefined : source.node(s.node),
    blocker: s.blocker,
  };
}

export function rehydratePlan(plan: WirePlan, source: ObjectSource, types: TypesByPool): DisruptionPlan {
  return {
    ...plan,
    command: plan.command === undefined ? undefined : rehydrateCommand(plan.command, source, types),
    blocked: plan.blocked.map((s) => rehydrateSkipped(s, source)),
    unconsolidatable: plan.unconsolidatable.map((s) => rehydrateSkipped(s, source)),
  };
}

export function rehydrateValidation(v: WireValidation, source: ObjectSource, types: TypesByPool): Validation {
  return v.ok ? { ok: true, command: rehydrateCommand(v.command, source, types) } : v;
}
