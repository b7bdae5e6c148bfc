/**
 * What controllers are built from (ControllerDeps, assembled in main.ts). Its own module, so a controller that
 * takes it does not import registry.ts, which imports every controller.
 */
import type { SimulateOptions } from "../core/scheduling/types.ts";
import type { CatalogFreshness } from "../ports/catalog-source.ts";
import type { NodeClassFinalizerWriter } from "../ports/cluster.ts";
import type { InstanceTags } from "../ports/instance-tags.ts";
import type { InterruptionQueue } from "../ports/interruption-queue.ts";
import type { NodeClassCloud } from "../ports/node-class-cloud.ts";
import type { NodeClassResolver } from "../ports/node-class-resolver.ts";
import type { NodeOverlays } from "../ports/node-overlays.ts";
import type { DisruptionSettings } from "./disruption/controller.ts";
import type { OfferingAvailability } from "./interruption/controller.ts";
import type { NodeClaimDeps } from "./nodeclaim/deps.ts";
import type { OverlayStore } from "./nodeoverlay/store.ts";
import type { CatalogRefresher } from "./providers/catalog.ts";
import type { VersionRefresher } from "./providers/version.ts";

/** The batch window's durations in milliseconds. */
export interface BatchDurations {
  readonly idleMs: number;
  readonly maxMs: number;
}

/** Everything controllers may use (named, built in main.ts). */
export interface ControllerDeps extends NodeClaimDeps {
  /**
   * With nodeClassCloud and nodeClassFinalizers (all present when the AWS provider graph is wired):
   * enables the EC2NodeClass controller.
   */
  readonly nodeClassResolver?: NodeClassResolver;
  /** Instance profiles and cleanup of EC2NodeClasses. */
  readonly nodeClassCloud?: NodeClassCloud;
  /** The EC2NodeClass termination finalizer's writes. */
  readonly nodeClassFinalizers?: NodeClassFinalizerWriter;
  /** The provisioning batch window (--batch-idle-duration, --batch-max-duration); defaults 1 s and 10 s. */
  readonly batch?: BatchDurations;
  /** Scheduling options (--max-price-ratio) for the provisioner's simulation. */
  readonly scheduling?: SimulateOptions;
  /** Set when --interruption-queue names a queue: enables the interruption controller. */
  readonly interruption?: { readonly queue: InterruptionQueue; readonly offerings: OfferingAvailability };
  /** Disruption timings and the SpotToSpotConsolidation gate; Karpenter's defaults when absent. */
  readonly disruption?: DisruptionSettings;
  /** Instance tags and the cluster name: enables nodeclaim.tagging (Name, nodeclaim and cluster-name tags). */
  readonly tagging?: { readonly tags: InstanceTags; readonly clusterName: string };
  /** The Kubernetes version provider: enables providers.version (a re-read every periodMs, default 5 min). */
  readonly kubernetesVersion?: { readonly provider: VersionRefresher; readonly periodMs?: number | undefined };
  /** The NodeRepair feature gate: enables node.health (core/repair/policy.ts). */
  readonly nodeRepair?: boolean;
  /** Set when the catalog comes from AWS: enables the providers.catalog refresh loop. */
  readonly catalogRefresher?: CatalogRefresher;
  /** Where each EC2NodeClass's offerings and prices come from and when they were refreshed (its status). */
  readonly catalogFreshness?: () => CatalogFreshness;
  /**
   * NodeOverlays: with `store` (gate NodeOverlay on) they are evaluated and applied; without, the overlays
   * present are told they are not applied.
   */
  readonly nodeOverlays?: { readonly port: NodeOverlays; readonly store?: OverlayStore | undefined };
  /** The evaluated overlays the provisioner and the disruption pass decorate instance types with (gate on). */
  readonly overlays?: OverlayStore | undefined;
  /** The ReservedCapacity gate (EC2NodeClass status reports capacity reservations). */
  readonly reservedCapacity?: boolean;
  /** --feature-gates StaticCapacity: static NodePools (spec.replicas) get their nodes; off (the default) none. */
  readonly staticCapacity?: boolean;
}
