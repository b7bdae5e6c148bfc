/**
 * Prices moto cannot serve, answered in its place by a bridge on a proxy in front of it (fault-proxy.ts), for
 * the operator's catalog discovery in tests, the playground and the benches:
 *
 * - DescribeSpotPriceHistory: moto answers one fixed price for every offering. The bridge answers one record
 *   per (instance type, zone) from a seeded table, filtered and paged as EC2 does.
 * - The Pricing API's GetProducts (moto has no Pricing API): products in AWS's documented shape (a JSON
 *   document per product, `terms.OnDemand.*.priceDimensions.*.pricePerUnit.USD`) from the same table,
 *   filtered by regionCode, and bare-metal types under `Compute Instance (bare metal)` as AWS lists them.
 *
 * The default table is kerf's bundled us-east-1 catalog (public data, policies/domain/catalog/README.md) for
 * every region, with one spot price per type in every zone; a test that needs other prices (per zone, a
 * price change) passes its own. Everything else goes on to moto.
 */
import { builtinCatalog } from "../../policies/domain/catalog/builtin.ts";
import type { BridgedAnswer, BridgedRequest, MotoBridge } from "./fault-proxy.ts";

/** A region's seeded prices: on-demand per type, spot per type (one price for every zone, or per zone). */
export interface SeededPrices {
  readonly onDemand: ReadonlyMap<string, number>;
  readonly spot: ReadonlyMap<string, number | ReadonlyMap<string, number>>;
}

/** Seeded prices by region. */
export type PriceTable = (region: string) => SeededPrices;

let bundled: SeededPrices | undefined;

/** The bundled us-east-1 catalog's prices, for every region. */
export function bundledPrices(): SeededPrices {
  const types = builtinCatalog().instanceTypes;
  bundled ??= {
    onDemand: new Map(types.map((t) => [t.name, t.onDemandPricePerHour])),
    spot: new Map(types.flatMap((t) => (t.spotPricePerHour === null ? [] : [[t.name, t.spotPricePerHour] as const]))),
  };
  return bundled;
}

const EC2_NS = "http://ec2.amazonaws.com/doc/2016-11-15/";
const ZONE_LETTERS = ["a", "b", "c", "d", "e", "f"];

function xml(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Values of a Query API list parameter (`Name.1`, `Name.2`, …). */
function list(form: URLSearchParams, name: string): string[] {
  const out: string[] = [];
  for (let i = 1; form.has(`${name}.${i}`); i++) out.push(form.get(`${name}.${i}`) ?? "");
  return out;
}

/** A Query API filter list as name → values. */
function filters(form: URLSearchParams): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (let i = 1; form.has(`Filter.${i}.Name`); i++)
    out.set(form.get(`Filter.${i}.Name`) ?? "", list(form, `Filter.${i}.Value`));
  return out;
}

/** The spot records of a region: per type, its zones' prices (zones a–f of the region for a single price). */
function spotRecords(prices: SeededPrices, region: string): [string, string, number][] {
  const out: [string, string, number][] = [];
  for (const [type, p] of [...prices.spot].sort((a, b) => a[0].localeCompare(b[0]))) {
    const zones = typeof p === "number" ? ZONE_LETTERS.map((l) => [`${region}${l}`, p] as const) : [...p];
    for (const [zone, price] of zones) out.push([type, zone, price]);
  }
  return out;
}

/** Answers DescribeSpotPriceHistory and GetProducts from a price table; counts the requests it answered. */
export class PriceBridge implements MotoBridge {
  private table: PriceTable;
  /** Requests answered, by action. */
  readonly answered = new Map<string, number>();

  constructor(table: PriceTable = () => bundledPrices()) {
    this.table = table;
  }

  /** Serves other prices from now on (a price change AWS would publish). */
  setTable(table: PriceTable): void {
    this.table = table;
  }

  intercept(request: BridgedRequest): BridgedAnswer | undefined {
    const answer =
      request.action === "DescribeSpotPriceHistory" && request.form !== undefined
        ? this.spotPriceHistory(request.form, request.region ?? "us-east-1")
        : request.action === "GetProducts"
          ? this.products(request.json)
          : undefined;
    if (answer !== undefined) this.answered.set(request.action, (this.answered.get(request.action) ?? 0) + 1);
    return answer;
  }

  rewrite(): URLSearchParams | undefined {
    return undefined;
  }

  private spotPriceHistory(form: URLSearchParams, region: string): BridgedAnswer {
    const f = filters(form);
    const types = new Set([...list(form, "InstanceType"), ...(f.get("instance-type") ?? [])]);
    const zoneParam = form.get("AvailabilityZone");
    const zones = new Set([...(zoneParam === null ? [] : [zoneParam]), ...(f.get("availability-zone") ?? [])]);
    const wanted = [...list(form, "ProductDescription"), ...(f.get("product-description") ?? [])];
    const description =
      wanted.find((d) => d.startsWith("Linux/UNIX")) ?? (wanted.length === 0 ? "Linux/UNIX" : undefined);
    const now = new Date().toISOString();
    const records =
      description === undefined
        ? []
        : spotRecords(this.table(region), region)
            .filter(([type, zone]) => (types.size === 0 || types.has(type)) && (zones.size === 0 || zones.has(zone)))
            .map(
              ([type, zone, price]) =>
                `<item><instanceType>${xml(type)}</instanceType>` +
                `<productDescription>${xml(description)}</productDescription>` +
                `<spotPrice>${price.toFixed(6)}</spotPrice>` +
                `<timestamp>${now}</timestamp><availabilityZone>${xml(zone)}</availabilityZone></item>`,
            );
    const start = Number(form.get("NextToken") ?? "0") || 0;
    const size = Math.max(1, Number(form.get("MaxResults") ?? "1000") || 1000);
    const next = start + size < records.length ? `<nextToken>${start + size}</nextToken>` : "";
    return {
      status: 200,
      contentType: "text/xml;charset=UTF-8",
      body:
        `<?xml version="1.0" encoding="UTF-8"?>\n<DescribeSpotPriceHistoryResponse xmlns="${EC2_NS}">` +
        "<requestId>kerf-price-bridge</requestId>" +
        `<spotPriceHistorySet>${records.slice(start, start + size).join("")}</spotPriceHistorySet>${next}` +
        "</DescribeSpotPriceHistoryResponse>",
    };
  }

  private products(json: unknown): BridgedAnswer {
    const body = (json ?? {}) as {
      Filters?: { Field?: string; Value?: string }[];
      NextToken?: string;
      MaxResults?: number;
    };
    const filter = (field: string): string | undefined => body.Filters?.find((f) => f.Field === field)?.Value;
    const region = filter("regionCode") ?? "us-east-1";
    const metal = filter("productFamily") === "Compute Instance (bare metal)";
    const products = [...this.table(region).onDemand]
      .filter(([type]) => type.includes("metal") === metal)
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([type, price]) =>
        JSON.stringify({
          product: {
            productFamily: metal ? "Compute Instance (bare metal)" : "Compute Instance",
            attributes: {
              instanceType: type,
              regionCode: region,
              operatingSystem: "Linux",
              tenancy: metal ? "Dedicated" : "Shared",
            },
          },
          serviceCode: "AmazonEC2",
          terms: {
            OnDemand: {
              [`${type}.JRTCKXETXF`]: {
                priceDimensions: {
                  [`${type}.JRTCKXETXF.6YS6EN2CT7`]: { unit: "Hrs", pricePerUnit: { USD: price.toFixed(10) } },
                },
              },
            },
          },
        }),
      );
    const start = Number(body.NextToken ?? "0") || 0;
    const size = Math.min(100, Math.max(1, body.MaxResults ?? 100));
    const page = {
      FormatVersion: "aws_v1",
      PriceList: products.slice(start, start + size),
      ...(start + size < products.length ? { NextToken: String(start + size) } : {}),
    };
    return { status: 200, contentType: "application/x-amz-json-1.1", body: JSON.stringify(page) };
  }
}
