/**
 * The operator's catalog discovery (Ec2CatalogProvider) against moto through the test environment's price
 * proxy (moto's DescribeInstanceTypes, offerings and zones; seeded spot prices and a Pricing API, see
 * test/harness/price-bridge.ts), with a fault proxy in front to count calls and make AWS fail.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog } from "../../policies/domain/catalog/builtin.ts";
import type { CatalogEntry } from "../../policies/domain/catalog/catalog.ts";
import { pricingApiRegion } from "../../policies/domain/catalog/prices.ts";
import { CatalogRefreshError, Ec2CatalogProvider } from "../../operator/adapters/aws/providers/catalog.ts";
import { awsEc2CatalogApi, awsPricingApi } from "../../operator/adapters/aws/sdk.ts";
import { bundledPrices, PriceBridge } from "../harness/price-bridge.ts";
import { useMotoSuite } from "./aws-moto-suite.ts";

/** The facts both catalogs take from EC2's description of a type (the bundled one through moto's copy). */
const FACTS = [
  "arch",
  "vcpu",
  "memoryMiB",
  "gpuCount",
  "gpuName",
  "maxENIs",
  "ipv4PerENI",
  "hypervisor",
  "encryptionInTransit",
  "bareMetal",
  "localNvmeGiB",
  "cpuManufacturer",
  "efaCount",
  "capabilityFlex",
  "family",
  "category",
  "generation",
  "size",
] as const;

void describe("catalog discovery from EC2 and the Pricing API (moto behind the price proxy)", () => {
  // Discovery only reads moto: nothing to seed, and no reset between the tests.
  const moto = useMotoSuite({ scope: "suite", faultProxy: true });
  const provider = (region: string, isolatedVPC = false): Ec2CatalogProvider => {
    const aws = { ...moto.viaProxy(), region };
    return new Ec2CatalogProvider({
      region,
      ec2: awsEc2CatalogApi(aws),
      pricing: isolatedVPC ? undefined : awsPricingApi(aws, pricingApiRegion(region)),
      clock: { now: () => new Date() },
      bundled: builtinCatalog(region),
      reference: builtinCatalog(),
    });
  };

  void it("discovers us-east-1's types with every fact the bundled catalog has for them, and its offerings' zones", async () => {
    const catalog = provider("us-east-1");
    await Promise.all([catalog.refreshInstanceTypes(), catalog.refreshSpotPrices(), catalog.refreshOnDemandPrices()]);
    const discovered = new Map(catalog.current().instanceTypes.map((e) => [e.name, e]));
    const bundled = builtinCatalog("us-east-1").instanceTypes;
    const both = bundled.filter((e) => discovered.has(e.name));
    assert.ok(both.length >= bundled.length * 0.95, `${both.length} of ${bundled.length} bundled types discovered`);
    for (const expected of both) {
      const got = discovered.get(expected.name) as CatalogEntry;
      for (const field of FACTS) assert.deepEqual(got[field], expected[field], `${expected.name} ${field}`);
      assert.deepEqual(got.zones, [...expected.zones].sort(), `${expected.name} zones`);
      assert.equal(got.onDemandPricePerHour, expected.onDemandPricePerHour, `${expected.name} on-demand price`);
    }
    assert.deepEqual(
      Object.values(catalog.freshness().parts).map((p) => p.source),
      ["api", "api", "api"],
    );
  });

  void it("asks EC2 and the Pricing API in the region, page by page, with Karpenter's filters", async () => {
    const catalog = provider("eu-west-1");
    const start = moto.proxy.actions.length;
    await catalog.refreshInstanceTypes();
    await catalog.refreshSpotPrices();
    await catalog.refreshOnDemandPrices();
    const calls = moto.proxy.actions.slice(start);
    for (const action of [
      "DescribeInstanceTypes",
      "DescribeInstanceTypeOfferings",
      "DescribeAvailabilityZones",
      "GetProducts",
    ]) {
      assert.ok(calls.includes(action), `${action} asked`);
    }
    // The seeded spot table has a record per type and zone: more than one page of 1,000.
    assert.ok(
      calls.filter((a) => a === "DescribeSpotPriceHistory").length > 1,
      "spot price history read past its first page",
    );
    const current = catalog.current();
    assert.equal(current.region, "eu-west-1");
    assert.ok(current.instanceTypes.length > 500);
    assert.ok(current.instanceTypes.every((e) => e.zones.every((z) => z.startsWith("eu-west-1"))));
    assert.ok(
      current.zones.every((z) => /^euw1-az\d$/.test(current.zoneIds[z] ?? "")),
      JSON.stringify(current.zoneIds),
    );
  });

  void it("never asks the Pricing API in an isolated VPC, and says the bundled on-demand table stays in force", async () => {
    const catalog = provider("eu-west-1", true);
    const start = moto.proxy.actions.length;
    await catalog.refreshOnDemandPrices();
    await catalog.refreshInstanceTypes();
    assert.ok(!moto.proxy.actions.slice(start).includes("GetProducts"));
    const onDemand = catalog.freshness().parts.onDemandPrices;
    assert.equal(onDemand.source, "bundled");
    assert.match(onDemand.note ?? "", /isolated VPC/);
    const m5 = catalog.current().instanceTypes.find((e) => e.name === "m5.large");
    assert.equal(
      m5?.onDemandPricePerHour,
      builtinCatalog("eu-west-1").instanceTypes.find((e) => e.name === "m5.large")?.onDemandPricePerHour,
    );
  });

  void it("keeps the catalog object through unchanged refreshes, and makes a new one when a price changes", async () => {
    const catalog = provider("eu-west-1");
    await Promise.all([catalog.refreshInstanceTypes(), catalog.refreshSpotPrices(), catalog.refreshOnDemandPrices()]);
    const first = catalog.current();
    await Promise.all([catalog.refreshInstanceTypes(), catalog.refreshSpotPrices(), catalog.refreshOnDemandPrices()]);
    assert.equal(catalog.current(), first, "nothing changed: the same catalog");
    const base = bundledPrices();
    const bridge = new PriceBridge(() => ({
      onDemand: base.onDemand,
      spot: new Map([...base.spot].map(([t, p]) => [t, t === "m5.large" ? 0.0123 : p])),
    }));
    moto.proxy.bridge = bridge;
    try {
      await catalog.refreshSpotPrices();
    } finally {
      moto.proxy.bridge = undefined;
    }
    assert.notEqual(catalog.current(), first);
    assert.equal(catalog.current().instanceTypes.find((e) => e.name === "m5.large")?.spotPricePerHour, 0.0123);
  });

  void it("keeps the last good answer when a refresh fails, and says why", async () => {
    const catalog = provider("eu-west-1");
    await catalog.refreshInstanceTypes();
    const good = catalog.current();
    moto.proxy.throttle("DescribeInstanceTypeOfferings", 100);
    await assert.rejects(
      catalog.refreshInstanceTypes(),
      (e: unknown) =>
        e instanceof CatalogRefreshError &&
        e.part === "instanceTypes" &&
        /^describing instance types, offerings and zones: .*RequestLimitExceeded/.test(e.message),
    );
    moto.proxy.throttle("DescribeInstanceTypeOfferings", 0);
    assert.equal(catalog.current(), good);
    const part = catalog.freshness().parts.instanceTypes;
    assert.equal(part.source, "api");
    assert.match(part.error ?? "", /RequestLimitExceeded/);
  });
});
