import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { evaluate, EXEMPT_ANNOTATION, isKarpenterKind } from "./evaluate.ts";
import { defaultPolicyConfig, parsePolicyConfig } from "./config.ts";
import { builtinCatalog } from "./domain/catalog/builtin.ts";
import { applyPatch } from "./json-patch.ts";
import { bundledKarpenterApi, type KarpenterApi } from "./api/releases/index.ts";
import type { SchemaNode } from "./api/schemas/openapi.ts";
import { CONFIGURABLE_POLICY_IDS } from "./config.ts";
import { POLICIES } from "./registry.ts";

const catalog = builtinCatalog();
const nodePool = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: "karpenter.sh/v1",
  kind: "NodePool",
  metadata: { name: "p", ...extra },
  spec: {
    template: {
      spec: {
        nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "d" },
        requirements: [{ key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["m5"] }],
      },
    },
  },
});

void describe("evaluate", () => {
  void it("maps apiVersion/kind to the kinds kerf checks", () => {
    assert.equal(isKarpenterKind("karpenter.sh/v1", "NodePool"), "NodePool");
    assert.equal(isKarpenterKind("karpenter.sh/v1", "NodeClaim"), "NodeClaim");
    assert.equal(isKarpenterKind("karpenter.k8s.aws/v1", "EC2NodeClass"), "EC2NodeClass");
    assert.equal(isKarpenterKind("karpenter.sh/v1beta1", "NodePool"), undefined);
    assert.equal(isKarpenterKind("apps/v1", "Deployment"), undefined);
  });

  void it("denies a non-object without throwing", () => {
    const v = evaluate({
      kind: "NodePool",
      operation: "CREATE",
      object: "nope",
      context: { catalog, config: defaultPolicyConfig() },
    });
    assert.equal(v.allowed, false);
    assert.deepEqual(v.patch, []);
  });

  void it("returns a patch that turns the object into the defaulted object", () => {
    const object = nodePool();
    const v = evaluate({
      kind: "NodePool",
      operation: "CREATE",
      object,
      context: { catalog, config: defaultPolicyConfig() },
    });
    assert.ok(v.patch.length > 0);
    assert.deepEqual(applyPatch(object, v.patch), v.defaulted);
    const again = evaluate({
      kind: "NodePool",
      operation: "CREATE",
      object: v.defaulted,
      context: { catalog, config: defaultPolicyConfig() },
    });
    assert.deepEqual(again.patch, []);
  });

  void it("denies with default severities and allows when the config lowers them", () => {
    const object = nodePool();
    const strictVerdict = evaluate({
      kind: "NodePool",
      operation: "CREATE",
      object,
      context: { catalog, config: defaultPolicyConfig() },
    });
    assert.deepEqual(
      new Set(strictVerdict.findings.filter((f) => f.severity === "deny").map((f) => f.policy)),
      new Set(["spot-diversity", "limits-required"]),
    );
    const config = parsePolicyConfig("policies:\n  spot-diversity: warn\n  limits-required: off\n");
    const relaxed = evaluate({ kind: "NodePool", operation: "CREATE", object, context: { catalog, config } });
    assert.equal(relaxed.allowed, true);
    assert.deepEqual(
      relaxed.findings.map((f) => [f.policy, f.severity]),
      [["spot-diversity", "warn"]],
    );
  });

  void it("honours the spot-diversity threshold from the config", () => {
    const config = parsePolicyConfig("policies:\n  spot-diversity: { minInstanceTypes: 9 }\n  limits-required: off\n");
    assert.equal(
      evaluate({ kind: "NodePool", operation: "CREATE", object: nodePool(), context: { catalog, config } }).allowed,
      true,
    );
  });

  void it("downgrades exempted kerf policies but never schema or cel findings", () => {
    const object = nodePool({ annotations: { [EXEMPT_ANNOTATION]: "spot-diversity, limits-required,cel" } });
    (object["spec"] as Record<string, unknown>)["weight"] = 0;
    const v = evaluate({
      kind: "NodePool",
      operation: "CREATE",
      object,
      context: { catalog, config: defaultPolicyConfig() },
    });
    assert.deepEqual(
      v.findings.filter((f) => f.severity === "deny").map((f) => f.policy),
      ["schema"],
    );
    assert.ok(
      v.findings.some(
        (f) =>
          f.policy === "spot-diversity" &&
          f.severity === "warn" &&
          f.message.endsWith(`(exempted by ${EXEMPT_ANNOTATION})`),
      ),
    );
  });

  const sharedFacts: [string, Record<string, unknown>, string[]][] = [
    [
      "an In requirement without values",
      { key: "team", operator: "In", values: [] },
      ["cel spec.template.spec.requirements[1].values"],
    ],
    [
      "a Gt requirement with two values",
      { key: "team", operator: "Gt", values: ["1", "2"] },
      ["cel spec.template.spec.requirements[1].values"],
    ],
    [
      "minValues above the values",
      { key: "team", operator: "In", values: ["a"], minValues: 2 },
      ["cel spec.template.spec.requirements[1].minValues"],
    ],
    [
      "a requirement key in the karpenter.sh domain",
      { key: "karpenter.sh/foo", operator: "Exists" },
      ["cel spec.template.spec.requirements[1].key"],
    ],
    ["an unknown operator", { key: "team", operator: "Foo" }, ["schema spec.template.spec.requirements[1].operator"]],
  ];
  for (const [what, requirement, expected] of sharedFacts) {
    void it(`reports ${what} once, at the most precise path, not by both cel (or schema) and runtime`, () => {
      const object = nodePool();
      (object["spec"] as { template: { spec: { requirements: unknown[] } } }).template.spec.requirements.push(
        requirement,
      );
      const config = parsePolicyConfig(
        "policies:\n  spot-diversity: off\n  limits-required: off\n  requirements-satisfiable: off\n",
      );
      const v = evaluate({ kind: "NodePool", operation: "CREATE", object, context: { catalog, config } });
      assert.deepEqual(
        v.findings.filter((f) => f.severity === "deny").map((f) => `${f.policy} ${f.path}`),
        expected,
      );
    });
  }

  const prototypeNames = ["__proto__", "constructor", "toString", "hasOwnProperty"];
  for (const name of prototypeNames) {
    void it(`evaluates a NodePool whose requirement keys are ${name} without reaching a prototype`, () => {
      const object = nodePool();
      const requirements = (object["spec"] as { template: { spec: { requirements: unknown[] } } }).template.spec
        .requirements;
      requirements.push({ key: name, operator: "In", values: ["a"], minValues: 1 }, { key: name, operator: "Exists" });
      const v = evaluate({
        kind: "NodePool",
        operation: "CREATE",
        object,
        context: { catalog, config: defaultPolicyConfig() },
      });
      assert.ok(v.findings.every((f) => typeof f.message === "string")); // threw a TypeError before
      // "constructor" is a valid key
      assert.equal(
        v.findings.some((f) => f.path === "spec.template.spec.requirements[1].key"),
        name === "__proto__",
      );
    });
  }

  void it("knows no kind named after an Object.prototype member", () => {
    assert.equal(isKarpenterKind("karpenter.sh/v1", "toString"), undefined);
    assert.equal(isKarpenterKind("__proto__", "NodePool"), undefined);
    assert.equal(isKarpenterKind("constructor", "name"), undefined);
  });

  void it("skips rule stages when the object has type errors, as the apiserver skips CEL", () => {
    const object = nodePool();
    (object["spec"] as Record<string, unknown>)["template"] = { spec: { nodeClassRef: "x", requirements: "y" } };
    const v = evaluate({
      kind: "NodePool",
      operation: "CREATE",
      object,
      context: { catalog, config: defaultPolicyConfig() },
    });
    assert.ok(v.findings.length > 0);
    assert.ok(v.findings.every((f) => f.policy === "schema"));
  });
});

/** The bundled API with its NodePool schema changed by `edit` (a copy: the bundled release is left as it is). */
function editedApi(edit: (spec: SchemaNode) => void): KarpenterApi {
  const bundled = bundledKarpenterApi();
  const nodePoolSchema = structuredClone(bundled.schemas.NodePool);
  edit(nodePoolSchema.properties?.["spec"] as SchemaNode);
  return { version: "0.0.0-test", source: "cluster", schemas: { ...bundled.schemas, NodePool: nodePoolSchema } };
}

void describe("evaluate against another Karpenter API (context.api)", () => {
  const config = parsePolicyConfig("policies:\n  spot-diversity: off\n  limits-required: off\n");
  const judge = (api: KarpenterApi | undefined, object: Record<string, unknown>) =>
    evaluate({
      kind: "NodePool",
      operation: "CREATE",
      object,
      context: { catalog, config, ...(api === undefined ? {} : { api }) },
    });
  const weighted = (): Record<string, unknown> => {
    const object = nodePool();
    (object["spec"] as Record<string, unknown>)["weight"] = 60;
    return object;
  };

  void it("evaluates the API's own CEL rules, not the bundled release's", () => {
    const api = editedApi((spec) => {
      spec["x-kubernetes-validations"] = [
        { rule: "!has(self.weight) || self.weight <= 50", message: "weight above 50" },
      ];
    });
    assert.deepEqual(
      judge(undefined, weighted()).findings.filter((f) => f.policy === "cel"),
      [],
    );
    assert.deepEqual(
      judge(api, weighted())
        .findings.filter((f) => f.policy === "cel")
        .map((f) => `${f.path}: ${f.message}`),
      ["spec: weight above 50"],
    );
  });

  void it("requires consolidateAfter without kerf's mutation only where the API's CRD does (v1.15 defaults it)", () => {
    const object = nodePool();
    (object["spec"] as Record<string, unknown>)["disruption"] = { consolidationPolicy: "WhenEmpty" };
    const defaulting = editedApi((spec) => {
      const disruption = spec.properties?.["disruption"] as SchemaNode;
      (disruption.properties as Record<string, SchemaNode>)["consolidateAfter"] = {
        ...disruption.properties?.["consolidateAfter"],
        default: "0s",
      };
    });
    const required = (api: KarpenterApi | undefined): boolean =>
      judge(api, object).findings.some((f) => f.policy === "schema" && f.path === "spec.disruption.consolidateAfter");
    assert.equal(required(undefined), true);
    assert.equal(required(defaulting), false);
  });

  void it("applies the API's own defaults and prunes nulls of fields only it knows", () => {
    const api = editedApi((spec) => {
      (spec.properties as Record<string, SchemaNode>)["extra"] = {
        type: "object",
        properties: { a: { type: "string", default: "x" } },
        default: {},
      };
      (spec.properties as Record<string, SchemaNode>)["other"] = { type: "object" };
    });
    const object = nodePool();
    (object["spec"] as Record<string, unknown>)["other"] = null;
    const verdict = judge(api, object);
    const spec = (verdict.defaulted as { spec: Record<string, unknown> }).spec;
    assert.deepEqual([spec["extra"], "other" in spec], [{ a: "x" }, false]);
    assert.deepEqual(
      verdict.findings.filter((f) => f.policy === "schema"),
      [],
    );
  });

  void it("reports a rule the engine cannot evaluate as a notice, not a denial", () => {
    const api = editedApi((spec) => {
      spec["x-kubernetes-validations"] = [{ rule: "self.weight.isSorted()", message: "needs the lists library" }];
    });
    const verdict = judge(api, weighted());
    assert.equal(verdict.allowed, true);
    assert.deepEqual(
      verdict.findings.filter((f) => f.policy === "cel").map((f) => [f.severity, f.path]),
      [["notice", "spec"]],
    );
  });

  void it("validates the structure against the API's own schema", () => {
    const api = editedApi((spec) => {
      delete spec.properties?.["weight"];
    });
    assert.deepEqual(
      judge(api, weighted())
        .findings.filter((f) => f.policy === "unknown-fields")
        .map((f) => f.path),
      ["spec.weight"],
    );
    assert.equal(
      judge(undefined, weighted()).findings.some((f) => f.policy === "unknown-fields"),
      false,
    );
  });
});

void describe("registry", () => {
  void it("lists exactly the configurable policy ids the config accepts", () => {
    const ids = new Set(["unknown-fields", ...POLICIES.filter((p) => p.fixed !== true).map((p) => p.id)]);
    assert.deepEqual([...ids].sort(), [...CONFIGURABLE_POLICY_IDS].sort());
  });
});

void describe("evaluate on UPDATE: validation ratcheting, as the apiserver does it", () => {
  const config = parsePolicyConfig("policies:\n  spot-diversity: off\n  limits-required: off\n");
  // Stored under v1.0.8, whose expireAfter pattern was unanchored, and a label domain v1.14.1 restricts by CEL.
  const stored = (): Record<string, unknown> => {
    const object = nodePool();
    const template = (object["spec"] as { template: Record<string, Record<string, unknown>> }).template;
    template["spec"]!["expireAfter"] = "720hx";
    template["metadata"] = { labels: { "karpenter.sh/custom": "x" } };
    return object;
  };
  const judged = (operation: "CREATE" | "UPDATE", edit: (spec: Record<string, unknown>) => void): string[] => {
    const object = structuredClone(stored());
    edit(object["spec"] as Record<string, unknown>);
    const verdict = evaluate({
      kind: "NodePool",
      operation,
      object,
      oldObject: stored(),
      context: { catalog, config },
    });
    // The apiserver's own checks; kerf's runtime and policy checks do not ratchet.
    return verdict.findings
      .filter((f) => f.severity === "deny" && (f.policy === "schema" || f.policy === "cel"))
      .map((f) => `${f.policy} ${f.path}`);
  };
  const template = (spec: Record<string, unknown>): Record<string, Record<string, unknown>> =>
    spec["template"] as Record<string, Record<string, unknown>>;

  const cases: [string, "CREATE" | "UPDATE", (spec: Record<string, unknown>) => void, string[]][] = [
    [
      "CREATE: both are errors",
      "CREATE",
      () => undefined,
      ["schema spec.template.spec.expireAfter", "cel spec.template.metadata.labels.karpenter.sh/custom"],
    ],
    [
      "UPDATE of another field: both ratchet",
      "UPDATE",
      (s) => {
        s["weight"] = 10;
      },
      [],
    ],
    [
      "UPDATE of expireAfter to another bad value: that one is an error again",
      "UPDATE",
      (s) => {
        template(s)["spec"]!["expireAfter"] = "721hx";
      },
      ["schema spec.template.spec.expireAfter"],
    ],
    [
      "UPDATE adding a label: the labels rule is judged again",
      "UPDATE",
      (s) => {
        template(s)["metadata"] = { labels: { "karpenter.sh/custom": "x", team: "a" } };
      },
      ["cel spec.template.metadata.labels.karpenter.sh/custom"],
    ],
  ];
  for (const [title, operation, edit, expected] of cases) {
    void it(`denies exactly what the apiserver would: ${title}`, () => {
      assert.deepEqual(judged(operation, edit).sort(), expected.sort());
    });
  }
});
