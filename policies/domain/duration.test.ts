import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { DurationError, formatDuration, isKarpenterDuration, parseDuration, tryParseDuration } from "./duration.ts";

describe("parseDuration", () => {
  const cases: [string, number | "Never"][] = [
    ["30s", 30_000],
    ["1h30m", 5_400_000],
    ["720h", 2_592_000_000],
    ["0", 0],
    ["0s", 0],
    ["1.5h", 5_400_000],
    ["500ms", 500],
    ["-5m", -300_000],
    ["Never", "Never"],
    ["1h0m0s", 3_600_000],
  ];
  for (const [input, expected] of cases) it(`reads ${input}`, () => assert.equal(parseDuration(input), expected));
  for (const bad of ["", "1d", "h", "never", "10", "1h 30m", "-"]) {
    it(`rejects "${bad}"`, () => assert.throws(() => parseDuration(bad), DurationError));
  }
  it("answers undefined for non-strings in tryParseDuration", () => assert.equal(tryParseDuration(5), undefined));
});

describe("duration formatting and the CRD pattern", () => {
  const formats: [number | "Never", string][] = [
    [5_400_000, "1h30m0s"],
    [0, "0s"],
    [30_000, "30s"],
    [500, "500ms"],
    ["Never", "Never"],
    [61_000, "1m1s"],
  ];
  for (const [value, text] of formats)
    it(`prints ${String(value)} as ${text}`, () => assert.equal(formatDuration(value), text));
  const patterns: [string, boolean][] = [
    ["1h30m", true],
    ["Never", true],
    ["1.5h", false],
    ["500ms", false],
    ["30s", true],
  ];
  for (const [text, ok] of patterns)
    it(`${ok ? "accepts" : "rejects"} ${text} under Karpenter's pattern`, () =>
      assert.equal(isKarpenterDuration(text), ok));
});
