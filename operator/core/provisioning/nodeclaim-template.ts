/**
 * A planned NodeClaim as the karpenter.sh/v1 object to create (Karpenter's NodeClaimTemplate): the
 * NodePool template's labels, annotations, taints, startup taints, nodeClassRef, expireAfter and
 * terminationGracePeriod; the simulation's requirements (pool ∩ pods, instance-type options as an
 * In list, minValues kept); the pods' requests; an owner reference to the NodePool; the
 * karpenter.sh/termination finalizer; the NodePool's drift hash and hash version (core/nodepool/hash.ts).
 */
import { Label, WELL_KNOWN_LABELS } from "../../../policies/domain/labels.ts";
import { formatResource } from "../../../policies/domain/quantity.ts";
import { Requirements, type NodeSelectorRequirement, type Requirement } from "../../../policies/domain/requirements.ts";
import type { Taint } from "../../../policies/domain/taints.ts";
import { Keys } from "../lifecycle/registration.ts";
import { hashAnnotations } from "../nodepool/hash.ts";
import type { PlannedNodeClaim } from "../scheduling/types.ts";
import type { NodePoolObject } from "./cluster-view.ts";

/** The NodeClaim object the provisioner creates (metadata.generateName gives it a unique name). */
export interface NodeClaimManifest {
  readonly apiVersion: "karpenter.sh/v1";
  readonly kind: "NodeClaim";
  readonly metadata: {
    readonly generateName: string;
    readonly labels: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly finalizers: readonly string[];
    readonly ownerReferences?: readonly {
      apiVersion: string;
      kind: string;
      name: string;
      uid: string;
      blockOwnerDeletion: boolean;
    }[];
  };
  readonly spec: {
    readonly nodeClassRef: { readonly group: string; readonly kind: string; readonly name: string };
    readonly requirements: readonly NodeSelectorRequirement[];
    readonly taints?: readonly Taint[];
    readonly startupTaints?: readonly Taint[];
    readonly expireAfter?: string;
    readonly terminationGracePeriod?: string;
    readonly resources: { readonly requests: Readonly<Record<string, string>> };
  };
}

type Obj = Readonly<Record<string, unknown>>;
const obj = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const strings = (v: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(obj(v)).map(([k, x]) => [k, String(x)]));
const list = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);

/** The template parts of a NodePool: `spec.template.metadata` and `spec.template.spec`. */
export function templateOf(pool: NodePoolObject): { meta: Obj; spec: Obj } {
  const template = obj(obj(pool.spec)["template"]);
  return { meta: obj(template["metadata"]), spec: obj(template["spec"]) };
}

function optional<K extends string>(key: K, value: unknown): Partial<Record<K, string>> {
  return typeof value === "string" && value !== "" ? ({ [key]: value } as Record<K, string>) : {};
}

function nonEmpty<K extends string>(key: K, value: unknown): Partial<Record<K, Taint[]>> {
  const items = list<Taint>(value);
  return items.length === 0 ? {} : ({ [key]: items } as Record<K, Taint[]>);
}

/**
 * A value a node may carry for `r`: the first allowed value of an In, else the smallest non-negative
 * integer within the bounds that is not excluded (Karpenter's Requirement.Any draws one at random);
 * undefined for DoesNotExist.
 */
function anyValue(r: Requirement): string | undefined {
  if (!r.complement) return [...r.values].sort()[0];
  const lessThan = r.lessThan ?? Number.MAX_SAFE_INTEGER;
  for (let n = Math.max(0, (r.greaterThan ?? -1) + 1); n < lessThan && n < Number.MAX_SAFE_INTEGER; n += 1) {
    if (r.has(String(n))) return String(n);
  }
  return undefined;
}

/**
 * Karpenter's resolveCustomLabelsFromRequirements: a concrete value for every requirement on a custom
 * key (not well known, not the hostname, not a lifecycle label), so that the node carries what the
 * NodePool requires (a pool requiring `team In [a]` labels its NodeClaims team=a; without it they
 * would be RequirementsDrifted and pods selecting team=a would find no node).
 */
export function requirementLabels(requirements: readonly NodeSelectorRequirement[]): Record<string, string> {
  const skip: ReadonlySet<string> = new Set([Label.hostname, Keys.registeredLabel, Keys.initializedLabel]);
  const out: Record<string, string> = {};
  for (const r of Requirements.fromSelectors(requirements)) {
    if (WELL_KNOWN_LABELS.has(r.key) || skip.has(r.key)) continue;
    const value = anyValue(r);
    if (value !== undefined) out[r.key] = value;
  }
  return out;
}

/** Karpenter's markers that a NodeOverlay changed the price or capacity of one of the claim's instance types. */
function overlayAnnotations(claim: PlannedNodeClaim): Record<string, string> {
  const out: Record<string, string> = {};
  if (claim.instanceTypes.some((t) => t.offerings.some((o) => o.priceOverlaid === true)))
    out["karpenter.sh/price-overlay-applied"] = "true";
  if (claim.instanceTypes.some((t) => t.capacityOverlaid === true))
    out["karpenter.sh/capacity-overlay-applied"] = "true";
  return out;
}

/** The NodeClaim to create for one planned claim of `pool`. */
export function nodeClaimManifest(pool: NodePoolObject, claim: PlannedNodeClaim): NodeClaimManifest {
  const name = pool.metadata?.name ?? claim.nodePool;
  const { meta, spec } = templateOf(pool);
  // The hash is computed from the pool as the plan saw it (as Karpenter does), not read from its annotation.
  const annotations = { ...strings(meta["annotations"]), ...hashAnnotations(pool), ...overlayAnnotations(claim) };
  const uid = pool.metadata?.uid;
  const ref = obj(spec["nodeClassRef"]);
  const requests = Object.fromEntries(
    Object.entries(claim.requests)
      .filter(([, v]) => v > 0)
      .map(([k, v]) => [k, formatResource(k, v)]),
  );
  return {
    apiVersion: "karpenter.sh/v1",
    kind: "NodeClaim",
    metadata: {
      generateName: `${name}-`,
      labels: { ...strings(meta["labels"]), ...requirementLabels(claim.requirements), [Label.nodePool]: name },
      annotations,
      // Set at creation (Karpenter adds it in its first reconcile): no window in which a deletion
      // could skip termination, and one write less before the launch.
      finalizers: [Keys.finalizer],
      ...(uid === undefined
        ? {}
        : {
            ownerReferences: [{ apiVersion: "karpenter.sh/v1", kind: "NodePool", name, uid, blockOwnerDeletion: true }],
          }),
    },
    spec: {
      nodeClassRef: {
        group: String(ref["group"] ?? "karpenter.k8s.aws"),
        kind: String(ref["kind"] ?? "EC2NodeClass"),
        name: String(ref["name"] ?? ""),
      },
      // The hostname is the simulation's placeholder for a node that has no name yet (and the CRD refuses it).
      requirements: claim.requirements.filter((r) => r.key !== Label.hostname),
      ...nonEmpty("taints", spec["taints"]),
      ...nonEmpty("startupTaints", spec["startupTaints"]),
      ...optional("expireAfter", spec["expireAfter"]),
      ...optional("terminationGracePeriod", spec["terminationGracePeriod"]),
      resources: { requests },
    },
  };
}
