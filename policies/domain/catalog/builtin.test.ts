import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog, bundledRegions, DEFAULT_REGION, isBundledRegion, UnknownRegionError } from "./builtin.ts";
import { catalogProvenance, parseRegionDocument, parseTypesDocument } from "./bundled.ts";
import { CatalogError, toInstanceTypes } from "./catalog.ts";
import typesDocument from "./data/types.json" with { type: "json" };
import { REGION_DOCUMENTS } from "./data/regions.ts";

void describe("bundled catalogs: one per commercial region", () => {
  void it("bundles 30 regions, sorted, us-east-1 the default", () => {
    const regions = bundledRegions();
    assert.equal(regions.length, 30);
    assert.deepEqual([...regions], [...regions].sort());
    assert.equal(DEFAULT_REGION, "us-east-1");
    assert.ok(regions.includes("eu-west-1") && regions.includes("ap-southeast-5"));
  });

  void it("keeps builtinCatalog() the us-east-1 catalog of 1,345 types, parsed once", () => {
    const catalog = builtinCatalog();
    assert.equal(catalog.region, "us-east-1");
    assert.equal(catalog.instanceTypes.length, 1345);
    assert.equal(builtinCatalog("us-east-1"), catalog);
    assert.deepEqual(
      catalog.zones,
      ["a", "b", "c", "d", "e", "f"].map((letter) => `us-east-1${letter}`),
    );
  });

  const facts: Array<[string, string, Record<string, unknown>]> = [
    [
      "us-east-1",
      "m5.large",
      { vcpu: 2, memoryMiB: 8192, onDemandPricePerHour: 0.096, spotPriceSource: "aws-spot-pricing-feed", maxPods: 29 },
    ],
    ["us-east-1", "t2.nano", { capacityTypes: ["on-demand"], spotPricePerHour: null, spotPriceSource: null }],
    [
      "eu-west-1",
      "m5.large",
      {
        vcpu: 2,
        onDemandPricePerHour: 0.096,
        spotPricePerHour: 0.096,
        spotPriceSource: "on-demand-cap",
        spotPriceDerived: true,
      },
    ],
    ["ap-southeast-2", "c5.large", { vcpu: 2, memoryMiB: 4096, family: "c5", spotAdvisorSavingsPct: null }],
  ];
  for (const [region, type, expected] of facts) {
    void it(`reads ${type} in ${region} as ${JSON.stringify(expected)}`, () => {
      const entry = builtinCatalog(region).instanceTypes.find((e) => e.name === type) as unknown as
        Record<string, unknown> | undefined;
      assert.ok(entry !== undefined, `${type} in ${region}`);
      for (const [key, value] of Object.entries(expected)) assert.deepEqual(entry[key], value, key);
    });
  }

  for (const region of bundledRegions()) {
    void it(`gives ${region} its own zones, zone IDs and offerings`, () => {
      const catalog = builtinCatalog(region);
      assert.equal(catalog.region, region);
      assert.ok(catalog.zones.length >= 2 && catalog.zones.every((z) => z.startsWith(region)), catalog.zones.join());
      assert.ok(Object.keys(catalog.zoneIds).every((z) => catalog.zones.includes(z)));
      assert.ok(catalog.instanceTypes.length > 200);
      const offeredInRegion = (zones: readonly string[]): boolean =>
        zones.length > 0 && zones.every((z) => catalog.zones.includes(z));
      assert.ok(catalog.instanceTypes.every((e) => offeredInRegion(e.zones)));
      const types = toInstanceTypes(catalog);
      assert.ok(types.every((t) => t.labels["topology.kubernetes.io/region"] === region));
      assert.ok(types.every((t) => t.offerings.every((o) => o.zone.startsWith(region))));
    });
  }

  void it("says where prices come from: us-east-1's own; elsewhere us-east-1's on-demand and no spot", () => {
    const use1 = catalogProvenance(builtinCatalog("us-east-1"));
    assert.equal(use1?.onDemand.pricesOfRegion, "us-east-1");
    assert.equal(use1?.spot?.pricesOfRegion, "us-east-1");
    assert.match(use1?.onDemand.asOf ?? "", /^2026-07-20/);
    const euw1 = catalogProvenance(builtinCatalog("eu-west-1"));
    assert.equal(euw1?.onDemand.pricesOfRegion, "us-east-1");
    assert.match(euw1?.onDemand.description ?? "", /no eu-west-1 map, so its us-east-1 prices are used/);
    assert.equal(euw1?.spot, null);
    assert.equal(catalogProvenance({ region: "x", zones: [], zoneIds: {}, instanceTypes: [] }), undefined);
  });

  const unknown = ["eu-west-9", "", "mx-central-1", "__proto__", "toString"];
  for (const region of unknown) {
    void it(`refuses region ${JSON.stringify(region)} with the list of bundled regions`, () => {
      assert.equal(isBundledRegion(region), false);
      assert.throws(
        () => builtinCatalog(region),
        (error: unknown) =>
          error instanceof UnknownRegionError &&
          error.message.includes(`"${region}"`) &&
          error.message.includes("eu-west-1"),
      );
    });
  }
});

void describe("bundled catalogs: malformed documents", () => {
  const specs = parseTypesDocument(typesDocument);
  const good = REGION_DOCUMENTS["eu-west-1"] as Record<string, unknown>;
  const cases: Array<[string, unknown, RegExp]> = [
    [
      "a document of another kind",
      { ...good, kind: "other" },
      /x\.json: not a schemaVersion 2 kerf-region-offerings document/,
    ],
    [
      "rows that are not arrays",
      { ...good, instanceTypes: [{}] },
      /x\.json: instanceTypes\[0\] is not a row of 3 values/,
    ],
    [
      "a type types.json lacks",
      { ...good, instanceTypes: [["m99.huge", "a", 1]] },
      /x\.json: m99\.huge has no row in types\.json/,
    ],
    [
      "a price that is not a number",
      { ...good, instanceTypes: [["m5.large", "a", "1"]] },
      /x\.json: m5\.large needs zones \(letters\) and onDemandPricePerHour/,
    ],
    [
      "no on-demand price source",
      { ...good, prices: { spot: null } },
      /x\.json: prices\.onDemand needs description, table and asOf/,
    ],
  ];
  for (const [what, document, message] of cases) {
    void it(`names the file and the fault for ${what}`, () => {
      assert.throws(
        () => parseRegionDocument(document, specs, "x.json"),
        (e: unknown) => e instanceof CatalogError && message.test(e.message),
      );
    });
  }

  void it("names types.json when a spec row's allocatable is malformed", () => {
    const doc = typesDocument as unknown as { instanceTypes: unknown[][]; columns: string[] };
    const row = [...(doc.instanceTypes[0] ?? [])];
    row[doc.columns.indexOf("allocatable")] = [1, 2];
    assert.throws(
      () => parseTypesDocument({ ...doc, instanceTypes: [row] }, "t.json"),
      /t\.json: a1\.2xlarge allocatable is not 4 numbers/,
    );
  });
});
