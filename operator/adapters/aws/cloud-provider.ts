/**
 * AwsCloudProvider: the cloud-provider port over EC2/SSM. create() resolves the EC2NodeClass, plans
 * the fleet (core), ensures launch templates by content, calls CreateFleet and feeds capacity
 * errors into the unavailable-offerings cache.
 */
import type { Catalog } from "../../../policies/domain/catalog/catalog.ts";
import { toInstanceTypes } from "../../../policies/domain/catalog/catalog.ts";
import { withUnavailableOfferings, type InstanceType } from "../../../policies/domain/instance-types.ts";
import { parseResourceList } from "../../../policies/domain/quantity.ts";
import { Requirements } from "../../../policies/domain/requirements.ts";
import {
  CreateError,
  InsufficientCapacityError,
  NodeClaimNotFoundError,
  NodeClassNotReadyError,
} from "../../core/errors.ts";
import { planFleet, type FleetPlan } from "../../core/fleet/plan.ts";
import { bootable, typesByImage } from "../../core/launch-template/amis.ts";
import type { ClusterInfo } from "../../core/launch-template/cluster-info.ts";
import { amiFamilyOf, type EC2NodeClassLike } from "../../core/launch-template/node-class.ts";
import { buildLaunchTemplate } from "../../core/launch-template/template.ts";
import {
  parseProviderID,
  type CloudInstance,
  type CloudProvider,
  type CreateOptions,
  type LaunchedInstance,
  type NodeClaimLike,
} from "../../ports/cloud-provider.ts";
import type { CatalogSource } from "../../ports/catalog-source.ts";
import { launchable, type NodeClassFacts, type NodeClassResolver } from "../../ports/node-class-resolver.ts";
import {
  describeAwsError,
  errorCode,
  isLaunchTemplateNotFound,
  isNotFound,
  isUnfulfillableCapacity,
} from "./errors.ts";
import {
  allocatableKubelet,
  capacityOptions,
  instanceTags,
  launchedInstance,
  registrationLabels,
} from "./launch-facts.ts";
import type { DefaultInstanceProvider, FleetOutcome, TemplateGroup } from "./providers/instance.ts";
import type { InstanceProfileProvider } from "./providers/instanceprofile.ts";
import type { LaunchTemplateProvider } from "./providers/launchtemplate.ts";
import type { UnavailableOfferings } from "./providers/unavailable-offerings.ts";
import type { CapacityReservationProvider } from "./providers/capacityreservation.ts";
import { withReservedOfferings } from "../../core/capacity-reservations/offerings.ts";

const EFA = "vpc.amazonaws.com/efa";

/**
 * Types grouped by the EFA interfaces their template attaches: when the NodeClaim requests EFA, each type's
 * vpc.amazonaws.com/efa capacity (one interface per card, so one template per count, as Karpenter does); else 0.
 */
function byEfaCount(
  nodeClaim: NodeClaimLike,
  names: readonly string[],
  types: readonly InstanceType[],
): Map<number, string[]> {
  const requested = nodeClaim.spec.resources?.requests?.[EFA] !== undefined;
  const out = new Map<number, string[]>();
  for (const name of names) {
    const count = requested ? Number(types.find((t) => t.name === name)?.capacity[EFA] ?? 0) : 0;
    out.set(count, [...(out.get(count) ?? []), name]);
  }
  return out;
}

const SPOT_ROLE_ERROR = "AuthFailure.ServiceLinkedRoleCreationNotPermitted";
/** CreateFleet's code for a reservation with no room left (Karpenter's IsReservationCapacityExceeded). */
const RESERVATION_FULL = "ReservationCapacityExceeded";

/**
 * Cluster facts the launch templates need (settings, then EKS DescribeCluster, then the
 * kubeconfig: see discoverCluster).
 */
export type { ClusterInfo } from "../../core/launch-template/cluster-info.ts";

/** Dependencies of AwsCloudProvider (named, built in the composition root). */
export interface AwsCloudProviderDeps {
  readonly cluster: ClusterInfo;
  /** The catalog in force (refreshed from AWS in the operator; fixed in tests). */
  readonly catalog: CatalogSource;
  /** Reads an EC2NodeClass by name (informer cache or API); undefined when it does not exist. */
  readonly nodeClass: (name: string) => Promise<EC2NodeClassLike | undefined>;
  readonly resolver: NodeClassResolver;
  readonly launchTemplates: LaunchTemplateProvider;
  /** Names the instance profile launch templates carry (the managed one for spec.role). */
  readonly instanceProfiles: Pick<InstanceProfileProvider, "profileName">;
  readonly instances: DefaultInstanceProvider;
  readonly unavailable: UnavailableOfferings;
  /**
   * The evaluated NodeOverlays (gate NodeOverlay on): a NodeClaim of a NodePool launches with its pool's
   * overlaid prices, so the fleet's override priorities follow them (Karpenter's Create applies the store).
   */
  readonly overlays?:
    { apply(pool: string, types: readonly InstanceType[]): readonly InstanceType[] | undefined } | undefined;
  /** Room left in capacity reservations (absent: the ReservedCapacity gate is off). */
  readonly reservations?: CapacityReservationProvider | undefined;
}

/** The CloudProvider over AWS. */
export class AwsCloudProvider implements CloudProvider {
  private readonly deps: AwsCloudProviderDeps;
  private readonly typeCache = new Map<string, InstanceType[]>();
  /** The catalog the cache was filled from: a refreshed catalog empties it. */
  private cachedCatalog: Catalog | undefined;

  constructor(deps: AwsCloudProviderDeps) {
    this.deps = deps;
  }

  async create(nodeClaim: NodeClaimLike, options?: CreateOptions): Promise<LaunchedInstance> {
    // An instance already being terminated is not adopted: the claim gets a fresh one.
    const existing =
      options?.knownNew === true
        ? []
        : (
            await this.call("finding instance of NodeClaim", () => this.deps.instances.list(nodeClaim.metadata.name))
          ).filter((i) => i.state !== "shutting-down");
    const nodeClass = await this.deps.nodeClass(nodeClaim.spec.nodeClassRef.name);
    const pool = nodeClaim.metadata.labels?.["karpenter.sh/nodepool"];
    if (existing[0] !== undefined) return this.toLaunched(existing[0], nodeClass, true, pool);
    if (nodeClass === undefined)
      throw new NodeClassNotReadyError(`EC2NodeClass ${nodeClaim.spec.nodeClassRef.name} not found`);
    const facts = await this.deps.resolver.resolve(nodeClass);
    if (!launchable(facts))
      throw new NodeClassNotReadyError(`EC2NodeClass ${nodeClass.metadata.name} resolves no ${missingPart(facts)}`);
    const plan = this.plan(nodeClaim, nodeClass, facts);
    // Held from the plan on (no await between), so a launch planned meanwhile sees the slot taken.
    const reserved = reservationsOf(plan);
    const release = reserved.size === 0 ? undefined : this.deps.reservations?.room.hold(reserved);
    try {
      const instance = await this.launch(nodeClaim, nodeClass, facts, plan);
      return this.toLaunched(instance, nodeClass, false, pool);
    } finally {
      release?.();
    }
  }

  /** Launches `plan` and describes the instance; a launch into a reservation is counted against it. */
  private async launch(
    nodeClaim: NodeClaimLike,
    nodeClass: EC2NodeClassLike,
    facts: NodeClassFacts,
    plan: FleetPlan,
  ): Promise<CloudInstance> {
    const outcome = await this.launchWithRetry(nodeClaim, nodeClass, facts, plan);
    const instanceID = this.recordErrors(outcome, plan);
    // A fleet into one reservation used it: counted before the describe, which may fail (the retry adopts the
    // instance), so that the slot is not offered again meanwhile.
    const room = this.deps.reservations?.room;
    const into = reservationsOf(plan);
    const only = plan.capacityType === "reserved" && into.size === 1 ? [...into][0] : undefined;
    if (only !== undefined) room?.markLaunched(only);
    const instance = await this.call("describing launched instance", () => this.deps.instances.get(instanceID));
    if (instance === undefined)
      throw new CreateError("InstanceNotFound", `instance ${instanceID} vanished after launch`);
    const used = instance.capacityReservation?.id;
    if (used !== undefined && used !== only) room?.markLaunched(used);
    return instance;
  }

  async delete(providerID: string): Promise<void> {
    const instance = await this.get(providerID);
    try {
      await this.deps.instances.terminate(instance.instanceID);
      // Its reservation slot is free again (Karpenter gives it back once the instance is gone; kerf at termination).
      if (instance.capacityReservation !== undefined)
        this.deps.reservations?.room.markTerminated(instance.capacityReservation.id, instance.instanceID);
    } catch (error) {
      if (isNotFound(error))
        throw new NodeClaimNotFoundError(`instance ${instance.instanceID} is gone`, { cause: error });
      throw new Error(describeAwsError(`terminating instance ${instance.instanceID}`, error), { cause: error });
    }
  }

  async get(providerID: string): Promise<CloudInstance> {
    const parsed = parseProviderID(providerID);
    if (parsed === undefined) throw new NodeClaimNotFoundError(`providerID ${providerID} is not an AWS instance`);
    let instance: CloudInstance | undefined;
    try {
      instance = await this.deps.instances.get(parsed.instanceID);
    } catch (error) {
      if (isNotFound(error))
        throw new NodeClaimNotFoundError(`instance ${parsed.instanceID} not found`, { cause: error });
      throw new Error(describeAwsError(`describing instance ${parsed.instanceID}`, error), { cause: error });
    }
    if (instance === undefined) throw new NodeClaimNotFoundError(`instance ${parsed.instanceID} is terminated`);
    return instance;
  }

  async list(nodeClaimName?: string): Promise<CloudInstance[]> {
    try {
      return await this.deps.instances.list(nodeClaimName);
    } catch (error) {
      throw new Error(
        describeAwsError(
          nodeClaimName === undefined ? "listing instances" : `listing instances of NodeClaim ${nodeClaimName}`,
          error,
        ),
        { cause: error },
      );
    }
  }

  async getInstanceTypes(nodeClassName: string): Promise<InstanceType[]> {
    const nodeClass = await this.deps.nodeClass(nodeClassName);
    if (nodeClass === undefined) throw new NodeClassNotReadyError(`EC2NodeClass ${nodeClassName} not found`);
    const facts = await this.deps.resolver.resolve(nodeClass);
    if (facts.subnets.length === 0)
      throw new NodeClassNotReadyError(`EC2NodeClass ${nodeClassName} resolves no subnets`);
    return this.instanceTypes(nodeClass, facts);
  }

  /**
   * Catalog types offered in the node class's subnet zones, sized by its kubelet, that one of its AMIs
   * boots (all of them while its AMIs are not known), minus ICE-cached offerings.
   */
  private instanceTypes(nodeClass: EC2NodeClassLike, facts: NodeClassFacts): InstanceType[] {
    const zones = [...new Set(facts.subnets.map((s) => s.zone))].sort();
    // The AMI family decides kubernetes.io/os and windows-build (a Windows class offers the amd64 types as windows).
    const amiFamily = amiFamilyOf(nodeClass.spec);
    const amis = facts.amis.map((a) => [a.id, a.requirements]);
    const storage = [nodeClass.spec.blockDeviceMappings ?? [], nodeClass.spec.instanceStorePolicy ?? ""];
    const key = JSON.stringify([zones, nodeClass.spec.kubelet ?? {}, amiFamily, amis, storage]);
    const catalog = this.deps.catalog.current();
    if (catalog !== this.cachedCatalog) {
      this.typeCache.clear();
      this.cachedCatalog = catalog;
    }
    let types = this.typeCache.get(key);
    if (types === undefined) {
      types = toInstanceTypes(catalog, { zones: new Set(zones), ...capacityOptions(nodeClass) });
      if (facts.amis.length > 0) types = bootable(facts.amis, types);
      // Keys change with the node classes' AMIs: keep the cache from growing over a long run.
      if (this.typeCache.size >= 64) this.typeCache.clear();
      this.typeCache.set(key, types);
    }
    const spotOff = this.deps.unavailable.spotUnavailable();
    const keys = this.deps.unavailable.keys();
    const marked = withUnavailableOfferings(types, keys);
    const offered = spotOff
      ? marked.map((t) => ({
          ...t,
          offerings: t.offerings.map((o) => (o.capacityType === "spot" ? { ...o, available: false } : o)),
        }))
      : marked;
    const reservations = this.deps.reservations;
    if (reservations === undefined || facts.capacityReservations === undefined) return offered;
    return withReservedOfferings(offered, {
      reservations: facts.capacityReservations,
      zones: new Set(zones),
      zoneIds: catalog.zoneIds,
      capacity: (id) => reservations.room.capacity(id),
      unavailable: keys,
    });
  }

  /**
   * The types a NodeClaim launches from: its NodePool's overlays applied (standalone
   * claims get none, as in Karpenter).
   */
  private launchTypes(
    nodeClaim: NodeClaimLike,
    nodeClass: EC2NodeClassLike,
    facts: NodeClassFacts,
  ): readonly InstanceType[] {
    const types = this.instanceTypes(nodeClass, facts);
    const pool = nodeClaim.metadata.labels?.["karpenter.sh/nodepool"];
    if (this.deps.overlays === undefined || pool === undefined) return types;
    // Not evaluated yet (a restart): the claim still launches, at catalog prices, rather than fail.
    return this.deps.overlays.apply(pool, types) ?? types;
  }

  private plan(nodeClaim: NodeClaimLike, nodeClass: EC2NodeClassLike, facts: NodeClassFacts): FleetPlan {
    const requirements = Requirements.fromSelectors(nodeClaim.spec.requirements);
    const plan = planFleet({
      instanceTypes: this.launchTypes(nodeClaim, nodeClass, facts),
      requirements,
      subnets: facts.subnets,
      requests: parseResourceList(nodeClaim.spec.resources?.requests),
      unavailable: this.deps.unavailable.keys(),
      priceOverlay: nodeClaim.metadata.annotations?.["karpenter.sh/price-overlay-applied"] === "true",
    });
    if (plan.kind === "launch") return plan;
    if (plan.reason === "no-compatible-offering")
      throw new InsufficientCapacityError(
        `all requested instance types were unavailable during launch (${plan.message})`,
      );
    throw new CreateError("NoSubnetInZone", plan.message);
  }

  private async templates(
    nodeClaim: NodeClaimLike,
    nodeClass: EC2NodeClassLike,
    facts: NodeClassFacts,
    plan: FleetPlan,
  ): Promise<TemplateGroup[]> {
    const groups: TemplateGroup[] = [];
    // A reserved launch needs one template per reservation (each targets its own); others one per image and
    // EFA interface count.
    const byReservation = new Map(plan.overrides.map((o) => [o.reservation?.id, o.reservation]));
    for (const [reservationId, reservation] of byReservation) {
      const names = new Set(
        plan.overrides.filter((o) => o.reservation?.id === reservationId).map((o) => o.instanceType),
      );
      const types = this.instanceTypes(nodeClass, facts).filter((t) => names.has(t.name));
      for (const [imageId, imageTypes] of typesByImage(facts.amis, types)) {
        for (const [efaCount, instanceTypes] of byEfaCount(nodeClaim, imageTypes, types)) {
          const spec = buildLaunchTemplate({
            efaCount,
            clusterName: this.deps.cluster.name,
            clusterEndpoint: this.deps.cluster.endpoint,
            caBundle: this.deps.cluster.caBundle,
            clusterCIDR: this.deps.cluster.serviceCIDR,
            clusterDNS: this.deps.cluster.dnsIP,
            nodeClass: nodeClass.spec,
            imageId,
            securityGroupIds: facts.securityGroups.map((g) => g.id),
            instanceProfile: this.deps.instanceProfiles.profileName(nodeClass),
            labels: registrationLabels(nodeClaim, plan.capacityType, reservation),
            taints: [...(nodeClaim.spec.taints ?? []), ...(nodeClaim.spec.startupTaints ?? [])],
            capacityReservation: reservation,
          });
          const nodePool = nodeClaim.metadata.labels?.["karpenter.sh/nodepool"];
          const lt = await this.call("ensuring launch template", () =>
            this.deps.launchTemplates.ensure(spec, nodeClass, nodePool),
          );
          groups.push({ launchTemplateId: lt.id, launchTemplateName: lt.name, instanceTypes, reservationId });
        }
      }
    }
    if (groups.length === 0)
      throw new CreateError("NoCompatibleAMI", "no AMI of the node class boots any of the planned instance types");
    return groups;
  }

  /** CreateFleet; a stale launch-template error invalidates the cache and retries exactly once (as Karpenter does). */
  private async launchWithRetry(
    nodeClaim: NodeClaimLike,
    nodeClass: EC2NodeClassLike,
    facts: NodeClassFacts,
    plan: FleetPlan,
  ): Promise<FleetOutcome> {
    const tags = instanceTags(this.deps.cluster.name, nodeClaim, nodeClass);
    const first = await this.templates(nodeClaim, nodeClass, facts, plan);
    try {
      return await this.deps.instances.launch({ plan, templates: first, tags });
    } catch (error) {
      if (!isLaunchTemplateNotFound(errorCode(error))) throw this.launchError(error, plan);
      for (const t of first) this.deps.launchTemplates.invalidate(t.launchTemplateName);
    }
    const second = await this.templates(nodeClaim, nodeClass, facts, plan);
    try {
      return await this.deps.instances.launch({ plan, templates: second, tags });
    } catch (error) {
      throw this.launchError(error, plan);
    }
  }

  /** A thrown CreateFleet exception as a typed error; a whole-call capacity code marks every planned offering. */
  private launchError(error: unknown, plan: FleetPlan): Error {
    const code = errorCode(error);
    const message = describeAwsError("creating fleet", error);
    if (!isUnfulfillableCapacity(code)) return new CreateError(code ?? "CreateFleetFailed", message, { cause: error });
    const marked = plan.overrides.map((o) => this.markOverride(plan, o.instanceType, o.zone, code));
    return new InsufficientCapacityError(message, { offerings: marked, cause: error });
  }

  /** Marks capacity errors unavailable; returns the launched id or throws the right typed error. */
  private recordErrors(outcome: FleetOutcome, plan: FleetPlan): string {
    const marked = this.markUnavailable(outcome.errors, plan);
    if (outcome.instanceID !== undefined) return outcome.instanceID;
    const summary =
      outcome.errors.map((e) => `${e.code}: ${e.message}`).join("; ") || "no instance and no error returned";
    if (marked.length > 0) throw new InsufficientCapacityError(summary, { offerings: marked });
    throw new CreateError(outcome.errors[0]?.code ?? "FleetEmpty", `creating fleet: ${summary}`);
  }

  /** Feeds per-override errors into the ICE cache; returns the keys it marked. */
  private markUnavailable(errors: FleetOutcome["errors"], plan: FleetPlan): string[] {
    const zoneOf = new Map(plan.overrides.map((o) => [o.subnetId, o.zone]));
    const marked: string[] = [];
    for (const e of errors) {
      const zone = e.zone ?? zoneOf.get(e.subnetId ?? "");
      // Spot refused as a whole (no service-linked role): every spot offering is unavailable for the TTL.
      if (e.code === SPOT_ROLE_ERROR && plan.capacityType === "spot") this.deps.unavailable.markSpotUnavailable();
      if (!isUnfulfillableCapacity(e.code) || e.instanceType === undefined || zone === undefined) continue;
      marked.push(this.markOverride(plan, e.instanceType, zone, e.code));
    }
    return marked;
  }

  /**
   * Records a capacity error for one override; returns the offering it concerns. A reserved offering's error
   * concerns its reservation only: a full one (ReservationCapacityExceeded) has no room until EC2 says
   * otherwise, any other capacity error makes it unavailable for the ICE TTL (Karpenter's WithReservationID).
   */
  private markOverride(plan: FleetPlan, instanceType: string, zone: string, code: string | undefined): string {
    const reservation = plan.overrides.find((o) => o.instanceType === instanceType && o.zone === zone)?.reservation;
    if (plan.capacityType !== "reserved" || reservation === undefined) {
      this.deps.unavailable.markUnavailable(plan.capacityType, instanceType, zone);
      return `${plan.capacityType}:${instanceType}:${zone}`;
    }
    if (code === RESERVATION_FULL) this.deps.reservations?.room.markFull(reservation.id);
    else this.deps.unavailable.markReservationUnavailable(instanceType, zone, reservation.id);
    return `reserved:${instanceType}:${zone}:${reservation.id}`;
  }

  private toLaunched(
    instance: CloudInstance,
    nodeClass: EC2NodeClassLike | undefined,
    adopted: boolean,
    nodePool?: string,
  ): LaunchedInstance {
    const catalog = this.deps.catalog.current();
    const entries = catalog.instanceTypes.filter((e) => e.name === instance.instanceType);
    // Every family: the instance runs whatever its type, so no AMI-family filter here.
    const { amiFamily: _family, ...options } =
      nodeClass === undefined ? { kubelet: allocatableKubelet(undefined) } : capacityOptions(nodeClass);
    const listed = toInstanceTypes({ ...catalog, instanceTypes: entries }, options)[0];
    // A capacity overlay's extended resources are part of what the NodeClaim says it has (Karpenter's Create).
    const overlaid =
      listed === undefined || nodePool === undefined ? undefined : this.deps.overlays?.apply(nodePool, [listed])?.[0];
    const type = overlaid ?? listed;
    return { ...launchedInstance(instance, type, catalog.zoneIds[instance.zone]), adopted };
  }

  private async call<T>(doing: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof CreateError) throw error;
      throw new CreateError(errorCode(error) ?? "AwsError", describeAwsError(doing, error), { cause: error });
    }
  }
}

/** The capacity reservations a fleet plan may launch into. */
function reservationsOf(plan: FleetPlan): Set<string> {
  return new Set(plan.overrides.flatMap((o) => (o.reservation === undefined ? [] : [o.reservation.id])));
}

function missingPart(facts: NodeClassFacts): string {
  const parts = [
    facts.subnets.length === 0 ? "subnets" : "",
    facts.securityGroups.length === 0 ? "security groups" : "",
    facts.amis.length === 0 ? "AMIs" : "",
  ].filter(Boolean);
  const why = Object.values(facts.errors).join("; ");
  return `${parts.join(", ")}${why === "" ? "" : ` (${why})`}`;
}
