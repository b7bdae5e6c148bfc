import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { builtinCatalog } from "./builtin.ts";
import { toInstanceTypes, type CatalogEntry } from "./catalog.ts";
import {
  catalogFromEc2,
  entryFromEc2,
  trimInstanceTypeInfo,
  type Ec2InstanceTypeInfo,
  type RegionPrices,
} from "./from-ec2.ts";

/** Recorded DescribeInstanceTypes records (moto's copy of EC2's answers; see the file's source field). */
const recorded = (
  JSON.parse(readFileSync(path.join(import.meta.dirname, "testdata", "describe-instance-types.json"), "utf8")) as {
    InstanceTypes: Ec2InstanceTypeInfo[];
  }
).InstanceTypes;

const bundled = new Map(builtinCatalog().instanceTypes.map((e) => [e.name, e]));
const noPrices: RegionPrices = { onDemand: new Map(), spot: new Map() };

/** The fields EC2's answer decides (not prices, zones, or the bundled-only cross-checks). */
const FACTS = [
  "family",
  "category",
  "generation",
  "size",
  "arch",
  "vcpu",
  "memoryMiB",
  "gpuCount",
  "gpuName",
  "gpuManufacturer",
  "gpuMemoryMiB",
  "localNvmeGiB",
  "maxENIs",
  "ipv4PerENI",
  "hypervisor",
  "encryptionInTransit",
  "bareMetal",
  "cpuManufacturer",
  "cpuSustainedClockSpeedMHz",
  "ebsBandwidthMbps",
  "acceleratorCount",
  "acceleratorName",
  "acceleratorManufacturer",
  "efaCount",
  "capabilityFlex",
  "maxPods",
] as const satisfies readonly (keyof CatalogEntry)[];

void describe("catalog entries from DescribeInstanceTypes", () => {
  for (const info of recorded) {
    void it(`reads ${info.InstanceType ?? ""} as the bundled catalog has it (every label fact and max pods)`, () => {
      const entry = entryFromEc2(info, ["us-east-1a"], noPrices);
      const expected = bundled.get(info.InstanceType ?? "");
      assert.ok(entry !== undefined && expected !== undefined);
      for (const field of FACTS) assert.deepEqual(entry[field], expected[field], `${entry.name} ${field}`);
    });
  }

  void it("reads a trimmed record as the full one (the operator keeps only the fields read)", () => {
    for (const info of recorded)
      assert.deepEqual(
        entryFromEc2(trimInstanceTypeInfo(info), ["us-east-1a"], noPrices),
        entryFromEc2(info, ["us-east-1a"], noPrices),
      );
  });

  void it("takes network bandwidth from the reference (Karpenter's table), else from the network cards' baselines", () => {
    const p4d = recorded.find((i) => i.InstanceType === "p4d.24xlarge") as Ec2InstanceTypeInfo;
    assert.equal(
      entryFromEc2(p4d, ["us-east-1a"], noPrices, {
        ...(bundled.get("p4d.24xlarge") as CatalogEntry),
        networkBandwidthMbps: 1,
      })?.networkBandwidthMbps,
      1,
    );
    assert.equal(entryFromEc2(p4d, ["us-east-1a"], noPrices)?.networkBandwidthMbps, 400_000);
  });

  void it("skips records kerf cannot place: no name, no vCPU figure, an architecture Kubernetes does not name", () => {
    const m5 = recorded.find((i) => i.InstanceType === "m5.large") as Ec2InstanceTypeInfo;
    for (const broken of [
      { ...m5, InstanceType: undefined },
      { ...m5, VCpuInfo: {} },
      { ...m5, ProcessorInfo: { SupportedArchitectures: ["i386"] } },
    ])
      assert.equal(entryFromEc2(broken, ["us-east-1a"], noPrices), undefined);
  });
});

void describe("the region's catalog from EC2's answers", () => {
  const m5 = recorded.find((i) => i.InstanceType === "m5.large") as Ec2InstanceTypeInfo;
  const c6g = recorded.find((i) => i.InstanceType === "c6g.large") as Ec2InstanceTypeInfo;
  const prices: RegionPrices = {
    onDemand: new Map([
      ["m5.large", 0.107],
      ["c6g.large", 0.076],
    ]),
    spot: new Map([
      [
        "m5.large",
        new Map([
          ["eu-west-1a", 0.04],
          ["eu-west-1b", 0.05],
          ["eu-west-1c", 0.09],
        ]),
      ],
    ]),
  };
  const catalog = catalogFromEc2({
    region: "eu-west-1",
    instanceTypes: [m5, c6g, recorded[1] as Ec2InstanceTypeInfo],
    offerings: new Map([
      ["m5.large", ["eu-west-1a", "eu-west-1b"]],
      ["c6g.large", ["eu-west-1a"]],
    ]),
    zoneIds: { "eu-west-1a": "euw1-az3", "eu-west-1b": "euw1-az1", "eu-west-1c": "euw1-az2" },
    prices,
  });

  void it("keeps only types offered in a zone, with their zones and the zones' IDs", () => {
    assert.deepEqual(
      catalog.instanceTypes.map((e) => [e.name, e.zones]),
      [
        ["c6g.large", ["eu-west-1a"]],
        ["m5.large", ["eu-west-1a", "eu-west-1b"]],
      ],
    );
    assert.deepEqual(catalog.zoneIds, { "eu-west-1a": "euw1-az3", "eu-west-1b": "euw1-az1" });
    assert.equal(catalog.region, "eu-west-1");
  });

  void it("prices each spot offering at its own zone's price and each on-demand one at the type's", () => {
    const types = toInstanceTypes(catalog);
    const m5Offerings = types
      .find((t) => t.name === "m5.large")
      ?.offerings.map((o) => [o.zone, o.zoneId, o.capacityType, o.pricePerHour]);
    assert.deepEqual(m5Offerings?.sort(), [
      ["eu-west-1a", "euw1-az3", "on-demand", 0.107],
      ["eu-west-1a", "euw1-az3", "spot", 0.04],
      ["eu-west-1b", "euw1-az1", "on-demand", 0.107],
      ["eu-west-1b", "euw1-az1", "spot", 0.05],
    ]);
    assert.equal(types.find((t) => t.name === "m5.large")?.labels["topology.kubernetes.io/region"], "eu-west-1");
  });

  void it("offers no spot capacity for a type without a spot price, and no on-demand capacity for one without a price", () => {
    assert.deepEqual(catalog.instanceTypes.find((e) => e.name === "c6g.large")?.capacityTypes, ["on-demand"]);
    const unpriced = catalogFromEc2({
      region: "eu-west-1",
      instanceTypes: [m5],
      offerings: new Map([["m5.large", ["eu-west-1a"]]]),
      zoneIds: {},
      prices: { onDemand: new Map(), spot: prices.spot },
    });
    assert.deepEqual(unpriced.instanceTypes[0]?.capacityTypes, ["spot"]);
  });
});
