import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { newestSpotPrices, onDemandPricesFromPriceList, pricingApiRegion, pricingCurrency } from "./prices.ts";

/** One GetProducts product in AWS's documented shape (Price List Query API), for a type at a price. */
function product(
  instanceType: string,
  prices: Record<string, string>,
  extraDimension?: Record<string, string>,
): string {
  const dimensions: Record<string, unknown> = {
    [`${instanceType}.JRTCKXETXF.6YS6EN2CT7`]: { unit: "Hrs", pricePerUnit: prices, description: "On Demand Linux" },
  };
  if (extraDimension !== undefined) dimensions["other"] = { unit: "Hrs", pricePerUnit: extraDimension };
  return JSON.stringify({
    product: {
      productFamily: "Compute Instance",
      attributes: { instanceType, regionCode: "eu-west-1", tenancy: "Shared", operatingSystem: "Linux" },
      sku: "X",
    },
    serviceCode: "AmazonEC2",
    terms: {
      OnDemand: {
        [`${instanceType}.JRTCKXETXF`]: {
          priceDimensions: dimensions,
          sku: "X",
          effectiveDate: "2026-11-01T00:00:00Z",
        },
      },
    },
    version: "20261101000000",
    publicationDate: "2026-11-01T00:00:00Z",
  });
}

void describe("on-demand prices from the Pricing API's GetProducts", () => {
  void it("reads each product's hourly price in the currency", () => {
    const { prices, problems } = onDemandPricesFromPriceList([
      product("m5.large", { USD: "0.1070000000" }),
      product("c6g.large", { USD: "0.0760000000" }),
    ]);
    assert.deepEqual(
      [...prices],
      [
        ["m5.large", 0.107],
        ["c6g.large", 0.076],
      ],
    );
    assert.deepEqual(problems, []);
  });

  const cases: { name: string; list: unknown[]; currency?: string; prices: [string, number][]; problems: number }[] = [
    {
      name: "a zero price is unknown, not free",
      list: [product("m5.large", { USD: "0.0000000000" })],
      prices: [],
      problems: 1,
    },
    {
      name: "another currency's figure does not count",
      list: [product("m5.large", { CNY: "0.7" })],
      prices: [],
      problems: 1,
    },
    {
      name: "China's regions are priced in CNY",
      list: [product("m5.large", { CNY: "0.7" })],
      currency: "CNY",
      prices: [["m5.large", 0.7]],
      problems: 0,
    },
    {
      name: "a product without an instance type is not an instance price",
      list: [JSON.stringify({ product: { attributes: {} } })],
      prices: [],
      problems: 0,
    },
    {
      name: "an unreadable entry is reported, the rest still count",
      list: ["{not json", product("m5.large", { USD: "0.107" })],
      prices: [["m5.large", 0.107]],
      problems: 1,
    },
    {
      name: "a lazily parsed entry (the SDK's LazyJsonString) reads as its text",
      list: [{ toString: () => product("m5.large", { USD: "0.107" }) }],
      prices: [["m5.large", 0.107]],
      problems: 0,
    },
  ];
  for (const c of cases) {
    void it(c.name, () => {
      const { prices, problems } = onDemandPricesFromPriceList(c.list, c.currency);
      assert.deepEqual([...prices], c.prices);
      assert.equal(problems.length, c.problems);
    });
  }

  void it("asks the Pricing API where it is served for the region, in its currency", () => {
    const table = [
      ["us-east-1", "us-east-1", "USD"],
      ["eu-west-1", "eu-central-1", "USD"],
      ["ap-southeast-2", "ap-south-1", "USD"],
      ["sa-east-1", "us-east-1", "USD"],
      ["cn-north-1", "cn-northwest-1", "CNY"],
    ] as const;
    for (const [region, api, currency] of table)
      assert.deepEqual([pricingApiRegion(region), pricingCurrency(region)], [api, currency], region);
  });
});

void describe("spot prices from DescribeSpotPriceHistory", () => {
  const at = (s: string): Date => new Date(`2026-11-26T${s}Z`);
  void it("keeps the newest price per type and zone, whatever the order of the records", () => {
    const prices = newestSpotPrices([
      { InstanceType: "m5.large", AvailabilityZone: "eu-west-1a", SpotPrice: "0.040000", Timestamp: at("10:00:00") },
      { InstanceType: "m5.large", AvailabilityZone: "eu-west-1a", SpotPrice: "0.045000", Timestamp: at("12:00:00") },
      { InstanceType: "m5.large", AvailabilityZone: "eu-west-1a", SpotPrice: "0.030000", Timestamp: at("11:00:00") },
      { InstanceType: "m5.large", AvailabilityZone: "eu-west-1b", SpotPrice: "0.050000", Timestamp: at("09:00:00") },
    ]);
    assert.deepEqual(
      [...(prices.get("m5.large") ?? [])],
      [
        ["eu-west-1a", 0.045],
        ["eu-west-1b", 0.05],
      ],
    );
  });

  void it("skips records without a zone, a time or a readable positive price", () => {
    const prices = newestSpotPrices([
      { InstanceType: "m5.large", SpotPrice: "0.04", Timestamp: at("10:00:00") },
      { InstanceType: "m5.large", AvailabilityZone: "eu-west-1a", SpotPrice: "0.04" },
      { InstanceType: "m5.large", AvailabilityZone: "eu-west-1a", SpotPrice: "n/a", Timestamp: at("10:00:00") },
      { InstanceType: "m5.large", AvailabilityZone: "eu-west-1a", SpotPrice: "0", Timestamp: at("10:00:00") },
    ]);
    assert.equal(prices.size, 0);
  });
});
