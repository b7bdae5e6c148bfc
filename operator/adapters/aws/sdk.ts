/**
 * Narrow EC2, SSM, IAM and EKS interfaces (only the calls kerf makes) and their
 * implementation over the AWS SDK v3 clients.
 */
import {
  CreateFleetCommand,
  CreateLaunchTemplateCommand,
  DeleteLaunchTemplateCommand,
  DescribeImagesCommand,
  DescribeInstancesCommand,
  DescribeLaunchTemplatesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  EC2Client,
  TerminateInstancesCommand,
  type CreateFleetCommandInput,
  type CreateFleetCommandOutput,
  type CreateLaunchTemplateCommandInput,
  type CreateLaunchTemplateCommandOutput,
  type DeleteLaunchTemplateCommandInput,
  type DeleteLaunchTemplateCommandOutput,
  type DescribeImagesCommandInput,
  type DescribeImagesCommandOutput,
  type DescribeInstancesCommandInput,
  type DescribeInstancesCommandOutput,
  type DescribeLaunchTemplatesCommandInput,
  type DescribeLaunchTemplatesCommandOutput,
  type DescribeSecurityGroupsCommandInput,
  type DescribeSecurityGroupsCommandOutput,
  type DescribeSubnetsCommandInput,
  type DescribeSubnetsCommandOutput,
  type TerminateInstancesCommandInput,
  type TerminateInstancesCommandOutput,
} from "@aws-sdk/client-ec2";
import {
  DescribeCapacityReservationsCommand,
  type DescribeCapacityReservationsCommandInput,
  type DescribeCapacityReservationsCommandOutput,
} from "@aws-sdk/client-ec2";
import {
  DescribeAvailabilityZonesCommand,
  DescribeInstanceTypeOfferingsCommand,
  DescribeInstanceTypesCommand,
  DescribeSpotPriceHistoryCommand,
  type DescribeAvailabilityZonesCommandInput,
  type DescribeAvailabilityZonesCommandOutput,
  type DescribeInstanceTypeOfferingsCommandInput,
  type DescribeInstanceTypeOfferingsCommandOutput,
  type DescribeInstanceTypesCommandInput,
  type DescribeInstanceTypesCommandOutput,
  type DescribeSpotPriceHistoryCommandInput,
  type DescribeSpotPriceHistoryCommandOutput,
} from "@aws-sdk/client-ec2";
import {
  GetProductsCommand,
  PricingClient,
  type GetProductsCommandInput,
  type GetProductsCommandOutput,
} from "@aws-sdk/client-pricing";
import {
  DescribeClusterCommand,
  EKSClient,
  type DescribeClusterCommandInput,
  type DescribeClusterCommandOutput,
} from "@aws-sdk/client-eks";
import {
  AddRoleToInstanceProfileCommand,
  CreateInstanceProfileCommand,
  DeleteInstanceProfileCommand,
  GetInstanceProfileCommand,
  IAMClient,
  RemoveRoleFromInstanceProfileCommand,
  type AddRoleToInstanceProfileCommandInput,
  type AddRoleToInstanceProfileCommandOutput,
  type CreateInstanceProfileCommandInput,
  type CreateInstanceProfileCommandOutput,
  type DeleteInstanceProfileCommandInput,
  type DeleteInstanceProfileCommandOutput,
  type GetInstanceProfileCommandInput,
  type GetInstanceProfileCommandOutput,
  type RemoveRoleFromInstanceProfileCommandInput,
  type RemoveRoleFromInstanceProfileCommandOutput,
} from "@aws-sdk/client-iam";
import {
  DeleteMessageCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SQSClient,
  type DeleteMessageCommandInput,
  type DeleteMessageCommandOutput,
  type GetQueueUrlCommandInput,
  type GetQueueUrlCommandOutput,
  type ReceiveMessageCommandInput,
  type ReceiveMessageCommandOutput,
} from "@aws-sdk/client-sqs";
import {
  GetParameterCommand,
  SSMClient,
  type GetParameterCommandInput,
  type GetParameterCommandOutput,
} from "@aws-sdk/client-ssm";

/** The EC2 calls kerf's cloud provider makes. */
export interface Ec2Api {
  describeSubnets(input: DescribeSubnetsCommandInput): Promise<DescribeSubnetsCommandOutput>;
  describeSecurityGroups(input: DescribeSecurityGroupsCommandInput): Promise<DescribeSecurityGroupsCommandOutput>;
  describeImages(input: DescribeImagesCommandInput): Promise<DescribeImagesCommandOutput>;
  describeLaunchTemplates(input: DescribeLaunchTemplatesCommandInput): Promise<DescribeLaunchTemplatesCommandOutput>;
  createLaunchTemplate(input: CreateLaunchTemplateCommandInput): Promise<CreateLaunchTemplateCommandOutput>;
  deleteLaunchTemplate(input: DeleteLaunchTemplateCommandInput): Promise<DeleteLaunchTemplateCommandOutput>;
  createFleet(input: CreateFleetCommandInput): Promise<CreateFleetCommandOutput>;
  describeInstances(input: DescribeInstancesCommandInput): Promise<DescribeInstancesCommandOutput>;
  describeCapacityReservations(
    input: DescribeCapacityReservationsCommandInput,
  ): Promise<DescribeCapacityReservationsCommandOutput>;
  terminateInstances(input: TerminateInstancesCommandInput): Promise<TerminateInstancesCommandOutput>;
}

/** The EC2 calls that discover the region's instance types, offerings, zones and spot prices. */
export interface Ec2CatalogApi {
  describeInstanceTypes(input: DescribeInstanceTypesCommandInput): Promise<DescribeInstanceTypesCommandOutput>;
  describeInstanceTypeOfferings(
    input: DescribeInstanceTypeOfferingsCommandInput,
  ): Promise<DescribeInstanceTypeOfferingsCommandOutput>;
  describeAvailabilityZones(
    input: DescribeAvailabilityZonesCommandInput,
  ): Promise<DescribeAvailabilityZonesCommandOutput>;
  describeSpotPriceHistory(input: DescribeSpotPriceHistoryCommandInput): Promise<DescribeSpotPriceHistoryCommandOutput>;
}

/** The Pricing API call (on-demand prices). */
export interface PricingApi {
  getProducts(input: GetProductsCommandInput): Promise<GetProductsCommandOutput>;
}

/** The SSM call kerf makes (AMI aliases and ssmParameter terms). */
export interface SsmApi {
  getParameter(input: GetParameterCommandInput): Promise<GetParameterCommandOutput>;
}

/** The IAM calls kerf makes (instance profiles of EC2NodeClasses with spec.role). */
export interface IamApi {
  getInstanceProfile(input: GetInstanceProfileCommandInput): Promise<GetInstanceProfileCommandOutput>;
  createInstanceProfile(input: CreateInstanceProfileCommandInput): Promise<CreateInstanceProfileCommandOutput>;
  addRoleToInstanceProfile(input: AddRoleToInstanceProfileCommandInput): Promise<AddRoleToInstanceProfileCommandOutput>;
  removeRoleFromInstanceProfile(
    input: RemoveRoleFromInstanceProfileCommandInput,
  ): Promise<RemoveRoleFromInstanceProfileCommandOutput>;
  deleteInstanceProfile(input: DeleteInstanceProfileCommandInput): Promise<DeleteInstanceProfileCommandOutput>;
}

/** The EKS call kerf makes (cluster endpoint, CA and service CIDR at start). */
export interface EksApi {
  describeCluster(input: DescribeClusterCommandInput): Promise<DescribeClusterCommandOutput>;
}

/** The SQS calls the interruption controller makes; `signal` aborts a long poll (leadership lost, shutdown). */
export interface SqsApi {
  getQueueUrl(input: GetQueueUrlCommandInput): Promise<GetQueueUrlCommandOutput>;
  receiveMessage(input: ReceiveMessageCommandInput, signal?: AbortSignal): Promise<ReceiveMessageCommandOutput>;
  deleteMessage(input: DeleteMessageCommandInput): Promise<DeleteMessageCommandOutput>;
}

/** Where and as whom to reach AWS; `endpoint` overrides the service endpoint (moto in tests). */
export interface AwsClientConfig {
  readonly region: string;
  readonly endpoint?: string | undefined;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string } | undefined;
}

function clientOptions(config: AwsClientConfig): {
  region: string;
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
} {
  return {
    region: config.region,
    ...(config.endpoint === undefined ? {} : { endpoint: config.endpoint }),
    ...(config.credentials === undefined ? {} : { credentials: { ...config.credentials } }),
  };
}

/**
 * Ec2Api over a real EC2Client; CreateFleet goes through `createFleetClient` (see awsApis for why it
 * makes one attempt only).
 */
export function ec2Api(client: EC2Client, createFleetClient: EC2Client = client): Ec2Api {
  return {
    describeSubnets: (input) => client.send(new DescribeSubnetsCommand(input)),
    describeSecurityGroups: (input) => client.send(new DescribeSecurityGroupsCommand(input)),
    describeImages: (input) => client.send(new DescribeImagesCommand(input)),
    describeLaunchTemplates: (input) => client.send(new DescribeLaunchTemplatesCommand(input)),
    createLaunchTemplate: (input) => client.send(new CreateLaunchTemplateCommand(input)),
    deleteLaunchTemplate: (input) => client.send(new DeleteLaunchTemplateCommand(input)),
    createFleet: (input) => createFleetClient.send(new CreateFleetCommand(input)),
    describeInstances: (input) => client.send(new DescribeInstancesCommand(input)),
    describeCapacityReservations: (input) => client.send(new DescribeCapacityReservationsCommand(input)),
    terminateInstances: (input) => client.send(new TerminateInstancesCommand(input)),
  };
}

/** Ec2CatalogApi over a real EC2Client. */
export function ec2CatalogApi(client: EC2Client): Ec2CatalogApi {
  return {
    describeInstanceTypes: (input) => client.send(new DescribeInstanceTypesCommand(input)),
    describeInstanceTypeOfferings: (input) => client.send(new DescribeInstanceTypeOfferingsCommand(input)),
    describeAvailabilityZones: (input) => client.send(new DescribeAvailabilityZonesCommand(input)),
    describeSpotPriceHistory: (input) => client.send(new DescribeSpotPriceHistoryCommand(input)),
  };
}

/** Ec2CatalogApi from one configuration. */
export function awsEc2CatalogApi(config: AwsClientConfig): Ec2CatalogApi {
  return ec2CatalogApi(new EC2Client(clientOptions(config)));
}

/**
 * PricingApi for a region's prices. The Pricing API has endpoints in a few regions only (`apiRegion`, see
 * pricingApiRegion); `endpoint` (tests) overrides it.
 */
export function awsPricingApi(config: AwsClientConfig, apiRegion: string): PricingApi {
  const client = new PricingClient(clientOptions({ ...config, region: apiRegion }));
  return { getProducts: (input) => client.send(new GetProductsCommand(input)) };
}

/** SsmApi over a real SSMClient. */
export function ssmApi(client: SSMClient): SsmApi {
  return { getParameter: (input) => client.send(new GetParameterCommand(input)) };
}

/** IamApi over a real IAMClient. */
export function iamApi(client: IAMClient): IamApi {
  return {
    getInstanceProfile: (input) => client.send(new GetInstanceProfileCommand(input)),
    createInstanceProfile: (input) => client.send(new CreateInstanceProfileCommand(input)),
    addRoleToInstanceProfile: (input) => client.send(new AddRoleToInstanceProfileCommand(input)),
    removeRoleFromInstanceProfile: (input) => client.send(new RemoveRoleFromInstanceProfileCommand(input)),
    deleteInstanceProfile: (input) => client.send(new DeleteInstanceProfileCommand(input)),
  };
}

/** EksApi over a real EKSClient. */
export function eksApi(client: EKSClient): EksApi {
  return { describeCluster: (input) => client.send(new DescribeClusterCommand(input)) };
}

/** SqsApi over a real SQSClient. */
export function sqsApi(client: SQSClient): SqsApi {
  return {
    getQueueUrl: (input) => client.send(new GetQueueUrlCommand(input)),
    receiveMessage: (input, signal) =>
      client.send(new ReceiveMessageCommand(input), signal === undefined ? {} : { abortSignal: signal }),
    deleteMessage: (input) => client.send(new DeleteMessageCommand(input)),
  };
}

/** SqsApi from one configuration. */
export function awsSqsApi(config: AwsClientConfig): SqsApi {
  return sqsApi(new SQSClient(clientOptions(config)));
}

/** EksApi from one configuration. */
export function awsEksApi(config: AwsClientConfig): EksApi {
  return eksApi(new EKSClient(clientOptions(config)));
}

/** IamApi from one configuration (IAM is global; the SDK signs for the configured region). */
export function awsIamApi(config: AwsClientConfig): IamApi {
  return iamApi(new IAMClient(clientOptions(config)));
}

/**
 * Builds the EC2 and SSM APIs from one configuration. CreateFleet makes a single attempt: kerf sends
 * no ClientToken, so an SDK retry after a lost answer (a 5xx, a timeout, a reset connection once EC2
 * acted) would launch a second instance. The error goes to the NodeClaim's launch instead, whose next
 * attempt first looks for an instance tagged with the NodeClaim and adopts it.
 */
export function awsApis(config: AwsClientConfig): { ec2: Ec2Api; ssm: SsmApi } {
  const ec2 = ec2Api(new EC2Client(clientOptions(config)), new EC2Client({ ...clientOptions(config), maxAttempts: 1 }));
  return { ec2, ssm: ssmApi(new SSMClient(clientOptions(config))) };
}
