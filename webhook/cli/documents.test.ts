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
    const text = "apiVersion: v1\nkind: List\nitems:\n  - kind: NodePool\n    spec:\n      weight: 1\n  - kind: EC2NodeClass\n";
    const objects = parseDocuments("l.yaml", text);
    assert.deepEqual(objects.map((o) => (o.value as { kind: string }).kind), ["NodePool", "EC2NodeClass"]);
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
