/**
 * The controller contract: what a controller is (a keyed reconcile, and per watched kind a map from a changed
 * object to the keys to reconcile) and where changes come from. registry.ts lists the controllers, manager.ts
 * runs them; controllers import only this module's types, so neither imports a controller back.
 */
import type { Reconcile } from "./runtime.ts";

/** The kinds cluster state watches (names as in adapters/kube/cluster-state.ts). */
export type WatchKind =
  | "pods"
  | "nodes"
  | "nodepools"
  | "nodeclaims"
  | "ec2nodeclasses"
  | "daemonsets"
  | "pdbs"
  | "volumeattachments"
  | "persistentvolumeclaims"
  | "persistentvolumes"
  | "storageclasses"
  | "csinodes"
  | "nodeoverlays";

/** What happened to a watched object. */
export type WatchVerb = "add" | "update" | "delete";

/** A watched object, as much as the key mappers read. */
export interface Watched {
  readonly metadata?:
    | {
        readonly name?: string | undefined;
        readonly namespace?: string | undefined;
        readonly uid?: string | undefined;
        readonly generation?: number | undefined;
        readonly deletionTimestamp?: unknown;
        readonly labels?: Readonly<Record<string, string>> | undefined;
        readonly ownerReferences?: readonly { readonly kind: string; readonly name: string }[] | undefined;
      }
    | undefined;
  readonly spec?: { readonly providerID?: string | undefined; readonly nodeName?: string | undefined } | undefined;
}

/** Where changes come from (ClusterState implements it). */
export interface ChangeSource {
  onChange(listener: (kind: WatchKind, verb: WatchVerb, obj: Watched) => void): void;
  objects(kind: WatchKind): readonly Watched[];
}

/** One controller: name, reconcile, triggers, optional periodic resync of every key. */
export interface ControllerSpec {
  readonly name: string;
  readonly reconcile: Reconcile;
  readonly watches: Partial<Record<WatchKind, (obj: Watched, verb: WatchVerb) => readonly string[]>>;
  readonly concurrency?: number;
  /** A singleton loop: this key is enqueued on start and the reconcile requeues itself. */
  readonly singleton?: string;
}
