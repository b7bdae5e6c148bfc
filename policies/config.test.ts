import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  DEFAULT_SPOT_MIN_INSTANCE_TYPES,
  defaultPolicyConfig,
  parsePolicyConfig,
  PolicyConfigError,
  policyConfigFromConfigMap,
  settingFor,
} from "./config.ts";

void describe("policy config", () => {
  void it("defaults every policy to its own severity and the spot threshold to 15", () => {
    const config = defaultPolicyConfig();
    assert.equal(config.spotDiversity.minInstanceTypes, DEFAULT_SPOT_MIN_INSTANCE_TYPES);
    assert.equal(settingFor(config, "limits-required", "deny"), "deny");
  });

  void it("reads severities written as strings or objects, and the spot threshold", () => {
    const config = parsePolicyConfig(
      "policies:\n  limits-required: off\n  spot-diversity: { severity: warn, minInstanceTypes: 20 }\n",
    );
    assert.equal(settingFor(config, "limits-required", "deny"), "off");
    assert.equal(settingFor(config, "spot-diversity", "deny"), "warn");
    assert.equal(config.spotDiversity.minInstanceTypes, 20);
  });

  void it("reads JSON as well as YAML", () => {
    assert.equal(
      settingFor(parsePolicyConfig('{"policies":{"ebs-encrypted":"deny"}}'), "ebs-encrypted", "warn"),
      "deny",
    );
  });

  void it("treats an empty document as the default configuration", () => {
    assert.deepEqual(parsePolicyConfig(""), defaultPolicyConfig());
  });

  // Each message names the key at fault, as the webhook prints it at start (a misspelt policy in the chart's values).
  const invalid: [string, string, RegExp][] = [
    [
      "an unknown policy id",
      "policies:\n  no-such-policy: deny\n",
      /policies\.no-such-policy: unknown policy \(known: unknown-fields, .*zone-region\)/,
    ],
    [
      "an unknown severity",
      "policies:\n  limits-required: error\n",
      /policies\.limits-required: "error" is not deny, warn or "off"/,
    ],
    [
      "a spot threshold of zero",
      "policies:\n  spot-diversity: { minInstanceTypes: 0 }\n",
      /policies\.spot-diversity\.minInstanceTypes: 0 is not an integer ≥ 1/,
    ],
    [
      "an option on a policy without options",
      "policies:\n  limits-required: { minInstanceTypes: 3 }\n",
      /policies\.limits-required\.minInstanceTypes: unknown option \(limits-required takes severity\)/,
    ],
    [
      "a misspelt option",
      "policies:\n  spot-diversity: { severity: warn, minInstanceType: 3 }\n",
      /policies\.spot-diversity\.minInstanceType: unknown option \(spot-diversity takes severity, minInstanceTypes\)/,
    ],
    [
      "a boolean setting (JSON false)",
      '{"policies": {"zone-region": false}}',
      /policies\.zone-region: false is a YAML boolean: quote it/,
    ],
    ["a misspelt top-level key", "polices:\n  zone-region: warn\n", /polices: unknown key/],
    ["the fixed schema policy", "policies:\n  schema: off\n", /policies\.schema: unknown policy/],
    ["malformed YAML", "policies: [\n", /parsing policy config/],
  ];
  for (const [what, text, message] of invalid) {
    void it(`rejects ${what}, naming the key`, () =>
      assert.throws(
        () => parsePolicyConfig(text),
        (e: unknown) => e instanceof PolicyConfigError && message.test(e.message),
      ));
  }

  void it("reads policies.yaml from a ConfigMap's data", () => {
    const config = policyConfigFromConfigMap({ data: { "policies.yaml": "policies:\n  imdsv2-required: deny\n" } });
    assert.equal(settingFor(config, "imdsv2-required", "warn"), "deny");
  });

  void it("falls back to the default configuration for a ConfigMap without the key", () => {
    assert.deepEqual(policyConfigFromConfigMap({ data: {} }), defaultPolicyConfig());
  });

  void it("returns a frozen configuration", () => {
    assert.ok(Object.isFrozen(parsePolicyConfig("policies: {}")));
  });

  void it("turns every deny into warn with mode: warn, keeping off and explicit settings", () => {
    const config = parsePolicyConfig('mode: warn\npolicies:\n  spot-diversity: "off"\n  ebs-encrypted: deny\n');
    const cases: Array<[string, "deny" | "warn", string]> = [
      ["limits-required", "deny", "warn"],
      ["ebs-encrypted", "warn", "warn"],
      ["spot-diversity", "deny", "off"],
      ["kerf-annotations", "warn", "warn"],
    ];
    for (const [id, defaultSeverity, expected] of cases)
      assert.equal(settingFor(config, id, defaultSeverity), expected, id);
    const enforce = parsePolicyConfig("mode: enforce\n");
    assert.equal(settingFor(enforce, "limits-required", "deny"), "deny");
    assert.equal(parsePolicyConfig("").mode, "enforce");
  });

  void it("names the mode key when its value is neither enforce nor warn", () => {
    assert.throws(
      () => parsePolicyConfig("mode: audit\n"),
      (error: unknown) =>
        error instanceof PolicyConfigError && /mode: "audit" is not enforce or warn/.test(error.message),
    );
  });
});
