import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseDocuments } from "./documents.ts";
import { isKerfError } from "../errors.ts";

const twoDocs = `# leading comment
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  disruption:
    budgets:
      - nodes: "10%"
      - nodes: "0"
        schedule: "0 9 * * mon-fri"
  template:
    metadata:
      labels:
        karpenter.sh/nodepool: x
---
apiVersion: v1
kind: ConfigMap
metadata: {name: other}
`;

void describe("parseDocuments", () => {
  void it("returns one object per YAML document with its starting position", () => {
    const objects = parseDocuments("a.yaml", twoDocs);
    assert.equal(objects.length, 2);
    assert.deepEqual(objects[0]?.position, { line: 2, column: 1 });
    assert.deepEqual(objects[1]?.position, { line: 17, column: 1 });
    assert.equal((objects[1]?.value as { kind: string }).kind, "ConfigMap");
  });

  const located: Array<[string, number, number]> = [
    ["spec.disruption.budgets[1].schedule", 11, 9],
    ["spec.disruption.budgets[1]", 10, 9],
    ["spec.disruption.budgets[1].duration", 10, 9],
    ["spec.disruption.consolidateAfter", 7, 3],
    ['spec.template.metadata.labels["karpenter.sh/nodepool"]', 15, 9],
    ["spec.template.metadata.labels.karpenter.sh/nodepool", 15, 9],
    ["/spec/disruption/budgets/0/nodes", 9, 9],
    ["spec.template.spec.expireAfter", 12, 3],
    ["", 2, 1],
  ];
  for (const [path, line, column] of located) {
    void it(`locates ${path || "the object itself"} at ${line}:${column}`, () => {
      const [nodePool] = parseDocuments("a.yaml", twoDocs);
      assert.deepEqual(nodePool?.locate(path), { line, column });
    });
  }

  void it("reads JSON files", () => {
    const [obj] = parseDocuments("a.json", '{\n  "kind": "NodePool",\n  "spec": {\n    "weight": 200\n  }\n}\n');
    assert.deepEqual(obj?.locate("spec.weight"), { line: 4, column: 5 });
  });

  void it("expands the items of a List document", () => {
    const text =
      "apiVersion: v1\nkind: List\nitems:\n  - kind: NodePool\n    spec:\n      weight: 1\n  - kind: EC2NodeClass\n";
    const objects = parseDocuments("l.yaml", text);
    assert.deepEqual(
      objects.map((o) => (o.value as { kind: string }).kind),
      ["NodePool", "EC2NodeClass"],
    );
    assert.deepEqual(objects[0]?.locate("spec.weight"), { line: 6, column: 7 });
  });

  void it("skips empty documents", () => {
    assert.equal(parseDocuments("e.yaml", "---\n---\n# nothing\n").length, 0);
  });

  void it("rejects unparseable YAML naming the file and line", () => {
    assert.throws(
      () => parseDocuments("bad.yaml", "kind: NodePool\nspec:\n  weight: [1\n  other: x\n"),
      (error: unknown) => isKerfError(error) && /^parsing bad\.yaml:\d+:\d+: /.test(error.message),
    );
  });

  void it("rejects duplicate keys", () => {
    assert.throws(() => parseDocuments("dup.yaml", "kind: a\nkind: b\n"), /parsing dup\.yaml:2:1: /);
  });
});

/** A "billion laughs" document: each level holds ten aliases of the one before, 10^9 strings in all. */
function billionLaughs(): string {
  const lines = [
    "apiVersion: karpenter.sh/v1",
    "kind: NodePool",
    "metadata:",
    "  name: lol",
    "spec:",
    "  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]",
  ];
  for (let level = 1; level <= 9; level++)
    lines.push(`  l${level}: &l${level} [${Array.from({ length: 10 }, () => `*l${level - 1}`).join(", ")}]`);
  return `${lines.join("\n")}\n`;
}

void describe("parseDocuments: anchors and aliases", () => {
  const bad: Array<[string, string, RegExp]> = [
    [
      "an alias without an anchor",
      "kind: NodePool\nmetadata:\n  name: *missing\n",
      /^parsing a\.yaml:3:9: alias \*missing has no anchor &missing before it$/,
    ],
    ["an alias used before its anchor", "a: *x\nb: &x 1\n", /^parsing a\.yaml:1:4: alias \*x has no anchor/],
    [
      "an alias inside its own anchor",
      "kind: NodePool\nmetadata: &m\n  name: x\n  self: *m\n",
      /^parsing a\.yaml:4:9: alias \*m is inside its own anchor &m/,
    ],
    [
      "a billion laughs",
      billionLaughs(),
      /^parsing a\.yaml:7:\d+: YAML aliases expand beyond the limit \(1000 aliased nodes per anchor\)/,
    ],
    [
      "a billion laughs in the second document",
      `kind: ConfigMap\n---\n${billionLaughs()}`,
      /^parsing a\.yaml:9:\d+: YAML aliases expand beyond the limit/,
    ],
  ];
  for (const [what, text, message] of bad) {
    void it(`rejects ${what} as an input error naming file:line`, () => {
      assert.throws(
        () => parseDocuments("a.yaml", text),
        (error: unknown) => {
          assert.ok(isKerfError(error), String(error));
          assert.equal(error.code, "KERF_ERR_INPUT_UNPARSEABLE");
          assert.match(error.message, message);
          return true;
        },
      );
    });
  }

  void it("resolves ordinary anchors and keeps positions", () => {
    const text = "kind: NodePool\nspec:\n  a: &reqs [{key: k, operator: Exists}]\n  b: *reqs\n";
    const [object] = parseDocuments("a.yaml", text);
    assert.deepEqual((object?.value as { spec: unknown }).spec, {
      a: [{ key: "k", operator: "Exists" }],
      b: [{ key: "k", operator: "Exists" }],
    });
    assert.deepEqual(object?.locate("spec.b"), { line: 4, column: 3 });
  });
});
