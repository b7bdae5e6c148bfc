/**
 * Zonal volumes (pure): what a pod's PersistentVolumeClaims ask of the node it goes to, as Karpenter
 * v1.15 reads them (`provisioning/scheduling/volumetopology.go`, `scheduling/volumeusage.go`).
 *
 * Topology: a claim bound to a PersistentVolume (`spec.volumeName`) restricts the node to the PV's
 * `nodeAffinity.required` terms; an unbound claim of a `WaitForFirstConsumer` StorageClass to the
 * class's `allowedTopologies` terms. Each term is one alternative (terms are ORed); several volumes
 * give the cross product of their alternatives, keeping only the combinations whose requirements
 * can hold together (all of them when none can). Local and hostPath PVs lose their hostname
 * requirement (a rescheduled pod never returns to the same node name). The EBS CSI driver's own zone
 * key, `topology.ebs.csi.aws.com/zone`, means `topology.kubernetes.io/zone`, as the AWS provider
 * registers it among Karpenter's normalized labels. The alternatives narrow the node only: they
 * never join the pod's own affinity, so topology spread counting is unchanged (Karpenter's
 * "NOT added to pod's NodeAffinity").
 *
 * Attachments: each claim whose driver is known (the PV's `csi.driver`, `awsElasticBlockStore` as
 * `ebs.csi.aws.com`, or the StorageClass's provisioner, in-tree names translated) counts once per
 * node and driver, however many pods share it. A node's limit per driver comes from its CSINode
 * (`spec.drivers[].allocatable.count`; a driver listed without a count is unbounded); a planned
 * NodeClaim's from its instance types' `volumeLimits` (Karpenter's `VolumeAttachmentLimits`; the AWS
 * provider v1.15 declares none, so new NodeClaims are unbounded there unless a type says otherwise).
 *
 * A pending pod whose claim cannot be used (missing, being deleted, Lost, bound to a missing PV, naming
 * a PV without `pv.kubernetes.io/bind-completed`, an unbound claim without a usable StorageClass or of
 * an `Immediate` one) is not scheduled, as
 * Karpenter's `ValidatePersistentVolumeClaims` refuses it; the reason names the claim.
 */
import type { NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";
import { Requirements } from "../../../policies/domain/requirements.ts";
import type { PodClaim } from "./leaf-types.ts";

/** The EBS CSI driver. */
export const EBS_CSI_DRIVER = "ebs.csi.aws.com";

/** Topology keys CSI drivers write that mean a well-known label (karpenter-provider-aws operator.go). */
const TOPOLOGY_ALIASES: Readonly<Record<string, string>> = {
  "topology.ebs.csi.aws.com/zone": "topology.kubernetes.io/zone",
};

/** In-tree volume plugins and the CSI driver each migrated to (csi-translation-lib), those that matter on AWS. */
const IN_TREE_PROVISIONERS: Readonly<Record<string, string>> = { "kubernetes.io/aws-ebs": EBS_CSI_DRIVER };

const HOSTNAME = "kubernetes.io/hostname";

/** A PersistentVolumeClaim as the scheduler reads it. */
export interface ClaimInfo {
  /** `spec.volumeName`: the PV it is (or is about to be) bound to. */
  readonly volumeName?: string | undefined;
  /**
   * Whether it carries `pv.kubernetes.io/bind-completed` (the binding finished); false: a claim naming
   * a volume is not taken as bound yet, as kube-scheduler and Karpenter do not.
   */
  readonly bindCompleted?: boolean | undefined;
  /** `spec.storageClassName` ("" disables dynamic provisioning). */
  readonly storageClassName?: string | undefined;
  readonly deleting?: boolean | undefined;
  /** `status.phase: Lost`: its PV is gone. */
  readonly lost?: boolean | undefined;
}

/** A PersistentVolume as the scheduler reads it. */
export interface VolumeInfo {
  /** `spec.nodeAffinity.required.nodeSelectorTerms[].matchExpressions` (ORed terms); empty: anywhere. */
  readonly terms: readonly (readonly NodeSelectorRequirement[])[];
  /** The CSI driver attaching it; undefined for a volume no driver attaches (NFS, …). */
  readonly driver?: string | undefined;
  /** A local or hostPath volume (its hostname affinity is ignored). */
  readonly local?: boolean | undefined;
  readonly deleting?: boolean | undefined;
}

/** A StorageClass as the scheduler reads it. */
export interface ClassInfo {
  readonly provisioner: string;
  /** `volumeBindingMode: WaitForFirstConsumer` (the default, Immediate, binds before scheduling). */
  readonly waitForFirstConsumer: boolean;
  /** `allowedTopologies[].matchLabelExpressions` as In requirements (ORed terms); empty: anywhere. */
  readonly allowedTopologies: readonly (readonly NodeSelectorRequirement[])[];
}

/** Everything the scheduler knows about volumes in the cluster (Snapshot.volumes). */
export interface VolumeIndex {
  /** PersistentVolumeClaims by `namespace/name`. */
  readonly claims: ReadonlyMap<string, ClaimInfo>;
  /** PersistentVolumes by name. */
  readonly volumes: ReadonlyMap<string, VolumeInfo>;
  /** StorageClasses by name. */
  readonly classes: ReadonlyMap<string, ClassInfo>;
  /** Per node name, its CSINode's attachable volumes per driver (null: listed without a count, unbounded). */
  readonly nodeLimits: ReadonlyMap<string, ReadonlyMap<string, number | null>>;
  /** The default StorageClass (`storageclass.kubernetes.io/is-default-class: "true"`), if any. */
  readonly defaultClass?: string | undefined;
}

/** Claims per CSI driver: the unit Karpenter counts against attachment limits (claim ids `namespace/name`). */
export type Attachments = ReadonlyMap<string, readonly string[]>;

/** What a pod's claims ask of its node. */
export interface PodVolumes {
  /** ORed alternatives of node requirements; empty when the volumes allow any node. */
  readonly alternatives: readonly (readonly NodeSelectorRequirement[])[];
  /** The claims it attaches, per driver. */
  readonly attachments: Attachments;
}

/** No volume constraint. */
export const NO_VOLUMES: PodVolumes = { alternatives: [], attachments: new Map() };

/** A pending pod's claim that the scheduler cannot use; `reason` names the claim. */
export interface VolumeProblem {
  readonly reason: string;
}

const claimId = (namespace: string, name: string): string => `${namespace}/${name}`;

function aliased(term: readonly NodeSelectorRequirement[]): NodeSelectorRequirement[] {
  return term.map((r) => (Object.hasOwn(TOPOLOGY_ALIASES, r.key) ? { ...r, key: TOPOLOGY_ALIASES[r.key]! } : r));
}

/** The driver an in-tree provisioner name migrated to, or the name itself. */
export function csiDriverOf(provisioner: string): string {
  return Object.hasOwn(IN_TREE_PROVISIONERS, provisioner) ? IN_TREE_PROVISIONERS[provisioner]! : provisioner;
}

/** A PV's alternatives: its terms, hostname dropped for local/hostPath (a hostname-only term then allows anywhere). */
function volumeAlternatives(pv: VolumeInfo): NodeSelectorRequirement[][] | undefined {
  const out: NodeSelectorRequirement[][] = [];
  for (const term of pv.terms) {
    const kept = pv.local === true ? term.filter((r) => r.key !== HOSTNAME) : [...term];
    if (kept.length === 0) {
      if (term.length > 0) return undefined;
      continue;
    }
    out.push(aliased(kept));
  }
  return out;
}

interface ClaimAnswer {
  readonly alternatives?: NodeSelectorRequirement[][] | undefined;
  readonly driver?: string | undefined;
  readonly problem?: string | undefined;
}

/**
 * The claim as stored, or for an ephemeral volume whose claim its controller has not created yet the
 * unbound claim it will create (its template's class, the default class when it names none).
 */
function claimOf(index: VolumeIndex, id: string, claim: PodClaim): ClaimInfo | undefined {
  const stored = index.claims.get(id);
  if (stored !== undefined || claim.ephemeralClass === undefined) return stored;
  const storageClassName = claim.ephemeralClass === "" ? index.defaultClass : claim.ephemeralClass;
  return storageClassName === undefined ? {} : { storageClassName };
}

/** A claim naming its volume: the volume's alternatives and driver, or why a pending pod cannot use it. */
function readBound(index: VolumeIndex, id: string, claim: ClaimInfo, volumeName: string): ClaimAnswer {
  const pv = index.volumes.get(volumeName);
  if (pv === undefined) return { problem: `persistentvolumeclaim ${id}: persistentvolume ${volumeName} not found` };
  if (pv.deleting === true)
    return { problem: `persistentvolumeclaim ${id}: persistentvolume ${volumeName} is being deleted` };
  if (claim.bindCompleted === false) {
    return { problem: `persistentvolumeclaim ${id} is not bound yet (no pv.kubernetes.io/bind-completed annotation)` };
  }
  return { alternatives: volumeAlternatives(pv), driver: pv.driver };
}

/** One claim: its alternatives and driver, or why a pending pod cannot use it. */
function readClaim(index: VolumeIndex, namespace: string, podClaim: PodClaim): ClaimAnswer {
  const id = claimId(namespace, podClaim.name);
  const claim = claimOf(index, id, podClaim);
  if (claim === undefined) return { problem: `persistentvolumeclaim ${id} not found` };
  if (claim.deleting === true) return { problem: `persistentvolumeclaim ${id} is being deleted` };
  if (claim.lost === true)
    return { problem: `persistentvolumeclaim ${id} is bound to a non-existent persistentvolume` };
  const volumeName = claim.volumeName ?? "";
  if (volumeName !== "") return readBound(index, id, claim, volumeName);
  const className = claim.storageClassName ?? "";
  if (className === "") return { problem: `persistentvolumeclaim ${id} is unbound and names no storage class` };
  const sc = index.classes.get(className);
  if (sc === undefined) return { problem: `persistentvolumeclaim ${id}: storageclass ${className} not found` };
  if (!sc.waitForFirstConsumer) {
    return {
      problem:
        `persistentvolumeclaim ${id} is unbound and ` +
        `storageclass ${className} binds Immediate (it must be bound first)`,
    };
  }
  return { alternatives: sc.allowedTopologies.map(aliased), driver: csiDriverOf(sc.provisioner) };
}

/** Combines the alternatives so far with one volume's: the compatible pairs, or every pair when none is. */
function crossProduct(
  sofar: readonly NodeSelectorRequirement[][] | undefined,
  next: readonly NodeSelectorRequirement[][],
): NodeSelectorRequirement[][] {
  if (sofar === undefined) return [...next];
  const all = sofar.flatMap((a) => next.map((b) => ({ a, b, merged: [...a, ...b] })));
  const compatible = all.filter(({ a, b }) => {
    try {
      return Requirements.fromSelectors(a).compatible(Requirements.fromSelectors(b)) === undefined;
    } catch {
      return false;
    }
  });
  return (compatible.length > 0 ? compatible : all).map((x) => x.merged);
}

function attach(attachments: Map<string, string[]>, driver: string, id: string): void {
  const ids = attachments.get(driver) ?? [];
  if (!ids.includes(id)) ids.push(id);
  attachments.set(driver, ids);
}

/**
 * What a pod's claims (in `namespace`) ask of its node. A pending pod gets a
 * VolumeProblem for the first claim it cannot use; for a pod already on a node (`bound`) such claims
 * are skipped, as Karpenter's volume usage skips missing ones, since it is not being placed.
 */
export function podVolumes(
  index: VolumeIndex,
  namespace: string,
  claims: readonly PodClaim[],
  bound = false,
): PodVolumes | VolumeProblem {
  let alternatives: NodeSelectorRequirement[][] | undefined;
  const attachments = new Map<string, string[]>();
  for (const claim of claims) {
    const answer = readClaim(index, namespace, claim);
    const name = claim.name;
    if (answer.problem !== undefined) {
      if (bound) continue;
      return { reason: answer.problem };
    }
    if (answer.driver !== undefined && answer.driver !== "")
      attach(attachments, answer.driver, claimId(namespace, name));
    if (answer.alternatives !== undefined && answer.alternatives.length > 0) {
      alternatives = crossProduct(alternatives, answer.alternatives);
    }
  }
  if (alternatives === undefined && attachments.size === 0) return NO_VOLUMES;
  return { alternatives: alternatives ?? [], attachments };
}

/** Whether podVolumes answered a problem. */
export function isVolumeProblem(v: PodVolumes | VolumeProblem): v is VolumeProblem {
  return "reason" in v;
}

/**
 * The claims attached to one node per driver (Karpenter's VolumeUsage): a claim shared by several
 * pods counts once; taking a pod out recounts from the pods left.
 */
export class VolumeUsage {
  private readonly byPod = new Map<unknown, Attachments>();
  private attached = new Map<string, Set<string>>();

  get empty(): boolean {
    return this.byPod.size === 0;
  }

  add(pod: unknown, attachments: Attachments): void {
    if (attachments.size === 0) return;
    this.byPod.set(pod, attachments);
    for (const [driver, ids] of attachments) {
      let set = this.attached.get(driver);
      if (set === undefined) this.attached.set(driver, (set = new Set()));
      for (const id of ids) set.add(id);
    }
  }

  remove(pod: unknown): void {
    if (!this.byPod.delete(pod)) return;
    const pods = [...this.byPod];
    this.byPod.clear();
    this.attached = new Map();
    for (const [p, a] of pods) this.add(p, a);
  }

  /** Per driver, how many claims the node attaches. */
  counts(): Map<string, number> {
    return new Map([...this.attached].map(([driver, ids]) => [driver, ids.size]));
  }

  /** Per driver of `attachments`, how many claims the node would attach with them. */
  countsWith(attachments: Attachments): Map<string, number> {
    const out = new Map<string, number>();
    for (const [driver, ids] of attachments) {
      const have = this.attached.get(driver);
      let n = have?.size ?? 0;
      for (const id of ids) if (have?.has(id) !== true) n++;
      out.set(driver, n);
    }
    return out;
  }

  /** Undefined when `attachments` stay within `limits` (a driver without a limit is unbounded), else the reason. */
  exceeds(attachments: Attachments, limits: ReadonlyMap<string, number | null> | undefined): string | undefined {
    if (limits === undefined || attachments.size === 0) return undefined;
    for (const [driver, n] of this.countsWith(attachments)) {
      const limit = limits.get(driver);
      if (limit !== undefined && limit !== null && n > limit) {
        return `would exceed the volume limit of ${driver} (${n} volumes, limit ${limit})`;
      }
    }
    return undefined;
  }
}
