import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseFlags, UsageError } from "../../playground/flags.ts";

void describe("playground flags", () => {
  void it("defaults to 5,12,0 held 20 s each, stopping at the end", () => {
    const o = parseFlags([]);
    assert.deepEqual(o.steps, [5, 12, 0]);
    assert.equal(o.holdMs, 20_000);
    assert.equal(o.keep, false);
    assert.equal(o.intervalMs, 1000);
    assert.equal(o.ssmPrefix, "/kerf-playground/aws/service");
    assert.equal(o.logs, undefined);
    assert.match(o.timeline, /kerf-playground-timeline\.svg$/);
    assert.equal(o.region, "us-east-1");
    assert.equal(o.featureGates, undefined, "the operator's own defaults");
  });

  void it("passes --feature-gates through to the operator as given", () => {
    const cases = [
      "NodeRepair=true,StaticCapacity=true",
      "SpotToSpotConsolidation=false",
      "NodeRepair=true, NodeOverlay=false",
    ];
    for (const gates of cases) assert.equal(parseFlags(["--feature-gates", gates]).featureGates, gates);
  });

  void it("runs in the region --region names", () => {
    assert.equal(parseFlags(["--region", "eu-west-1"]).region, "eu-west-1");
  });

  void it("reads steps, hold, keep, interval, logs and the SSM prefix", () => {
    const o = parseFlags([
      "--steps",
      "3, 0",
      "--hold",
      "1m30s",
      "--keep",
      "--interval",
      "500ms",
      "--logs",
      "/tmp/x",
      "--ssm-prefix",
      "/mine/aws",
    ]);
    assert.deepEqual(o.steps, [3, 0]);
    assert.equal(o.holdMs, 90_000);
    assert.equal(o.keep, true);
    assert.equal(o.intervalMs, 500);
    assert.equal(o.logs, "/tmp/x");
    assert.equal(parseFlags(["--timeline", "/tmp/t.svg"]).timeline, "/tmp/t.svg");
    assert.equal(o.ssmPrefix, "/mine/aws");
  });

  for (const [argv, message] of [
    [["--steps", "5,x"], /--steps: "5,x"/],
    [["--steps", ""], /--steps/],
    [["--steps", "-1"], /--steps/],
    [["--steps", "6000"], /at most 5000/],
    [["--hold", "5"], /--hold: "5" is not a duration/],
    [["--hold", "10ms"], /--hold: must be at least 1000 ms/],
    [["--hold", "Never"], /--hold/],
    [["--ssm-prefix", "/aws/service"], /outside \/aws\//],
    [["--ssm-prefix", "relative"], /absolute/],
    [["--region", "eu-west"], /--region: "eu-west" is not an AWS region/],
    [
      ["--feature-gates", "NodeRepair"],
      /--feature-gates: "NodeRepair" is not a comma-separated list of Name=true\|false/,
    ],
    [["--feature-gates", "NodeRepair=yes"], /--feature-gates/],
    [["--nope"], /Unknown option '--nope'/],
    [["positional"], /positional/],
  ] as const) {
    void it(`refuses ${argv.join(" ") || "(empty)"} with a one-line usage error`, () => {
      assert.throws(
        () => parseFlags(argv),
        (e: unknown) => e instanceof UsageError && message.test(e.message) && !e.message.includes("\n"),
      );
    });
  }
});
