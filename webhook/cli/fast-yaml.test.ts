import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { globSync, readFileSync } from "node:fs";
import path from "node:path";
import { LineCounter, parseAllDocuments } from "yaml";
import { fastYamlDocuments } from "./fast-yaml.ts";

const root = path.resolve(import.meta.dirname, "..", "..");

/** What the source-mapped parser reads: each non-empty document's value and start line. */
function reference(text: string): Array<{ value: unknown; line: number }> {
  const lineCounter = new LineCounter();
  return parseAllDocuments(text, { lineCounter }).flatMap((doc) => {
    const value: unknown = doc.toJS();
    if (value === null || value === undefined || doc.contents === null) return [];
    return [{ value, line: lineCounter.linePos(doc.contents.range[0]).line }];
  });
}

describe("the fast block-YAML path", () => {
  const files = globSync("manifests/**/*.yaml", { cwd: root });

  it("reads every bundled manifest exactly as the source-mapped parser does, values and start lines", () => {
    assert.ok(files.length >= 20, `found ${files.length} manifests`);
    for (const file of files) {
      const text = readFileSync(path.join(root, file), "utf8");
      const fast = fastYamlDocuments(text);
      if (fast === undefined) continue;
      assert.deepEqual(
        fast.map((d) => ({ value: d.value, line: d.line })),
        reference(text),
        file,
      );
    }
  });

  it("takes the fast path for ordinary multi-document manifests", () => {
    const text = "# header\n---\napiVersion: v1\nkind: A\n---\n\n  # note\nkind: B\nspec: {x: 1}\n---\n";
    assert.deepEqual(fastYamlDocuments(text), [
      { value: { apiVersion: "v1", kind: "A" }, line: 3, column: 1 },
      { value: { kind: "B", spec: { x: 1 } }, line: 8, column: 1 },
    ]);
  });

  const fallbacks: Array<[string, string]> = [
    ["a syntax error", "kind: A\nspec: [\n"],
    ["a duplicate key", "kind: A\nkind: B\n"],
    ["a directive", "%YAML 1.2\n---\nkind: A\n"],
    ["a document end marker", "kind: A\n...\n"],
    ["content on the --- line", "--- {kind: A}\n"],
    ["a kind: List", "kind: List\nitems: []\n"],
  ];
  for (const [what, text] of fallbacks) {
    it(`leaves ${what} to the source-mapped parser`, () => {
      assert.equal(fastYamlDocuments(text), undefined);
    });
  }

  it("keeps dates and yes/no as the YAML 1.2 core schema does (strings and strings)", () => {
    assert.deepEqual(fastYamlDocuments("a: 2020-01-01\nb: yes\nc: 0o17\n")?.[0]?.value, {
      a: "2020-01-01",
      b: "yes",
      c: 15,
    });
  });

  it("leaves aliases of maps and lists to the source-mapped parser, which bounds their expansion", () => {
    for (const text of ["a: &x [1]\nb: *x\n", "a: &x {b: 1}\nc: [*x]\n", "a: &x {b: *x}\n", "a: {b: *x}\n"]) {
      assert.equal(fastYamlDocuments(text), undefined, text);
    }
    assert.deepEqual(
      fastYamlDocuments("- &x 1\n- *x\n")?.map((d) => d.value),
      [[1, 1]],
      "an alias of a scalar cannot multiply",
    );
    assert.deepEqual(
      fastYamlDocuments('rule: "self.a && self.b"\n')?.map((d) => d.value),
      [{ rule: "self.a && self.b" }],
    );
  });
});
