/**
 * A simulation scenario's objects as written (plain Kubernetes documents) and the readers every part of the
 * scenario reads them with: a missing or mistyped field reads as empty, never throws, so a scenario is
 * checked where it is used and the error names the object (ScenarioError, with its document index).
 */
import type { InstanceType } from "../../../../policies/domain/instance-types.ts";

/** A document, or a nested object of one, as read from the scenario. */
export type Obj = Readonly<Record<string, unknown>>;

/** A scenario object that cannot be used; `document` is its 0-based index in the input. */
export class ScenarioError extends Error {
  readonly document: number;
  constructor(document: number, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ScenarioError";
    this.document = document;
  }
}

/**
 * The scenario's objects as written, Nodes completed from the catalog and Pods given a uid (the what-if
 * reads them).
 */
export interface ScenarioObjects {
  readonly nodePools: readonly Obj[];
  readonly nodes: readonly Obj[];
  readonly nodeClaims: readonly Obj[];
  /**
   * Pods bound to a node (`spec.nodeName`), with `metadata.uid` (default namespace/name, as the simulation
   * names them).
   */
  readonly pods: readonly Obj[];
  /** DaemonSets, their pod templates admitted as their RuntimeClass has them. */
  readonly daemonSets: readonly Obj[];
  readonly pdbs: readonly Obj[];
  /** Namespaces as written (their labels: pod-affinity namespaceSelector). */
  readonly namespaces: readonly Obj[];
  /** Instance types per NodePool name (from its EC2NodeClass: kubelet, root volume, AMI family). */
  readonly instanceTypes: ReadonlyMap<string, readonly InstanceType[]>;
  /**
   * Unbound Pods and Deployment/StatefulSet replicas waiting for a node (not terminating, not done, not opted
   * out): the operator's pending pods, whose room the disruption what-if does not offer to a candidate's pods.
   */
  readonly pending?: readonly Obj[] | undefined;
  /** What default topology spread selectors are deduced from (a Deployment's ReplicaSet made up for it). */
  readonly selectorSources?:
    | {
        readonly services: readonly Obj[];
        readonly replicaSets: readonly Obj[];
        readonly statefulSets: readonly Obj[];
        readonly replicationControllers: readonly Obj[];
      }
    | undefined;
  /** PersistentVolumeClaims, PersistentVolumes, StorageClasses and CSINodes as written (volume-objects.ts). */
  readonly volumes?: readonly Obj[] | undefined;
}

/** An object field (`{}` when absent or not an object). */
export const o = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});
/** A list of objects (`[]` when absent or not a list). */
export const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(o) : []);
/** A label map with every value as a string. */
export const labelsOf = (v: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(o(v)).map(([k, x]) => [k, String(x)]));
/** metadata.name ("" when absent). */
export const nameOf = (doc: Obj): string => String(o(doc["metadata"])["name"] ?? "");
/** metadata.labels. */
export const docLabels = (doc: Obj): Record<string, string> => labelsOf(o(doc["metadata"])["labels"]);
