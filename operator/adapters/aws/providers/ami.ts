/**
 * Resolves amiSelectorTerms to AMIs: aliases through SSM public parameters (prefix configurable
 * because moto does not seed /aws/service/eks), ssmParameter, id, name(+owner) and tags through
 * DescribeImages; the newest non-deprecated image per requirement set wins.
 */
import type { Filter, Image } from "@aws-sdk/client-ec2";
import { kubeArch, newestPerRequirements, type ResolvedAmi } from "../../../core/launch-template/amis.ts";
import type { AmiSelectorTerm } from "../../../core/launch-template/node-class.ts";
import type { NodeSelectorRequirement } from "../../../../policies/domain/requirements.ts";
import { describeAwsError, isNotFound } from "../errors.ts";
import type { Ec2Api, SsmApi } from "../sdk.ts";
import { aliasParameters } from "./ami-paths.ts";
import { termFilters } from "./selector-filters.ts";
import { SelectorResolutionError } from "./subnet.ts";
import type { Clock } from "./unavailable-offerings.ts";

/** AMIs for selector terms, best first (status.amis order). */
export interface AmiProvider {
  list(terms: readonly AmiSelectorTerm[]): Promise<ResolvedAmi[]>;
}

/** Settings of the AMI provider. */
export interface AmiProviderOptions {
  readonly ec2: Ec2Api;
  readonly ssm: SsmApi;
  readonly clock: Clock;
  /**
   * Kubernetes minor version of the cluster, e.g. "1.36" (alias parameter paths contain it). A function
   * is asked at every resolution: the operator re-reads the version periodically, so an upgraded
   * cluster resolves its aliases to the new version's AMIs (and nodes on the old ones drift) without
   * a restart.
   */
  readonly kubernetesVersion: string | (() => string);
  /** Prefix of the public parameters; "/aws/service" in AWS, e.g. "/kerf-test/aws/service" against moto. */
  readonly ssmPrefix?: string;
}

/** DescribeImages candidates with the requirements an image id was found under (undefined: derive from the image). */
type Wanted = { filters: Filter[]; owners?: string[]; requirements?: NodeSelectorRequirement[] };

/** AmiProvider over SSM GetParameter and EC2 DescribeImages. */
export class DefaultAmiProvider implements AmiProvider {
  private readonly options: AmiProviderOptions;

  constructor(options: AmiProviderOptions) {
    this.options = options;
  }

  async list(terms: readonly AmiSelectorTerm[]): Promise<ResolvedAmi[]> {
    const version = this.options.kubernetesVersion;
    // One version for the whole resolution, even when a refresh lands in the middle of it.
    const kubernetesVersion = typeof version === "string" ? version : version();
    const wanted: Wanted[] = [];
    for (const term of terms) wanted.push(...(await this.wantedFor(term, kubernetesVersion)));
    const amis: ResolvedAmi[] = [];
    for (const w of wanted) amis.push(...(await this.describe(w)));
    return newestPerRequirements(amis);
  }

  private async wantedFor(term: AmiSelectorTerm, kubernetesVersion: string): Promise<Wanted[]> {
    if (term.alias !== undefined) {
      const out: Wanted[] = [];
      for (const p of aliasParameters(term.alias, this.options.ssmPrefix ?? "/aws/service", kubernetesVersion)) {
        const id = await this.parameter(p.path);
        if (id !== undefined) out.push({ filters: [{ Name: "image-id", Values: [id] }], requirements: p.requirements });
      }
      return out;
    }
    if (term.ssmParameter !== undefined) {
      const id = await this.parameter(term.ssmParameter);
      return id === undefined ? [] : [{ filters: [{ Name: "image-id", Values: [id] }] }];
    }
    const owners = term.owner !== undefined ? [term.owner] : term.name !== undefined ? ["self", "amazon"] : undefined;
    return [
      { filters: termFilters(term, { id: "image-id", name: "name" }), ...(owners === undefined ? {} : { owners }) },
    ];
  }

  private async parameter(name: string): Promise<string | undefined> {
    try {
      return (await this.options.ssm.getParameter({ Name: name })).Parameter?.Value;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw new SelectorResolutionError(describeAwsError(`reading SSM parameter ${name}`, error), { cause: error });
    }
  }

  private async describe(w: Wanted): Promise<ResolvedAmi[]> {
    let images: Image[];
    try {
      const out = await this.options.ec2.describeImages({
        Filters: [...w.filters, { Name: "state", Values: ["available"] }],
        ...(w.owners === undefined ? {} : { Owners: w.owners }),
      });
      images = out.Images ?? [];
    } catch (error) {
      throw new SelectorResolutionError(describeAwsError("describing images", error), { cause: error });
    }
    const now = this.options.clock.now().getTime();
    return images
      .filter((i) => i.ImageId !== undefined)
      .map((i) => ({
        id: i.ImageId ?? "",
        name: i.Name,
        creationDate: i.CreationDate,
        deprecated: i.DeprecationTime !== undefined && Date.parse(i.DeprecationTime) <= now,
        requirements: w.requirements ?? [
          { key: "kubernetes.io/arch", operator: "In", values: [kubeArch(i.Architecture ?? "x86_64")] },
        ],
      }));
  }
}
