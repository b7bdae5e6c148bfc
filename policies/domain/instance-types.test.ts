import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog } from "./catalog/builtin.ts";
import { toInstanceTypes } from "./catalog/catalog.ts";
import {
  cheapestOffering,
  incompatibility,
  instanceTypeRequirements,
  offeringKey,
  orderByPrice,
  truncate,
} from "./instance-types.ts";
import { Requirements } from "./requirements.ts";

const types = toInstanceTypes(builtinCatalog());
const byName = (name: string) => {
  const t = types.find((x) => x.name === name);
  assert.ok(t, name);
  return t;
};

describe("the catalog as instance types", () => {
  it("holds 1,345 types", () => assert.equal(types.length, 1345));
  it("matches the catalog's allocatable column for every type", () => {
    const wrong = builtinCatalog()
      .instanceTypes.filter((e) => {
        const t = byName(e.name);
        return (
          t.allocatable["cpu"] !== e.allocatable.cpuMillicores ||
          t.allocatable["memory"] !== e.allocatable.memoryMiB * 2 ** 20 ||
          t.allocatable["pods"] !== e.allocatable.pods
        );
      })
      .map((e) => e.name);
    assert.deepEqual(wrong, []);
  });
  it("labels m5.large with every well-known key", () => {
    const l = byName("m5.large").labels;
    assert.equal(l["karpenter.k8s.aws/instance-family"], "m5");
    assert.equal(l["karpenter.k8s.aws/instance-cpu"], "2");
    assert.equal(l["karpenter.k8s.aws/instance-memory"], "8192");
    assert.equal(l["kubernetes.io/arch"], "amd64");
    assert.equal(l["topology.kubernetes.io/region"], "us-east-1");
    assert.equal(l["karpenter.k8s.aws/instance-gpu-count"], undefined);
  });
  it("exposes nvidia GPUs as an extended resource", () =>
    assert.equal(byName("p4d.24xlarge").allocatable["nvidia.com/gpu"], 8));
  it("offers zone × capacity type with the catalog prices", () => {
    const t = byName("m5.large");
    assert.equal(t.offerings.length, 10);
    assert.equal(
      cheapestOffering(
        t,
        Requirements.fromSelectors([{ key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] }]),
      )?.pricePerHour,
      0.096,
    );
    assert.equal(cheapestOffering(t, new Requirements())?.capacityType, "spot");
  });
  it("marks ICE-cached offerings unavailable", () => {
    const [t] = toInstanceTypes(
      { ...builtinCatalog(), instanceTypes: builtinCatalog().instanceTypes.filter((e) => e.name === "m5.large") },
      { unavailable: new Set([offeringKey("spot", "m5.large", "us-east-1a")]) },
    );
    assert.equal(t?.offerings.filter((o) => !o.available).length, 1);
  });
});

describe("compatibility, ordering and truncation", () => {
  const sel = (key: string, operator: string, values?: string[], minValues?: number) =>
    Requirements.fromSelectors([{ key, operator, ...(values ? { values } : {}), ...(minValues ? { minValues } : {}) }]);
  const cases: [string, string, Requirements, boolean][] = [
    ["m5.large", "family In m5", sel("karpenter.k8s.aws/instance-family", "In", ["m5"]), true],
    ["m5.large", "arch arm64", sel("kubernetes.io/arch", "In", ["arm64"]), false],
    ["m5.large", "gpu count Exists", sel("karpenter.k8s.aws/instance-gpu-count", "Exists"), false],
    ["m5.large", "gpu count DoesNotExist", sel("karpenter.k8s.aws/instance-gpu-count", "DoesNotExist"), true],
    ["m5.large", "zone us-east-1e (not offered)", sel("topology.kubernetes.io/zone", "In", ["us-east-1e"]), false],
    ["t2.nano", "spot only", sel("karpenter.sh/capacity-type", "In", ["spot"]), false],
    ["m5.large", "generation Gt 4", sel("karpenter.k8s.aws/instance-generation", "Gt", ["4"]), true],
  ];
  for (const [name, what, reqs, ok] of cases) {
    it(`${ok ? "accepts" : "rejects"} ${name} for ${what}`, () =>
      assert.equal(incompatibility(byName(name), reqs) === undefined, ok));
  }
  it("orders by the cheapest compatible offering", () => {
    const od = sel("karpenter.sh/capacity-type", "In", ["on-demand"]);
    const ordered = orderByPrice([byName("m5.xlarge"), byName("m5.large"), byName("c5.large")], od).map((t) => t.name);
    assert.deepEqual(ordered, ["c5.large", "m5.large", "m5.xlarge"]);
  });
  it("fails truncation when the kept types do not span minValues", () => {
    const reqs = sel("karpenter.k8s.aws/instance-family", "Exists", undefined, 3);
    assert.equal(truncate([byName("m5.large"), byName("m5.xlarge"), byName("c5.large")], reqs, 2).ok, false);
    assert.equal(truncate([byName("m5.large"), byName("r5.large"), byName("c5.large")], reqs, 3).ok, true);
  });
  it("states a type's own requirements with DoesNotExist for absent AWS labels", () => {
    const r = instanceTypeRequirements(byName("m5.large"));
    assert.equal(r.get("karpenter.k8s.aws/instance-gpu-name")?.operator(), "DoesNotExist");
    assert.equal(r.get("topology.kubernetes.io/zone")?.values.size, 5);
  });
});
