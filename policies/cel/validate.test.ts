import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { SchemaNode } from "../api/schemas/openapi.ts";
import { bundledKarpenterApi } from "../api/releases/index.ts";
import { allRules, compiledRules, normalizeFieldPath } from "./rules.ts";
import { validateRules } from "./validate.ts";

/**
 * A small CRD schema of no Karpenter release: rules at the root, on objects, list items,
 * list-map items and map values.
 */
const WIDGET: SchemaNode = {
  type: "object",
  properties: {
    metadata: { type: "object" },
    spec: {
      type: "object",
      "x-kubernetes-validations": [
        { rule: "self.size <= 10", message: "size too large" },
        { rule: "self.ratio < 1.0", messageExpression: "'ratio ' + string(self.ratio) + ' is not below 1'" },
        { rule: "self.mode == oldSelf.mode", message: "mode is immutable" },
        { rule: "!has(self.owner) || self.owner != ''", message: "owner may not be empty", fieldPath: ".owner" },
        { rule: "self.size != 7", messageExpression: "''", message: "seven is reserved" },
        { rule: "self.size != 8" },
      ],
      properties: {
        size: { type: "integer" },
        ratio: { type: "number" },
        mode: { type: "string" },
        owner: { type: "string" },
        ports: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          items: {
            type: "object",
            properties: { name: { type: "string" }, port: { type: "integer" } },
            "x-kubernetes-validations": [{ rule: "self.port == oldSelf.port", message: "port is immutable" }],
          },
        },
        tags: {
          type: "array",
          items: {
            type: "string",
            "x-kubernetes-validations": [{ rule: "self == oldSelf", message: "tag is immutable" }],
          },
        },
        labels: {
          type: "object",
          additionalProperties: {
            type: "string",
            "x-kubernetes-validations": [{ rule: "self != ''", message: "empty label" }],
          },
        },
        extra: {
          type: "object",
          "x-kubernetes-preserve-unknown-fields": true,
          "x-kubernetes-validations": [{ rule: "!has(self.n) || self.n == 1", message: "n must be 1" }],
        },
        version: {
          "x-kubernetes-int-or-string": true,
          anyOf: [{ type: "integer" }, { type: "string" }],
          "x-kubernetes-validations": [{ rule: "int(string(self)) > 0", message: "version must be positive" }],
        },
      },
    },
  },
  "x-kubernetes-validations": [
    { rule: "self.metadata.name.startsWith('w-') && !has(self.metadata.labels)", message: "name must start with w-" },
  ],
};

type Json = Record<string, unknown>;
const widget = (spec: Json, name = "w-1"): Json => ({
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name, labels: { a: "b" } },
  spec: { size: 1, ratio: 0.5, mode: "a", ...spec },
});

/** "path: message" of each failure. */
function failures(object: unknown, oldObject?: unknown): string[] {
  const compiled = compiledRules(WIDGET);
  assert.ok(compiled !== undefined);
  return validateRules(compiled, object, oldObject).map(
    (f) => `${f.path}: ${f.message}${f.evaluationError === undefined ? "" : " (error)"}`,
  );
}

void describe("CRD rules evaluated by CEL", () => {
  const creates: [string, Json, string[]][] = [
    ["accepts an object every rule holds for", widget({}), []],
    ["reports a rule's message at its node", widget({ size: 11 }), ["spec: size too large"]],
    [
      "evaluates an integer field as an int and a number field as a double",
      widget({ size: 10, ratio: 1 }),
      ["spec: ratio 1 is not below 1"],
    ],
    ["falls back to the message when the messageExpression is empty", widget({ size: 7 }), ["spec: seven is reserved"]],
    ["reports a rule without message as 'failed rule'", widget({ size: 8 }), ["spec: failed rule: self.size != 8"]],
    ["appends the rule's fieldPath to the node's path", widget({ owner: "" }), ["spec.owner: owner may not be empty"]],
    [
      "reports an evaluation error with the rule's message",
      widget({ size: undefined }),
      ["spec: size too large (error)", "spec: seven is reserved (error)", "spec: failed rule: self.size != 8 (error)"],
    ],
    [
      "reports a value that recurs (a memoised verdict) at each of its paths",
      widget({ labels: { a: "", b: "" } }),
      ["spec.labels[a]: empty label", "spec.labels[b]: empty label"],
    ],
    [
      "names map values by key in brackets",
      widget({ labels: { ok: "x", "a.b/c": "" } }),
      ["spec.labels[a.b/c]: empty label"],
    ],
    [
      "keeps unknown fields under x-kubernetes-preserve-unknown-fields, typed by their JSON",
      widget({ extra: { n: 2 } }),
      ["spec.extra: n must be 1"],
    ],
    [
      "passes an int-or-string value as its JSON type",
      widget({ version: 0 }),
      ["spec.version: version must be positive"],
    ],
    ["shows root rules only metadata.name and generateName", widget({}, "x"), [": name must start with w-"]],
    ["skips null values", widget({ owner: null }), []],
  ];
  for (const [what, object, expected] of creates) {
    void it(`${what} (CREATE)`, () => assert.deepEqual(failures(object), expected));
  }

  const updates: [string, Json, Json, string[]][] = [
    [
      "evaluates a transition rule against the old value",
      widget({ mode: "b" }),
      widget({ mode: "a" }),
      ["spec: mode is immutable"],
    ],
    [
      "correlates list-map items by their keys, whatever their order",
      widget({
        ports: [
          { name: "y", port: 2 },
          { name: "x", port: 9 },
        ],
      }),
      widget({
        ports: [
          { name: "x", port: 1 },
          { name: "y", port: 2 },
        ],
      }),
      ["spec.ports[1]: port is immutable"],
    ],
    [
      "skips transition rules on list-map items new in the update",
      widget({ ports: [{ name: "z", port: 3 }] }),
      widget({ ports: [] }),
      [],
    ],
    ["never correlates items of an atomic list", widget({ tags: ["b"] }), widget({ tags: ["a"] }), []],
  ];
  for (const [what, object, oldObject, expected] of updates) {
    void it(`${what} (UPDATE)`, () => assert.deepEqual(failures(object, oldObject), expected));
  }

  void it("skips transition rules on CREATE", () => {
    assert.deepEqual(failures(widget({ mode: "b", ports: [{ name: "x", port: 1 }] })), []);
  });

  void it("reports a rule it cannot evaluate (optionalOldSelf) as unsupported, not as a failure", () => {
    const schema: SchemaNode = {
      type: "object",
      "x-kubernetes-validations": [{ rule: "self == oldSelf", optionalOldSelf: true, message: "m" }],
    };
    const compiled = compiledRules(schema);
    assert.ok(compiled !== undefined);
    const [failure] = validateRules(compiled, {}, undefined);
    assert.match(failure?.unsupported ?? "", /optionalOldSelf/);
  });

  void it("compiles a schema once per schema object", () => {
    assert.equal(compiledRules(WIDGET), compiledRules(WIDGET));
  });

  void it("compiles every rule of the bundled Karpenter release", () => {
    const api = bundledKarpenterApi();
    const counts = Object.fromEntries(
      Object.entries(api.schemas).map(([kind, schema]) => [kind, allRules(compiledRules(schema))]),
    );
    assert.deepEqual(Object.fromEntries(Object.entries(counts).map(([kind, rules]) => [kind, rules.length])), {
      NodePool: 20,
      NodeClaim: 10,
      EC2NodeClass: 54,
    });
    assert.deepEqual(
      Object.values(counts)
        .flat()
        .filter((r) => r.unsupported !== undefined)
        .map((r) => r.rule.rule),
      [],
    );
  });

  const fieldPaths: [string, string][] = [
    [".owner", "owner"],
    [".labels['a.b']", "labels[a.b]"],
    ["['owner']", "owner"],
  ];
  for (const [fieldPath, normalized] of fieldPaths) {
    void it(`normalizes fieldPath ${fieldPath} to ${normalized}`, () => {
      assert.equal(normalizeFieldPath(fieldPath, WIDGET.properties?.["spec"] as SchemaNode), normalized);
    });
  }
});
