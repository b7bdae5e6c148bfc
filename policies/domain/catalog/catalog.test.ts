import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog } from "./builtin.ts";
import { toInstanceTypes, WINDOWS_BUILDS, windowsVariants } from "./catalog.ts";

const OS = "kubernetes.io/os";
const BUILD = "node.kubernetes.io/windows-build";

void describe("catalog: operating system by AMI family", () => {
  void it("labels every type linux without a windows-build when no AMI family (or a Linux one) is given", () => {
    for (const options of [{}, { amiFamily: "AL2023" }, { amiFamily: "Bottlerocket" }]) {
      const types = toInstanceTypes(builtinCatalog(), options);
      assert.equal(types.length, builtinCatalog().instanceTypes.length);
      assert.ok(types.every((t) => t.labels[OS] === "linux" && t.labels[BUILD] === undefined));
    }
  });

  for (const [family, build] of Object.entries(WINDOWS_BUILDS)) {
    void it(`labels the amd64 types windows with build ${build} under ${family}, and drops arm64`, () => {
      const types = toInstanceTypes(builtinCatalog(), { amiFamily: family });
      const amd64 = builtinCatalog().instanceTypes.filter((e) => e.arch === "amd64").length;
      assert.equal(types.length, amd64);
      assert.ok(
        types.every(
          (t) => t.labels[OS] === "windows" && t.labels[BUILD] === build && t.labels["kubernetes.io/arch"] === "amd64",
        ),
      );
    });
  }

  void it("offers every type for Linux and each amd64 type once per Windows family", () => {
    const [linux, windows] = [toInstanceTypes(builtinCatalog()), windowsVariants(builtinCatalog())];
    const amd64 = builtinCatalog().instanceTypes.filter((e) => e.arch === "amd64").length;
    assert.equal(linux.length, builtinCatalog().instanceTypes.length);
    assert.equal(windows.length, amd64 * Object.keys(WINDOWS_BUILDS).length);
    assert.deepEqual(new Set(windows.map((t) => t.labels[BUILD])), new Set(Object.values(WINDOWS_BUILDS)));
  });
});

void describe("catalog: ephemeral-storage under instanceStorePolicy", () => {
  const storage = (options: Parameters<typeof toInstanceTypes>[1], name: string): unknown =>
    toInstanceTypes(builtinCatalog(), options).find((t) => t.name === name)?.capacity["ephemeral-storage"];

  void it("gives a type with instance storage its instance-store total in decimal GB under RAID0, as Karpenter does", () => {
    assert.equal(storage({ instanceStorePolicy: "RAID0" }, "m5d.large"), 75e9);
  });

  void it("keeps the EBS figure for a type without instance storage, and for every type without RAID0", () => {
    assert.equal(
      storage({ instanceStorePolicy: "RAID0", ephemeralStorageBytes: 50 * 2 ** 30 }, "m5.large"),
      50 * 2 ** 30,
    );
    assert.equal(storage({ ephemeralStorageBytes: 50 * 2 ** 30 }, "m5d.large"), 50 * 2 ** 30);
  });
});
