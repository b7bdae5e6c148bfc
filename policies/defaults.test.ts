import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { applyDefaults } from "./defaults.ts";
import { diff } from "./json-patch.ts";

const pool = (spec: Record<string, unknown>): Record<string, unknown> => ({
  apiVersion: "karpenter.sh/v1",
  kind: "NodePool",
  metadata: { name: "p" },
  spec: {
    template: {
      spec: { nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "d" }, requirements: [] },
    },
    ...spec,
  },
});

void describe("defaults", () => {
  void it("adds the whole disruption default when disruption is absent (§9)", () => {
    const d = applyDefaults("NodePool", pool({})) as { spec: Record<string, unknown> };
    assert.deepEqual(d.spec["disruption"], {
      consolidateAfter: "0s",
      consolidationPolicy: "WhenEmptyOrUnderutilized",
      budgets: [{ nodes: "10%" }],
    });
    assert.equal((d.spec["template"] as { spec: Record<string, unknown> }).spec["expireAfter"], "720h");
  });

  void it("adds consolidateAfter 0s to a disruption block that lacks it (GitOps dry-run fix)", () => {
    const d = applyDefaults("NodePool", pool({ disruption: { consolidationPolicy: "WhenEmpty" } })) as {
      spec: { disruption: Record<string, unknown> };
    };
    assert.equal(d.spec.disruption["consolidateAfter"], "0s");
    assert.equal(d.spec.disruption["consolidationPolicy"], "WhenEmpty");
  });

  void it("defaults nodes inside each budget item", () => {
    const d = applyDefaults(
      "NodePool",
      pool({ disruption: { consolidateAfter: "1m", budgets: [{ schedule: "@daily", duration: "1h" }] } }),
    ) as { spec: { disruption: { budgets: unknown[] } } };
    assert.deepEqual(d.spec.disruption.budgets, [{ schedule: "@daily", duration: "1h", nodes: "10%" }]);
  });

  void it("never rewrites a value the user wrote", () => {
    const input = pool({
      disruption: { consolidateAfter: "1h0m", consolidationPolicy: "WhenEmpty", budgets: [{ nodes: "5" }] },
    });
    const d = applyDefaults("NodePool", input) as { spec: { disruption: unknown } };
    assert.deepEqual(d.spec.disruption, {
      consolidateAfter: "1h0m",
      consolidationPolicy: "WhenEmpty",
      budgets: [{ nodes: "5" }],
    });
  });

  void it("is idempotent: a defaulted object yields an empty patch", () => {
    for (const [kind, object] of [
      ["NodePool", pool({})],
      ["EC2NodeClass", { spec: { metadataOptions: { httpTokens: "optional" } } }],
    ] as const) {
      const once = applyDefaults(kind, object);
      assert.deepEqual(diff(once, applyDefaults(kind, once)), []);
    }
  });

  void it("fills each missing metadataOptions field of a partial block", () => {
    const d = applyDefaults("EC2NodeClass", { spec: { metadataOptions: { httpTokens: "optional" } } }) as {
      spec: Record<string, unknown>;
    };
    assert.deepEqual(d.spec["metadataOptions"], {
      httpTokens: "optional",
      httpEndpoint: "enabled",
      httpProtocolIPv6: "disabled",
      httpPutResponseHopLimit: 1,
    });
  });

  void it("does not touch the input object", () => {
    const input = pool({});
    const copy = structuredClone(input);
    applyDefaults("NodePool", input);
    assert.deepEqual(input, copy);
  });

  void it("defaults NodeClaim expireAfter only", () => {
    const d = applyDefaults("NodeClaim", { spec: { requirements: [] } }) as { spec: Record<string, unknown> };
    assert.deepEqual(d.spec, { requirements: [], expireAfter: "720h" });
  });

  void it("keeps a __proto__ key as an own property when it copies an object, never as a prototype", () => {
    const input = JSON.parse(
      '{"metadata":{"name":"p"},"spec":{"__proto__":{"weight":7},' +
        '"template":{"spec":{"nodeClassRef":{"group":"g","kind":"k","name":"n"},"requirements":[]}},' +
        '"limits":{"__proto__":"1"}}}',
    ) as Record<string, unknown>;
    const d = applyDefaults("NodePool", input) as { spec: Record<string, unknown> };
    assert.equal(Object.getPrototypeOf(d.spec), Object.prototype);
    assert.equal(d.spec["weight"], undefined);
    assert.deepEqual(Object.getOwnPropertyDescriptor(d.spec, "__proto__")?.value, { weight: 7 });
    assert.ok(
      diff(input, d).every((op) => op.op === "add" && !op.path.includes("__proto__")),
      JSON.stringify(diff(input, d)),
    );
  });
});
