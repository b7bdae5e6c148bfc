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
    assert.deepEqual(
      [config.karpenterApi, config.karpenterVersion, config.kubeconfig],
      ["cluster", "1.14.1", undefined],
    );
  });

  void it("resolves the pinned Karpenter release from a flag or KERF_KARPENTER_VERSION, and reads KUBECONFIG", () => {
    const config = loadWebhookConfig([...required, "--karpenter-api", "bundled"], {
      KERF_KARPENTER_VERSION: "v1.10",
      KUBECONFIG: "/kc",
    });
    assert.deepEqual([config.karpenterApi, config.karpenterVersion, config.kubeconfig], ["bundled", "1.10.2", "/kc"]);
    assert.equal(
      loadWebhookConfig([...required, "--karpenter-version", "1.0.8"], { KERF_KARPENTER_VERSION: "1.15" })
        .karpenterVersion,
      "1.0.8",
    );
  });

  void it("falls back to environment variables, with flags taking precedence", () => {
    const config = loadWebhookConfig(["--port", "8443"], {
      KERF_TLS_CERT: "/env.crt",
      KERF_TLS_KEY: "/env.key",
      KERF_WEBHOOK_PORT: "1",
      KERF_SKIP_USERNAMES: "a, b",
    });
    assert.equal(config.tlsCert, "/env.crt");
    assert.equal(config.port, 8443);
    assert.deepEqual(config.skipUsernames, ["a", "b"]);
  });

  const regions: Array<[string, string[], Record<string, string>, string]> = [
    ["no flag and no environment", [], {}, "us-east-1"],
    ["AWS_REGION (how the chart's settings.region reaches pods)", [], { AWS_REGION: "eu-west-1" }, "eu-west-1"],
    ["KERF_REGION over AWS_REGION", [], { KERF_REGION: "ap-south-1", AWS_REGION: "eu-west-1" }, "ap-south-1"],
    [
      "--region over both",
      ["--region", "us-west-2"],
      { KERF_REGION: "ap-south-1", AWS_REGION: "eu-west-1" },
      "us-west-2",
    ],
    ["an empty --region (the default)", ["--region", ""], {}, "us-east-1"],
  ];
  for (const [what, args, env, region] of regions) {
    void it(`judges against region ${region} given ${what}`, () => {
      assert.equal(loadWebhookConfig([...required, ...args], env).region, region);
    });
  }

  const invalid: Array<[string, string[], RegExp]> = [
    [
      "a region kerf bundles no catalog for",
      [...required, "--region", "mx-central-1"],
      /^reading webhook flags: --region \(or KERF_REGION\): no bundled catalog for "mx-central-1" \(bundled: af-/,
    ],
    ["a missing certificate", ["--tls-key", "/k.pem"], /--tls-cert \(or KERF_TLS_CERT\) is required/],
    ["a non-numeric port", [...required, "--port", "https"], /--port \(KERF_WEBHOOK_PORT\) must be integer/],
    [
      "a TLS floor below 1.2",
      [...required, "--tls-min-version", "TLSv1.1"],
      /--tls-min-version \(KERF_TLS_MIN_VERSION\) must be equal to one of the allowed values/,
    ],
    [
      "a body limit under 3 MiB",
      [...required, "--body-limit", "1024"],
      /--body-limit \(KERF_WEBHOOK_BODY_LIMIT\) must be >= 3145728/,
    ],
    ["an unknown flag", [...required, "--colour"], /reading webhook flags: Unknown option '--colour'/],
    [
      "an unbundled Karpenter release",
      [...required, "--karpenter-version", "1.3"],
      new RegExp(
        '^reading webhook flags: --karpenter-version: selecting Karpenter API "1\\.3": ' +
          "not bundled \\(bundled: 1\\.0\\.8, .*1\\.15\\.1\\)$",
      ),
    ],
    [
      "a certificate reload interval under 100 ms",
      [...required, "--tls-reload-interval", "5"],
      /--tls-reload-interval \(KERF_TLS_RELOAD_INTERVAL_MS\) must be >= 100/,
    ],
    [
      "an unknown Karpenter API source",
      [...required, "--karpenter-api", "crds"],
      /--karpenter-api \(KERF_KARPENTER_API\) must be equal to one of the allowed values/,
    ],
  ];
  for (const [what, args, message] of invalid) {
    void it(`rejects ${what}`, () => {
      assert.throws(
        () => loadWebhookConfig(args, {}),
        (error: unknown) => isKerfError(error) && error.code === "KERF_ERR_CONFIG" && message.test(error.message),
      );
    });
  }
});
