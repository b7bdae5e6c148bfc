import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_SPOT_MIN_INSTANCE_TYPES, defaultPolicyConfig, parsePolicyConfig, PolicyConfigError, policyConfigFromConfigMap, settingFor } from "./config.ts";

void describe("policy config", () => {
  void it("defaults every policy to its own severity and the spot threshold to 15", () => {
    const config = defaultPolicyConfig();
    assert.equal(config.spotDiversity.minInstanceTypes, DEFAULT_SPOT_MIN_INSTANCE_TYPES);
    assert.equal(settingFor(config, "limits-required", "deny"), "deny");
  });

  void it("reads severities written as strings or objects, and the spot threshold", () => {
    const config = parsePolicyConfig("policies:\n  limits-required: off\n  spot-diversity: { severity: warn, minInstanceTypes: 20 }\n");
    assert.equal(settingFor(config, "limits-required", "deny"), "off");
    assert.equal(settingFor(config, "spot-diversity", "deny"), "warn");
    assert.equal(config.spotDiversity.minInstanceTypes, 20);
  });

  void it("reads JSON as well as YAML", () => {
    assert.equal(settingFor(parsePolicyConfig('{"policies":{"ebs-encrypted":"deny"}}'), "ebs-encrypted", "warn"), "deny");
  });

  void it("treats an empty document as the default configuration", () => {
    assert.deepEqual(parsePolicyConfig(""), defaultPolicyConfig());
  });

  const invalid: [string, string][] = [
    ["an unknown policy id", "policies:\n  no-such-policy: deny\n"],
    ["an unknown severity", "policies:\n  limits-required: error\n"],
    ["a spot threshold of zero", "policies:\n  spot-diversity: { minInstanceTypes: 0 }\n"],
    ["an option on a policy without options", "policies:\n  limits-required: { minInstanceTypes: 3 }\n"],
    ["the fixed schema policy", "policies:\n  schema: off\n"],
    ["malformed YAML", "policies: [\n"],
  ];
  for (const [what, text] of invalid) {
    void it(`rejects ${what}`, () => assert.throws(() => parsePolicyConfig(text), PolicyConfigError));
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
});
