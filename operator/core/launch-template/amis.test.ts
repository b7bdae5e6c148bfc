import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { InstanceType } from "../../../policies/domain/instance-types.ts";
import { Label } from "../../../policies/domain/labels.ts";
import { amiForType, bootable, newestPerRequirements, typesByImage, variantRequirements } from "./amis.ts";
import type { ResolvedAmi } from "./amis.ts";

function type(name: string, arch: string, extra: Record<string, string> = {}): InstanceType {
  return {
    name,
    labels: { [Label.instanceType]: name, [Label.arch]: arch, ...extra },
    capacity: {},
    allocatable: {},
    offerings: [],
  };
}

const amd = (id: string, date: string, deprecated = false): ResolvedAmi => ({
  id,
  creationDate: date,
  deprecated,
  requirements: variantRequirements("amd64", "standard"),
});
const arm: ResolvedAmi = {
  id: "ami-arm",
  creationDate: "2024-01-01",
  deprecated: false,
  requirements: variantRequirements("arm64", "standard"),
};
const gpu: ResolvedAmi = {
  id: "ami-gpu",
  creationDate: "2024-01-01",
  deprecated: false,
  requirements: variantRequirements("amd64", "nvidia"),
};

void describe("AMI selection", () => {
  void it("should keep the newest non-deprecated image per requirement set", () => {
    const kept = newestPerRequirements([
      amd("ami-old", "2023-01-01"),
      amd("ami-new", "2024-06-01"),
      amd("ami-newest-deprecated", "2025-01-01", true),
      arm,
    ]);
    assert.deepEqual(
      kept.map((a) => a.id),
      ["ami-new", "ami-arm"],
    );
  });

  void it("should boot each type with the image its arch and accelerators match", () => {
    const amis = [amd("ami-x86", "2024-01-01"), arm, gpu];
    const cases = [
      { t: type("m5.large", "amd64"), want: "ami-x86" },
      { t: type("m6g.large", "arm64"), want: "ami-arm" },
      { t: type("g4dn.xlarge", "amd64", { [Label.instanceGpuCount]: "1" }), want: "ami-gpu" },
      { t: type("inf1.xlarge", "amd64", { [Label.instanceAcceleratorCount]: "1" }), want: undefined },
    ];
    for (const c of cases) assert.equal(amiForType(amis, c.t)?.id, c.want, c.t.name);
  });

  void it("should group types by image and leave out types nothing boots", () => {
    const groups = typesByImage(
      [amd("ami-x86", "2024-01-01")],
      [type("m5.large", "amd64"), type("c5.large", "amd64"), type("m6g.large", "arm64")],
    );
    assert.deepEqual([...groups], [["ami-x86", ["m5.large", "c5.large"]]]);
  });

  void it("should offer the scheduler only the types an image of the node class boots", () => {
    const gpuType = type("g4dn.xlarge", "amd64", { [Label.instanceGpuCount]: "1" });
    const types = [type("m5.large", "amd64"), type("c6g.16xlarge", "arm64"), gpuType];
    const cases: [string, ResolvedAmi[], string[]][] = [
      ["x86_64 only: no Graviton type, however cheap", [amd("ami-x86", "2024-01-01")], ["m5.large"]],
      ["both architectures", [amd("ami-x86", "2024-01-01"), arm], ["m5.large", "c6g.16xlarge"]],
      ["with the NVIDIA variant", [amd("ami-x86", "2024-01-01"), arm, gpu], ["m5.large", "c6g.16xlarge", gpuType.name]],
    ];
    for (const [name, amis, want] of cases)
      assert.deepEqual(
        bootable(amis, types).map((t) => t.name),
        want,
        name,
      );
  });
});
