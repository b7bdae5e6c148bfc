/**
 * The source has no import circle (the engineering standard): each module's relative imports, type-only ones
 * included, read with TypeScript's own pre-processor; a circle is a strongly connected group of two or more
 * modules, reported with its members.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const root = path.resolve(import.meta.dirname, "../..");

/** Tracked TypeScript outside the tests: the product's modules. */
function modules(): string[] {
  const files = execFileSync("git", ["ls-files", "*.ts"], { cwd: root, encoding: "utf8" }).trim().split("\n");
  return files.filter((f) => !f.endsWith(".test.ts") && !f.startsWith("test/"));
}

function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const { importedFiles } = ts.preProcessFile(readFileSync(path.join(root, file), "utf8"), true, true);
      const targets = importedFiles
        .map((i) => i.fileName)
        .filter((name) => name.startsWith("."))
        .map((name) => path.normalize(path.join(path.dirname(file), name)))
        .filter((target) => known.has(target));
      return [file, targets];
    }),
  );
}

/** Strongly connected groups of two or more modules (Tarjan's algorithm, iterative over the graph's nodes). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) {
      onStack.delete(w);
      group.push(w);
    }
    if (group.length > 1) out.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

void describe("the module graph", () => {
  void it("should find a circle when modules import each other", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
    ]);
    assert.deepEqual(circles(graph), [["a.ts", "b.ts", "c.ts"]]);
  });

  void it("should have no import circle in kerf's own modules", () => {
    const found = circles(importGraph(modules()));
    assert.deepEqual(found, [], `import circles:\n${found.map((c) => c.join(" -> ")).join("\n")}`);
  });
});
