/** Builds the AWS provider graph (APIs → providers → resolver → AwsCloudProvider) from plain settings. */
import type { EC2NodeClassLike } from "../../core/launch-template/node-class.ts";
import type { CatalogSource } from "../../ports/catalog-source.ts";
import { AwsCloudProvider, type AwsCloudProviderDeps, type ClusterInfo } from "./cloud-provider.ts";
import { AwsNodeClassCloud } from "./node-class-cloud.ts";
import { CachedNodeClassResolver } from "./cached-node-class-resolver.ts";
import { AwsNodeClassResolver } from "./node-class-resolver.ts";
import { DefaultAmiProvider } from "./providers/ami.ts";
import { CapacityReservationProvider } from "./providers/capacityreservation.ts";
import { DefaultInstanceProvider } from "./providers/instance.ts";
import { DefaultInstanceProfileProvider } from "./providers/instanceprofile.ts";
import { DefaultLaunchTemplateProvider } from "./providers/launchtemplate.ts";
import { DefaultSecurityGroupProvider } from "./providers/securitygroup.ts";
import { DefaultSubnetProvider } from "./providers/subnet.ts";
import { UnavailableOfferings, type Clock } from "./providers/unavailable-offerings.ts";
import { awsApis, awsIamApi, type AwsClientConfig, type Ec2Api, type IamApi, type SsmApi } from "./sdk.ts";

/** Settings from the operator config (never read from the environment here). */
export interface AwsProviderSettings {
  readonly cluster: ClusterInfo;
  readonly aws: AwsClientConfig;
  /** Kubernetes minor version for AMI alias paths, e.g. "1.36"; a function is asked at each resolution. */
  readonly kubernetesVersion: string | (() => string);
  /** SSM prefix of the public AMI parameters (default "/aws/service"). */
  readonly ssmPrefix?: string | undefined;
  /**
   * The ReservedCapacity feature gate (default true, as in Karpenter since v1.6): capacity reservations
   * are resolved and launched into.
   */
  readonly reservedCapacity?: boolean | undefined;
}

/** Runtime dependencies supplied by the composition root. */
export interface AwsProviderDeps {
  /** The catalog in force: the operator's Ec2CatalogProvider, or a fixed one (tests). */
  readonly catalog: CatalogSource;
  readonly clock: Clock;
  readonly nodeClass: (name: string) => Promise<EC2NodeClassLike | undefined>;
  /** The evaluated NodeOverlays (gate NodeOverlay on): launches use their pool's overlaid prices. */
  readonly overlays?: AwsCloudProviderDeps["overlays"];
  /** Overrides for tests that wrap the APIs; real SDK clients otherwise (also for IAM when `iam` is left out). */
  readonly apis?: { ec2: Ec2Api; ssm: SsmApi; iam?: IamApi | undefined } | undefined;
}

/** Everything built, so the operator can share the ICE cache (interruption) and the providers (GC, status). */
export interface AwsProviderGraph {
  readonly cloudProvider: AwsCloudProvider;
  /** Cached for a minute; `resolve(nc, { fresh: true })` asks AWS (the status controller does). */
  readonly resolver: CachedNodeClassResolver;
  readonly unavailable: UnavailableOfferings;
  readonly launchTemplates: DefaultLaunchTemplateProvider;
  readonly instances: DefaultInstanceProvider;
  readonly instanceProfiles: DefaultInstanceProfileProvider;
  /** Instance profiles and cleanup of EC2NodeClasses (the nodeclass controller's cloud side). */
  readonly nodeClassCloud: AwsNodeClassCloud;
}

export function createAwsProviders(settings: AwsProviderSettings, deps: AwsProviderDeps): AwsProviderGraph {
  const { ec2, ssm } = deps.apis ?? awsApis(settings.aws);
  const reservations = settings.reservedCapacity === false ? undefined : new CapacityReservationProvider(ec2);
  const resolver = new CachedNodeClassResolver({
    now: () => deps.clock.now().getTime(),
    inner: new AwsNodeClassResolver({
      reservations: reservations === undefined ? undefined : { provider: reservations, now: () => deps.clock.now() },
      subnets: new DefaultSubnetProvider(ec2),
      securityGroups: new DefaultSecurityGroupProvider(ec2),
      amis: new DefaultAmiProvider({
        ec2,
        ssm,
        clock: deps.clock,
        kubernetesVersion: settings.kubernetesVersion,
        ...(settings.ssmPrefix === undefined ? {} : { ssmPrefix: settings.ssmPrefix }),
      }),
    }),
  });
  const unavailable = new UnavailableOfferings({ clock: deps.clock });
  const launchTemplates = new DefaultLaunchTemplateProvider({
    ec2,
    clusterName: settings.cluster.name,
    clock: deps.clock,
  });
  const instances = new DefaultInstanceProvider({ ec2, clusterName: settings.cluster.name });
  const iam = deps.apis?.iam ?? awsIamApi(settings.aws);
  const instanceProfiles = new DefaultInstanceProfileProvider({
    iam,
    clusterName: settings.cluster.name,
    region: settings.aws.region,
    clock: deps.clock,
  });
  const nodeClassCloud = new AwsNodeClassCloud({ instanceProfiles, launchTemplates });
  const cloudProvider = new AwsCloudProvider({
    cluster: settings.cluster,
    catalog: deps.catalog,
    nodeClass: deps.nodeClass,
    resolver,
    launchTemplates,
    instanceProfiles,
    instances,
    unavailable,
    overlays: deps.overlays,
    reservations,
  });
  return { cloudProvider, resolver, unavailable, launchTemplates, instances, instanceProfiles, nodeClassCloud };
}
