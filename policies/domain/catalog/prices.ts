/**
 * Prices from AWS's answers (pure): the Pricing API's GetProducts price list (on-demand, per type) and EC2's
 * DescribeSpotPriceHistory records (spot, per type and zone). The adapters page and call; these read.
 */

/** A problem with one price record; the others still count (AWS's lists are large and mostly uniform). */
export interface PriceRecordProblem {
  readonly index: number;
  readonly message: string;
}

/** On-demand prices per instance type and the records that could not be read. */
export interface OnDemandPrices {
  readonly prices: Map<string, number>;
  readonly problems: PriceRecordProblem[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function field(value: unknown, ...path: string[]): unknown {
  let at = value;
  for (const key of path) at = isRecord(at) ? at[key] : undefined;
  return at;
}

/** The positive hourly price a GetProducts product states in the currency, if any. */
function productPrice(product: unknown, currency: string): number | undefined {
  const terms = field(product, "terms", "OnDemand");
  if (!isRecord(terms)) return undefined;
  let found: number | undefined;
  for (const term of Object.values(terms)) {
    const dimensions = field(term, "priceDimensions");
    if (!isRecord(dimensions)) continue;
    for (const dimension of Object.values(dimensions)) {
      const text = field(dimension, "pricePerUnit", currency);
      const price = typeof text === "string" ? Number(text) : Number.NaN;
      // Karpenter skips zero and unreadable figures: a type listed at 0 is not free, its price is unknown.
      if (Number.isFinite(price) && price > 0) found = price;
    }
  }
  return found;
}

/**
 * On-demand prices from GetProducts pages (`PriceList`, each entry one product as a JSON document, in the
 * SDK as a string or a lazily parsed value). USD, or CNY in the China regions.
 */
export function onDemandPricesFromPriceList(priceList: readonly unknown[], currency = "USD"): OnDemandPrices {
  const prices = new Map<string, number>();
  const problems: PriceRecordProblem[] = [];
  priceList.forEach((entry, index) => {
    let product: unknown;
    try {
      product = typeof entry === "string" ? JSON.parse(entry) : JSON.parse(String(entry));
    } catch (error) {
      problems.push({ index, message: `reading price list entry ${index}: ${(error as Error).message}` });
      return;
    }
    const type = field(product, "product", "attributes", "instanceType");
    if (typeof type !== "string" || type === "") return;
    const price = productPrice(product, currency);
    if (price === undefined)
      problems.push({ index, message: `price list entry ${index} (${type}) states no ${currency} price` });
    else prices.set(type, price);
  });
  return { prices, problems };
}

/** The currency the Pricing API states a region's prices in. */
export function pricingCurrency(region: string): string {
  return region.startsWith("cn-") ? "CNY" : "USD";
}

/**
 * The Pricing API endpoint region serving a region's prices (it is not served everywhere): ap-south-1 for
 * Asia Pacific, eu-central-1 for Europe, cn-northwest-1 for China, us-east-1 otherwise.
 */
export function pricingApiRegion(region: string): string {
  if (region.startsWith("ap-")) return "ap-south-1";
  if (region.startsWith("eu-")) return "eu-central-1";
  if (region.startsWith("cn-")) return "cn-northwest-1";
  return "us-east-1";
}

/** One DescribeSpotPriceHistory record, in the SDK's shape. */
export interface SpotPriceRecord {
  readonly InstanceType?: string | undefined;
  readonly AvailabilityZone?: string | undefined;
  readonly SpotPrice?: string | undefined;
  readonly Timestamp?: Date | undefined;
}

/** The newest spot price per instance type and zone; records without a zone, price or time are skipped. */
export function newestSpotPrices(records: Iterable<SpotPriceRecord>): Map<string, Map<string, number>> {
  const newest = new Map<string, Map<string, { price: number; at: number }>>();
  for (const record of records) {
    const { InstanceType: type, AvailabilityZone: zone, SpotPrice: text, Timestamp: at } = record;
    const price = text === undefined ? Number.NaN : Number(text);
    if (type === undefined || zone === undefined || at === undefined || !Number.isFinite(price) || price <= 0) continue;
    let zones = newest.get(type);
    if (zones === undefined) newest.set(type, (zones = new Map()));
    const before = zones.get(zone);
    if (before === undefined || before.at < at.getTime()) zones.set(zone, { price, at: at.getTime() });
  }
  return new Map([...newest].map(([type, zones]) => [type, new Map([...zones].map(([zone, p]) => [zone, p.price]))]));
}
