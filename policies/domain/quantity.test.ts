import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  addResources,
  compareQuantities,
  exceededResources,
  formatResource,
  parseQuantity,
  parseResourceList,
  QuantityError,
  tryParseQuantity,
} from "./quantity.ts";

describe("parseQuantity", () => {
  const cases: [string, number][] = [
    ["1", 1],
    ["500m", 0.5],
    ["1Gi", 2 ** 30],
    ["512Mi", 512 * 2 ** 20],
    ["1k", 1000],
    ["1M", 1e6],
    ["1.5", 1.5],
    ["2e3", 2000],
    ["1E2", 100],
    ["-1", -1],
    [".5", 0.5],
    ["100Ki", 102400],
    ["1G", 1e9],
  ];
  for (const [input, expected] of cases) {
    it(`reads ${input} as ${expected}`, () => assert.equal(parseQuantity(input), expected));
  }
  for (const bad of ["", "1Gb", "abc", "1.2.3", "Mi", "1 Gi"]) {
    it(`rejects "${bad}" with a QuantityError`, () => assert.throws(() => parseQuantity(bad), QuantityError));
  }
  it("answers undefined instead of throwing in tryParseQuantity", () => {
    assert.equal(tryParseQuantity("nope"), undefined);
    assert.equal(tryParseQuantity({}), undefined);
    assert.equal(tryParseQuantity("2"), 2);
  });
  it("compares quantities across suffixes", () => {
    assert.equal(compareQuantities("1Gi", "1000Mi"), 1);
    assert.equal(compareQuantities("1000m", "1"), 0);
    assert.equal(compareQuantities("1G", "1Gi"), -1);
  });
});

describe("resource lists", () => {
  it("stores cpu in millicores and memory in bytes", () => {
    assert.deepEqual(parseResourceList({ cpu: "250m", memory: "1Gi", "nvidia.com/gpu": 2 }), {
      cpu: 250,
      memory: 2 ** 30,
      "nvidia.com/gpu": 2,
    });
  });
  it("rounds fractional millicores up", () => assert.equal(parseResourceList({ cpu: "0.0001" })["cpu"], 1));
  it("adds lists key by key", () =>
    assert.deepEqual(addResources({ cpu: 100 }, { cpu: 50, memory: 1 }), { cpu: 150, memory: 1 }));
  it("names the resources a request exceeds", () =>
    assert.deepEqual(exceededResources({ cpu: 2000, memory: 1, pods: 1 }, { cpu: 1930, memory: 5 }), ["cpu", "pods"]));
  it("formats cpu and memory for people", () => {
    assert.equal(formatResource("cpu", 1500), "1500m");
    assert.equal(formatResource("cpu", 2000), "2");
    assert.equal(formatResource("memory", 2 ** 30), "1Gi");
    assert.equal(formatResource("nvidia.com/gpu", 8), "8");
  });
});
