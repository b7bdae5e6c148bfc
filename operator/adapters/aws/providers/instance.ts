/** EC2 instances: CreateFleet (type instant) from a fleet plan, DescribeInstances by tag or id, TerminateInstances. */
import type { CreateFleetCommandInput, Filter, Instance, Tag } from "@aws-sdk/client-ec2";
import type { FleetPlan } from "../../../core/fleet/plan.ts";
import { formatProviderID, type CloudInstance, type InstanceReservation } from "../../../ports/cloud-provider.ts";
import type { Ec2Api } from "../sdk.ts";
import { tagRecord } from "./selector-filters.ts";

/** States of an instance that still exists (Karpenter's instance-state filter). */
export const LIVE_STATES = ["pending", "running", "stopping", "stopped", "shutting-down"];

/** One launch-template config of the request: the template and the instance types it boots. */
export interface TemplateGroup {
  readonly launchTemplateId: string;
  readonly launchTemplateName: string;
  readonly instanceTypes: readonly string[];
  /** A reserved launch: the reservation this template targets (only its overrides go with it). */
  readonly reservationId?: string | undefined;
}

/** Everything one CreateFleet call needs. */
export interface FleetRequest {
  readonly plan: FleetPlan;
  readonly templates: readonly TemplateGroup[];
  /** Tags for the instance, its volumes and the fleet. */
  readonly tags: Readonly<Record<string, string>>;
}

/** One per-override failure CreateFleet reported. */
export interface FleetError {
  readonly code: string;
  readonly message: string;
  readonly instanceType?: string | undefined;
  readonly zone?: string | undefined;
  readonly subnetId?: string | undefined;
}

/** What CreateFleet did: the launched instance id (if any) and the errors it reported. */
export interface FleetOutcome {
  readonly instanceID?: string | undefined;
  readonly errors: readonly FleetError[];
}

/**
 * The market of a fleet (Karpenter's CreateFleetInputBuilder): spot and on-demand as themselves, prioritized when a
 * NodeOverlay set a price; a reserved launch is `on-demand` into a default reservation, `capacity-block` into a
 * block, `reserved-capacity` into an interruptible reservation.
 */
function market(plan: FleetPlan): Pick<
  CreateFleetCommandInput,
  "SpotOptions" | "OnDemandOptions" | "ReservedCapacityOptions"
> & {
  target: "spot" | "on-demand" | "capacity-block" | "reserved-capacity";
} {
  const prioritized =
    plan.allocationStrategy === "prioritized" || plan.allocationStrategy === "capacity-optimized-prioritized";
  if (plan.capacityType === "spot") {
    return {
      target: "spot",
      SpotOptions: { AllocationStrategy: prioritized ? "capacity-optimized-prioritized" : "price-capacity-optimized" },
    };
  }
  const reservation = plan.capacityType === "reserved" ? plan.overrides[0]?.reservation : undefined;
  if (reservation?.type === "capacity-block") return { target: "capacity-block" };
  if (reservation?.interruptible === true) {
    return {
      target: "reserved-capacity",
      ReservedCapacityOptions: { ReservationTypes: ["interruptible-capacity-reservation"] },
    };
  }
  return { target: "on-demand", OnDemandOptions: { AllocationStrategy: prioritized ? "prioritized" : "lowest-price" } };
}

/** The SDK request for a plan (priorities as prices, allocation strategy by capacity type). */
export function createFleetInput(request: FleetRequest): CreateFleetCommandInput {
  const { plan } = request;
  const tags: Tag[] = Object.entries(request.tags).map(([Key, Value]) => ({ Key, Value }));
  const { target, ...options } = market(plan);
  return {
    Type: "instant",
    TargetCapacitySpecification: { TotalTargetCapacity: 1, DefaultTargetCapacityType: target },
    ...options,
    LaunchTemplateConfigs: request.templates
      .map((t) => ({
        LaunchTemplateSpecification: { LaunchTemplateId: t.launchTemplateId, Version: "$Latest" },
        Overrides: plan.overrides
          .filter((o) => t.instanceTypes.includes(o.instanceType) && o.reservation?.id === t.reservationId)
          .map((o) => ({
            InstanceType: o.instanceType as "m5.large",
            SubnetId: o.subnetId,
            AvailabilityZone: o.zone,
            Priority: o.priority,
          })),
      }))
      .filter((c) => c.Overrides.length > 0),
    TagSpecifications: (["instance", "volume"] as const).map((ResourceType) => ({ ResourceType, Tags: tags })),
  };
}

/** The CloudInstance view of an EC2 instance. */
export function toCloudInstance(i: Instance): CloudInstance {
  const tags = tagRecord(i.Tags);
  const zone = i.Placement?.AvailabilityZone ?? "";
  const id = i.InstanceId ?? "";
  const reservation = reservationOf(i);
  return {
    providerID: formatProviderID(zone, id),
    instanceID: id,
    imageID: i.ImageId ?? "",
    instanceType: i.InstanceType ?? "",
    zone,
    capacityType: reservation === undefined ? (i.InstanceLifecycle === "spot" ? "spot" : "on-demand") : "reserved",
    state: i.State?.Name ?? "",
    launchTime: i.LaunchTime ?? new Date(0),
    ...network(i),
    ...tagFields(tags),
    tags,
    ...(reservation === undefined ? {} : { capacityReservation: reservation }),
  };
}

/**
 * The reservation an instance runs in as reserved capacity (aws instance types.go): only one launched with
 * the `capacity-reservations-only` preference — an on-demand instance that EC2 matched to an open
 * reservation stays on-demand, as in Karpenter.
 */
function reservationOf(i: Instance): InstanceReservation | undefined {
  const id = i.CapacityReservationId;
  if (
    id === undefined ||
    id === "" ||
    i.CapacityReservationSpecification?.CapacityReservationPreference !== "capacity-reservations-only"
  )
    return undefined;
  const lifecycle = i.InstanceLifecycle as string | undefined;
  return {
    id,
    type: lifecycle === "capacity-block" ? "capacity-block" : "default",
    interruptible: lifecycle === "interruptible-capacity-reservation",
  };
}

/**
 * Security groups and subnet of the instance. Read from the instance and from its network interfaces:
 * a CreateFleet instance may report its groups only under NetworkInterfaces[].Groups (moto does),
 * and reading one place alone would make every such node look security-group drifted.
 */
function network(i: Instance): { securityGroupIDs: string[]; subnetID: string } {
  const direct = (i.SecurityGroups ?? []).map((g) => g.GroupId ?? "");
  const viaEni = (i.NetworkInterfaces ?? []).flatMap((n) => (n.Groups ?? []).map((g) => g.GroupId ?? ""));
  const subnetID = i.SubnetId ?? i.NetworkInterfaces?.find((n) => n.SubnetId !== undefined)?.SubnetId ?? "";
  return { securityGroupIDs: [...new Set([...direct, ...viaEni].filter((g) => g !== ""))], subnetID };
}

function tagFields(tags: Record<string, string>): {
  nodeClaimName: string;
  nodePoolName: string;
  nodeClassName: string;
} {
  return {
    nodeClaimName: tags["karpenter.sh/nodeclaim"] ?? "",
    nodePoolName: tags["karpenter.sh/nodepool"] ?? "",
    nodeClassName: tags["karpenter.k8s.aws/ec2nodeclass"] ?? "",
  };
}

/** EC2 instance calls; SDK exceptions propagate for the cloud provider to classify. */
export class DefaultInstanceProvider {
  private readonly ec2: Ec2Api;
  private readonly clusterName: string;

  constructor(options: { ec2: Ec2Api; clusterName: string }) {
    this.ec2 = options.ec2;
    this.clusterName = options.clusterName;
  }

  /** Calls CreateFleet once. */
  async launch(request: FleetRequest): Promise<FleetOutcome> {
    const out = await this.ec2.createFleet(createFleetInput(request));
    const errors = (out.Errors ?? []).map((e) => ({
      code: e.ErrorCode ?? "Unknown",
      message: e.ErrorMessage ?? "",
      instanceType: e.LaunchTemplateAndOverrides?.Overrides?.InstanceType,
      zone: e.LaunchTemplateAndOverrides?.Overrides?.AvailabilityZone,
      subnetId: e.LaunchTemplateAndOverrides?.Overrides?.SubnetId,
    }));
    return { instanceID: out.Instances?.flatMap((i) => i.InstanceIds ?? [])[0], errors };
  }

  /** Live instances of this cluster carrying a karpenter.sh/nodeclaim tag, optionally for one NodeClaim. */
  async list(nodeClaimName?: string): Promise<CloudInstance[]> {
    const filters: Filter[] = [
      { Name: `tag:kubernetes.io/cluster/${this.clusterName}`, Values: ["owned"] },
      nodeClaimName === undefined
        ? { Name: "tag-key", Values: ["karpenter.sh/nodeclaim"] }
        : { Name: "tag:karpenter.sh/nodeclaim", Values: [nodeClaimName] },
      { Name: "instance-state-name", Values: LIVE_STATES },
    ];
    return this.describe(filters);
  }

  /** One instance by id when it still exists (terminated counts as gone). */
  async get(instanceID: string): Promise<CloudInstance | undefined> {
    const found = await this.describe([{ Name: "instance-id", Values: [instanceID] }]);
    return found.find((i) => LIVE_STATES.includes(i.state));
  }

  async terminate(instanceID: string): Promise<void> {
    await this.ec2.terminateInstances({ InstanceIds: [instanceID] });
  }

  private async describe(filters: Filter[]): Promise<CloudInstance[]> {
    const out: CloudInstance[] = [];
    let token: string | undefined;
    do {
      const page = await this.ec2.describeInstances({
        Filters: filters,
        ...(token === undefined ? {} : { NextToken: token }),
      });
      for (const r of page.Reservations ?? []) for (const i of r.Instances ?? []) out.push(toCloudInstance(i));
      token = page.NextToken;
    } while (token !== undefined && token !== "");
    return out;
  }
}
