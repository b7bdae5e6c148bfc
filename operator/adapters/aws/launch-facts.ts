/** Helpers that shape what a launch writes and returns: instance tags, node labels, status quantities. */
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { Label } from "../../../policies/domain/labels.ts";
import { formatResource, type ResourceList } from "../../../policies/domain/quantity.ts";
import type { KubeletConfig } from "../../../policies/domain/allocatable.ts";
import type { InstanceTypeOptions } from "../../../policies/domain/catalog/catalog.ts";
import { ebsEphemeralStorageBytes } from "../../../policies/domain/ephemeral-storage.ts";
import { amiFamilyOf, type EC2NodeClassLike, type NodeClassKubelet } from "../../core/launch-template/node-class.ts";
import type {
  CloudInstance,
  InstanceReservation,
  LaunchedInstance,
  NodeClaimLike,
} from "../../ports/cloud-provider.ts";

/**
 * The tags on every instance and volume kerf launches (Karpenter's keys; user spec.tags first, ours win).
 * `karpenter.sh/nodeclaim` goes on at launch (Karpenter adds it after registration): a retried launch
 * finds its instance by it. No `Name`: the nodeclaim.tagging controller sets it to the Node's name once
 * the node registered, as Karpenter's does, and leaves a `Name` from spec.tags as it is.
 */
export function instanceTags(
  clusterName: string,
  nodeClaim: NodeClaimLike,
  nodeClass: EC2NodeClassLike,
): Record<string, string> {
  return {
    ...(nodeClass.spec.tags ?? {}),
    [Label.nodePool]: nodeClaim.metadata.labels?.[Label.nodePool] ?? "",
    "karpenter.sh/nodeclaim": nodeClaim.metadata.name,
    [Label.nodeClass]: nodeClass.metadata.name,
    [`kubernetes.io/cluster/${clusterName}`]: "owned",
    "eks:eks-cluster-name": clusterName,
  };
}

/** Karpenter's node labels for an instance in a capacity reservation: its id, type and interruptibility. */
export function reservationLabels(reservation: InstanceReservation | undefined): Record<string, string> {
  if (reservation === undefined) return {};
  return {
    [Label.capacityReservationId]: reservation.id,
    [Label.capacityReservationType]: reservation.type,
    [Label.capacityReservationInterruptible]: String(reservation.interruptible),
  };
}

/** Node labels the user data registers (the NodeClaim's labels plus the launched capacity type and reservation). */
export function registrationLabels(
  nodeClaim: NodeClaimLike,
  capacityType: string,
  reservation?: InstanceReservation,
): Record<string, string> {
  return {
    ...(nodeClaim.metadata.labels ?? {}),
    [Label.capacityType]: capacityType,
    ...reservationLabels(reservation),
  };
}

function quantity(name: string, value: number): string {
  if (name === "memory" || name === "ephemeral-storage") {
    for (const [suffix, size] of [
      ["Gi", 2 ** 30],
      ["Mi", 2 ** 20],
      ["Ki", 2 ** 10],
    ] as const)
      if (value % size === 0 && value >= size) return `${value / size}${suffix}`;
    return String(Math.round(value));
  }
  return formatResource(name, value);
}

/** A resource list as Kubernetes quantity strings (exact, unlike the human formatter). */
export function quantities(list: ResourceList): Record<string, string> {
  return Object.fromEntries(Object.entries(list).map(([k, v]) => [k, quantity(k, v)]));
}

/** The NodeClaim-status view of an instance, with capacity and labels from its instance type when known. */
export function launchedInstance(
  instance: CloudInstance,
  type: InstanceType | undefined,
  zoneId: string | undefined,
): Omit<LaunchedInstance, "adopted"> {
  const labels: Record<string, string> = {
    ...(type?.labels ?? {}),
    [Label.instanceType]: instance.instanceType,
    [Label.zone]: instance.zone,
    [Label.capacityType]: instance.capacityType,
    ...reservationLabels(instance.capacityReservation),
  };
  if (zoneId !== undefined) labels[Label.zoneId] = zoneId;
  return {
    providerID: instance.providerID,
    instanceID: instance.instanceID,
    imageID: instance.imageID,
    instanceType: instance.instanceType,
    zone: instance.zone,
    capacityType: instance.capacityType,
    capacity: quantities(type?.capacity ?? {}),
    allocatable: quantities(type?.allocatable ?? {}),
    labels,
  };
}

/** The kubelet fields the allocatable model reads, without undefined members. */
export function allocatableKubelet(kubelet: NodeClassKubelet | undefined): KubeletConfig {
  return Object.fromEntries(Object.entries(kubelet ?? {}).filter(([, v]) => v !== undefined)) as KubeletConfig;
}

/**
 * What sizes a node class's instance types: kubelet, AMI family, and ephemeral storage
 * (EBS, or RAID0 instance store).
 */
export function capacityOptions(nodeClass: EC2NodeClassLike): InstanceTypeOptions {
  const amiFamily = amiFamilyOf(nodeClass.spec);
  const source = { ...nodeClass.spec, amiFamily };
  return {
    kubelet: allocatableKubelet(nodeClass.spec.kubelet),
    amiFamily,
    ephemeralStorageBytes: ebsEphemeralStorageBytes(source),
    instanceStorePolicy: nodeClass.spec.instanceStorePolicy,
  };
}
