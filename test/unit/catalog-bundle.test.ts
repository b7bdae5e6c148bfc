// The bundled catalog data (policies/domain/catalog/data/) is exactly what scripts/catalog/build.ts derives from its
// pinned sources: moto 5.2.3 as installed by .ci/testenv/ensure.sh and Karpenter's AWS provider module v1.15.1 from
// the Go module cache. Without those sources this test fails and says what is missing; it never skips.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { buildBundle, differences, readCarried } from "../../scripts/catalog/build.ts";
import { derive, parsePriceTable, type DeriveInput } from "../../scripts/catalog/derive.ts";

void describe("bundled catalog data", () => {
  void it("is re-derived byte for byte from the recorded sources", { timeout: 120_000 }, () => {
    const carried = readCarried(undefined);
    assert.ok(carried.generated !== undefined, "types.json records its build date");
    const files = buildBundle(carried, carried.generated);
    assert.equal(files.size, 32, [...files.keys()].join());
    assert.deepEqual(differences(files), [], "run `npm run catalog:build` and review the diff");
  });

  void it("reads every region map of a Go price table and its header", () => {
    const go =
      "// generated at 2026-07-20T13:44:30Z for us-east-1\n" +
      "var X = map[string]map[ec2types.InstanceType]float64{\n" +
      `\t// us-east-1\n\t"us-east-1": {\n\t\t// a1 family\n\t\t"a1.large": 0.051000, "m5.large": 0.096000,\n\t},\n` +
      `\t"cn-north-1": {\n\t\t"m5.large": 0.5,\n\t},\n}\n`;
    const table = parsePriceTable(go, "p.go");
    assert.equal(table.generatedAt, "2026-07-20T13:44:30Z");
    assert.deepEqual([...table.regions.keys()], ["us-east-1", "cn-north-1"]);
    assert.deepEqual(
      [...(table.regions.get("us-east-1") ?? [])],
      [
        ["a1.large", 0.051],
        ["m5.large", 0.096],
      ],
    );
    assert.throws(() => parsePriceTable("package pricing\n", "p.go"), /p\.go: no "\/\/ generated at … for …" header/);
  });

  void it("refuses carried figures that contradict the sources, listing each", () => {
    const row = {
      name: "m5.large",
      family: "m5",
      category: "m",
      generation: 5,
      size: "large",
      arch: "arm64",
      vcpu: 0,
      memoryMiB: 0,
      gpuCount: 0,
      gpuName: null,
      gpuManufacturer: null,
      gpuMemoryMiB: 0,
      localNvmeGiB: 0,
      networkBandwidthMbps: 750,
      maxENIs: 0,
      ipv4PerENI: 0,
      hypervisor: "nitro",
      encryptionInTransit: false,
      bareMetal: false,
      capacityTypes: [],
      currentGeneration: false,
      cpuManufacturer: "intel",
      cpuSustainedClockSpeedMHz: 3100,
      ebsBandwidthMbps: 4750,
      acceleratorCount: 0,
      acceleratorName: null,
      acceleratorManufacturer: null,
      efaCount: 0,
      capabilityFlex: false,
      maxPods: 29,
      allocatable: [1930, 7134, 17, 29],
    };
    const input: DeriveInput = {
      generated: "2026-11-26",
      motoTypes: {
        "m5.large": {
          InstanceType: "m5.large",
          Hypervisor: "nitro",
          SupportedUsageClasses: ["on-demand", "spot"],
          VCpuInfo: { DefaultVCpus: 2 },
          MemoryInfo: { SizeInMiB: 8192 },
          ProcessorInfo: { SupportedArchitectures: ["x86_64"] },
          NetworkInfo: {
            MaximumNetworkInterfaces: 3,
            Ipv4AddressesPerInterface: 10,
            EncryptionInTransitSupported: false,
          },
        },
      },
      offerings: [
        {
          region: "eu-west-1",
          byZone: [{ InstanceType: "m5.large", Location: "eu-west-1a" }],
          byZoneId: [{ InstanceType: "m5.large", Location: "euw1-az3" }],
          sources: [],
        },
      ],
      prices: {
        generatedAt: "2026-07-20T13:44:30Z",
        regions: new Map([["us-east-1", new Map([["m5.large", 0.096]])]]),
      },
      bandwidth: new Map([["m5.large", 750]]),
      carried: new Map([["m5.large", row]]),
      spot: new Map(),
      specSources: [],
      priceSource: { source: "s", module: "m", path: "p", license: "Apache-2.0", usedFor: "u" },
    };
    assert.throws(() => derive(input), /m5\.large arch: carried "arm64", source "amd64"/);
    const derived = derive({ ...input, carried: new Map([["m5.large", { ...row, arch: "amd64" }]]) });
    assert.deepEqual(derived.regions[0]?.instanceTypes, [["m5.large", "a", 0.096]]);
    assert.deepEqual(derived.regions[0]?.zoneIds, { "eu-west-1a": "euw1-az3" });
    assert.equal(derived.regions[0]?.prices.onDemand.table, "us-east-1");
    assert.deepEqual(derived.types.instanceTypes[0]?.slice(6, 8), [2, 8192], "vcpu and memory come from moto");
  });
});
