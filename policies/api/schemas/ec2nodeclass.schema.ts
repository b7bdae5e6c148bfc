// Structural schema of EC2NodeClass (karpenter.k8s.aws/v1) at v1.15.1: the single source for ajv and the CRD.
import { upstreamRulesAt } from "../upstream-rules.ts";
import * as P from "../patterns.ts";
import { conditions, envelope } from "./common.ts";
import { arr, bool, int, map, obj, str, withRules, type SchemaNode, type ValidationRule } from "./openapi.ts";
import { kubelet } from "./kubelet.schema.ts";

const at = (on: string): ValidationRule[] => upstreamRulesAt("EC2NodeClass", on);
const tags = (on: string): SchemaNode => withRules(map(str(), { maxProperties: 20 }), at(on));

function amiSelectorTerms(): SchemaNode {
  const term = obj({
    alias: withRules(str({ maxLength: 30 }), at(".spec.amiSelectorTerms[].alias")),
    id: str({ pattern: P.AMI_ID }),
    name: str(),
    owner: str(),
    ssmParameter: str(),
    tags: tags(".spec.amiSelectorTerms[].tags"),
  });
  return withRules(arr(term, { maxItems: 30, minItems: 1 }), at(".spec.amiSelectorTerms"));
}

function blockDeviceMappings(): SchemaNode {
  const ebs = obj({
    deleteOnTermination: bool(),
    encrypted: bool(),
    iops: int({ format: "int64" }),
    kmsKeyID: str(),
    snapshotID: str(),
    throughput: int({ format: "int64" }),
    volumeInitializationRate: int({ format: "int32", maximum: 300, minimum: 100 }),
    volumeSize: str({ pattern: P.VOLUME_SIZE }),
    volumeType: str({ enum: ["standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"] }),
  });
  const mapping = obj({
    deviceName: str(),
    ebs: withRules(ebs, at(".spec.blockDeviceMappings[].ebs")),
    rootVolume: bool(),
  });
  return withRules(arr(mapping, { maxItems: 50 }), at(".spec.blockDeviceMappings"));
}

function capacityReservationSelectorTerms(): SchemaNode {
  const term = obj({
    id: str({ pattern: P.CAPACITY_RESERVATION_ID }),
    instanceMatchCriteria: str({ enum: ["open", "targeted"] }),
    ownerID: str({ pattern: P.OWNER_ID }),
    tags: tags(".spec.capacityReservationSelectorTerms[].tags"),
  });
  return withRules(arr(term, { maxItems: 30 }), at(".spec.capacityReservationSelectorTerms"));
}

function networking(): Record<string, SchemaNode> {
  const connectionTracking = obj({
    tcpEstablishedTimeout: int({ format: "int32", maximum: 432000, minimum: 60 }),
    udpStreamTimeout: int({ format: "int32", maximum: 180, minimum: 60 }),
    udpTimeout: int({ format: "int32", maximum: 60, minimum: 30 }),
  });
  const networkInterface = obj(
    {
      deviceIndex: int({ format: "int32", minimum: 0 }),
      interfaceType: str({ enum: ["interface", "efa-only"] }),
      networkCardIndex: int({ format: "int32", minimum: 0 }),
    },
    { required: ["deviceIndex", "interfaceType", "networkCardIndex"] },
  );
  const placement = obj({ id: str({ pattern: P.PLACEMENT_GROUP_ID }), name: str({ minLength: 1 }) });
  return {
    associatePublicIPAddress: bool(),
    connectionTracking: withRules(connectionTracking, at(".spec.connectionTracking")),
    ipPrefixCount: int({ format: "int32", minimum: 0 }),
    networkInterfaces: withRules(arr(networkInterface, { maxItems: 150 }), at(".spec.networkInterfaces")),
    placementGroupSelector: withRules(placement, at(".spec.placementGroupSelector")),
  };
}

function selectorTerms(): Record<string, SchemaNode> {
  const sgTerm = obj({
    id: str({ pattern: P.SECURITY_GROUP_ID }),
    name: str(),
    tags: tags(".spec.securityGroupSelectorTerms[].tags"),
  });
  const subnetTerm = obj({ id: str({ pattern: P.SUBNET_ID }), tags: tags(".spec.subnetSelectorTerms[].tags") });
  return {
    securityGroupSelectorTerms: withRules(arr(sgTerm, { maxItems: 30 }), at(".spec.securityGroupSelectorTerms")),
    subnetSelectorTerms: withRules(arr(subnetTerm, { maxItems: 30 }), at(".spec.subnetSelectorTerms")),
  };
}

function metadataOptions(): SchemaNode {
  return obj(
    {
      httpEndpoint: str({ default: "enabled", enum: ["enabled", "disabled"] }),
      httpProtocolIPv6: str({ default: "disabled", enum: ["enabled", "disabled"] }),
      httpPutResponseHopLimit: int({ default: 1, format: "int64", maximum: 64, minimum: 1 }),
      httpTokens: str({ default: "required", enum: ["required", "optional"] }),
    },
    {
      default: {
        httpEndpoint: "enabled",
        httpProtocolIPv6: "disabled",
        httpPutResponseHopLimit: 1,
        httpTokens: "required",
      },
    },
  );
}

function spec(): SchemaNode {
  const node = obj(
    {
      amiFamily: str({
        enum: ["AL2", "AL2023", "Bottlerocket", "Custom", "Windows2019", "Windows2022", "Windows2025"],
      }),
      amiSelectorTerms: amiSelectorTerms(),
      blockDeviceMappings: blockDeviceMappings(),
      capacityReservationSelectorTerms: capacityReservationSelectorTerms(),
      context: str(),
      cpuOptions: obj({ nestedVirtualization: str({ enum: ["enabled", "disabled"] }) }),
      detailedMonitoring: bool(),
      instanceProfile: withRules(str(), at(".spec.instanceProfile")),
      instanceStorePolicy: str({ enum: ["RAID0"] }),
      enclaveOptions: obj({ enabled: bool() }, { required: ["enabled"] }),
      kubelet: kubelet(),
      metadataOptions: metadataOptions(),
      role: withRules(str(), at(".spec.role")),
      tags: withRules(map(str()), at(".spec.tags")),
      userData: str(),
      ...networking(),
      ...selectorTerms(),
    },
    { required: ["amiSelectorTerms", "securityGroupSelectorTerms", "subnetSelectorTerms"] },
  );
  return withRules(sortProperties(node), at(".spec"));
}

function sortProperties(node: SchemaNode): SchemaNode {
  const entries = Object.entries(node.properties ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { ...node, properties: Object.fromEntries(entries) };
}

function status(): SchemaNode {
  const amiRequirement = obj(
    { key: str(), operator: str(), values: arr(str(), { "x-kubernetes-list-type": "atomic" }) },
    { required: ["key", "operator"] },
  );
  const capacityReservation = obj(
    {
      availabilityZone: str(),
      endTime: str({ format: "date-time" }),
      id: str({ pattern: P.CAPACITY_RESERVATION_ID }),
      instanceMatchCriteria: str({ enum: ["open", "targeted"] }),
      instanceType: str(),
      interruptible: bool(),
      ownerID: str({ pattern: P.OWNER_ID }),
      reservationType: str({ default: "default", enum: ["default", "capacity-block"] }),
      state: str({ default: "active", enum: ["active", "expiring"] }),
    },
    { required: ["availabilityZone", "id", "instanceMatchCriteria", "instanceType", "ownerID"] },
  );
  return obj({
    amis: arr(
      obj(
        { deprecated: bool(), id: str(), name: str(), requirements: arr(amiRequirement) },
        { required: ["id", "requirements"] },
      ),
    ),
    capacityReservations: arr(capacityReservation),
    conditions: conditions({ nodeClaim: false, listMap: false }),
    instanceProfile: str(),
    securityGroups: arr(obj({ id: str(), name: str() }, { required: ["id"] })),
    subnets: arr(obj({ id: str(), zone: str(), zoneID: str() }, { required: ["id", "zone"] })),
  });
}

/** openAPIV3Schema of the EC2NodeClass CRD (no top-level `required`: quirk §10.13). */
export const EC2NODECLASS_SCHEMA: SchemaNode = envelope(spec(), status(), undefined);
