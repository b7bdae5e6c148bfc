import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { loadWebhookConfig } from "./config.ts";
import { isKerfError } from "./errors.ts";

const required = ["--tls-cert", "/c.pem", "--tls-key", "/k.pem"];

void describe("webhook configuration", () => {
  void it("applies the defaults when only the certificate flags are given", () => {
    const config = loadWebhookConfig(required, {});
    assert.equal(config.port, 9443);
    assert.equal(config.tlsMinVersion, "TLSv1.2");
    assert.equal(config.bodyLimit, 7 * 1024 * 1024);
    assert.deepEqual(config.skipUsernames, ["system:serviceaccount:kube-system:karpenter"]);
    assert.ok(Object.isFrozen(config));
  });

  void it("falls back to environment variables, with flags taking precedence", () => {
    const config = loadWebhookConfig(["--port", "8443"], { KERF_TLS_CERT: "/env.crt", KERF_TLS_KEY: "/env.key", KERF_WEBHOOK_PORT: "1", KERF_SKIP_USERNAMES: "a, b" });
    assert.equal(config.tlsCert, "/env.crt");
    assert.equal(config.port, 8443);
    assert.deepEqual(config.skipUsernames, ["a", "b"]);
  });

  const invalid: Array<[string, string[], RegExp]> = [
    ["a missing certificate", ["--tls-key", "/k.pem"], /--tls-cert \(or KERF_TLS_CERT\) is required/],
    ["a non-numeric port", [...required, "--port", "https"], /\/port must be integer/],
    ["a TLS floor below 1.2", [...required, "--tls-min-version", "TLSv1.1"], /\/tlsMinVersion must be equal to one of the allowed values/],
    ["a body limit under 3 MiB", [...required, "--body-limit", "1024"], /\/bodyLimit must be >= 3145728/],
    ["an unknown flag", [...required, "--colour"], /reading webhook flags: Unknown option '--colour'/],
  ];
  for (const [what, args, message] of invalid) {
    void it(`rejects ${what}`, () => {
      assert.throws(() => loadWebhookConfig(args, {}), (error: unknown) => isKerfError(error) && error.code === "KERF_ERR_CONFIG" && message.test(error.message));
    });
  }
});
