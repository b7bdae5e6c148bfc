/**
 * What moto cannot serve, filled in front of it for both controllers alike (a MotoBridge on the fault
 * proxy, test/harness/fault-proxy.ts), and the per-action call counts of everything they send:
 *
 * - DescribeSpotPriceHistory and the Pricing API: the test environment's price proxy in front of moto
 *   answers them (test/harness/price-bridge.ts) from kerf's bundled us-east-1 catalog (`builtinCatalog()`,
 *   from /work/shared/data/ec2-instance-types.json), one spot price per type in every zone.
 * - CreateFleet: moto launches the first override of an instant fleet, whatever the allocation
 *   strategy. The bridge keeps only the override EC2 would pick and lets moto launch that one:
 *   `lowest-price` (on-demand) the cheapest override at the catalog's on-demand price;
 *   `price-capacity-optimized` (spot) the cheapest at the catalog's spot price — EC2 also weighs
 *   pool capacity, which has no data here, so the cheapest pool stands in for it; the `prioritized`
 *   strategies the lowest Priority. Ties go to the first override in the request. Dry runs pass as sent.
 * - SSM `/aws/service/eks/optimized-ami/<k8s>/amazon-linux-2023/<arch>/standard/recommended/image_id`,
 *   which the al2023@latest alias resolves: moto refuses to store parameters under `/aws/` (reserved),
 *   so the bridge answers them with the AMIs the bench seeded. Other variants (nvidia, neuron) go to
 *   moto, which does not have them (ParameterNotFound), as if the region published none.
 */
import type { BridgedAnswer, BridgedRequest, MotoBridge } from "../../harness/fault-proxy.ts";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";

/** Catalog prices of one instance type. */
export interface TypePrices {
  readonly onDemand: number;
  readonly spot: number | undefined;
  readonly zones: readonly string[];
}

/** The bundled catalog's prices by instance type. */
export function catalogPrices(): ReadonlyMap<string, TypePrices> {
  return new Map(
    builtinCatalog().instanceTypes.map((t) => [
      t.name,
      {
        onDemand: t.onDemandPricePerHour,
        spot: t.spotPricePerHour ?? undefined,
        zones: t.zones,
      },
    ]),
  );
}

/** The catalog price of one instance; undefined for a type or capacity type the catalog does not price. */
export function priceOf(
  prices: ReadonlyMap<string, TypePrices>,
  type: string,
  capacityType: string,
): number | undefined {
  const p = prices.get(type);
  return capacityType === "spot" ? p?.spot : p?.onDemand;
}

const AL2023 = new RegExp(
  "^/aws/service/eks/optimized-ami/[^/]+/amazon-linux-2023/(x86_64|arm64)" + "/standard/recommended/image_id$",
);

interface Override {
  readonly config: string;
  readonly index: string;
  readonly fields: Map<string, string>;
}

const OVERRIDE = /^LaunchTemplateConfigs\.(\d+)\.Overrides\.(\d+)\.(.+)$/;
const CONFIG = /^LaunchTemplateConfigs\.(\d+)\.(?!Overrides\.)(.+)$/;

/** The CreateFleet overrides in request order (configs, then overrides, by index). */
function overridesOf(form: URLSearchParams): Override[] {
  const byKey = new Map<string, Override>();
  for (const [key, value] of form) {
    const m = OVERRIDE.exec(key);
    if (m === null) continue;
    const id = `${m[1] ?? ""}.${m[2] ?? ""}`;
    const o = byKey.get(id) ?? { config: m[1] ?? "", index: m[2] ?? "", fields: new Map<string, string>() };
    o.fields.set(m[3] ?? "", value);
    byKey.set(id, o);
  }
  return [...byKey.values()].sort((a, b) => Number(a.config) - Number(b.config) || Number(a.index) - Number(b.index));
}

/** The moto bridge of the end-to-end bench; `calls` counts every request by action. */
export class E2eMotoBridge implements MotoBridge {
  private readonly prices: ReadonlyMap<string, TypePrices>;
  private readonly amis: Readonly<Record<string, string>>;
  /** Requests by action (every AWS call either controller made, bridged or not). */
  readonly calls = new Map<string, number>();
  /** CreateFleet requests that were not dry runs (launch attempts). */
  launches = 0;

  /** `amis`: the seeded al2023 AMI id by architecture (x86_64, arm64). */
  constructor(amis: Readonly<Record<string, string>>, prices: ReadonlyMap<string, TypePrices> = catalogPrices()) {
    this.amis = amis;
    this.prices = prices;
  }

  intercept(request: BridgedRequest): BridgedAnswer | undefined {
    this.calls.set(request.action, (this.calls.get(request.action) ?? 0) + 1);
    if (request.action === "CreateFleet" && request.form?.get("DryRun") !== "true") this.launches++;
    if (request.action === "GetParameter") return this.parameter(request.json);
    return undefined;
  }

  rewrite(request: BridgedRequest & { readonly form: URLSearchParams }): URLSearchParams | undefined {
    if (request.action !== "CreateFleet" || request.form.get("DryRun") === "true") return undefined;
    return this.chooseOverride(request.form);
  }

  /** The override EC2's allocation strategy would launch, as the only one left in the request. */
  chooseOverride(form: URLSearchParams): URLSearchParams | undefined {
    const overrides = overridesOf(form);
    if (overrides.length <= 1) return undefined;
    const capacityType = form.get("TargetCapacitySpecification.DefaultTargetCapacityType") ?? "on-demand";
    const strategyKey = `${capacityType === "spot" ? "SpotOptions" : "OnDemandOptions"}.AllocationStrategy`;
    const strategy = form.get(strategyKey) ?? "lowest-price";
    const price = (o: Override): number =>
      priceOf(this.prices, o.fields.get("InstanceType") ?? "", capacityType) ?? Infinity;
    const priority = (o: Override): number =>
      strategy.includes("prioritized") ? Number(o.fields.get("Priority") ?? Infinity) : 0;
    // Array.prototype.sort is stable: equal keys keep the request's order.
    const chosen = [...overrides].sort((a, b) => priority(a) - priority(b) || price(a) - price(b))[0] as Override;
    const out = new URLSearchParams();
    for (const [key, value] of form) {
      const c = CONFIG.exec(key);
      if (c === null && !OVERRIDE.test(key)) out.append(key, value);
      else if (c !== null && c[1] === chosen.config) out.append(`LaunchTemplateConfigs.1.${c[2] ?? ""}`, value);
    }
    for (const [field, value] of chosen.fields) out.append(`LaunchTemplateConfigs.1.Overrides.1.${field}`, value);
    return out;
  }

  /** The seeded AMI for an al2023 standard image parameter; anything else goes to moto. */
  private parameter(json: unknown): BridgedAnswer | undefined {
    const name = (json as { Name?: unknown } | undefined)?.Name;
    const arch = typeof name === "string" ? AL2023.exec(name)?.[1] : undefined;
    const id = arch === undefined ? undefined : this.amis[arch];
    if (typeof name !== "string" || id === undefined) return undefined;
    const parameter = {
      Name: name,
      Type: "String",
      Value: id,
      Version: 1,
      LastModifiedDate: Math.floor(Date.now() / 1000),
      ARN: `arn:aws:ssm:us-east-1::parameter${name}`,
      DataType: "text",
    };
    return { status: 200, contentType: "application/x-amz-json-1.1", body: JSON.stringify({ Parameter: parameter }) };
  }
}
