import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expandPaths, readInputs, STDIN_NAME } from "./inputs.ts";
import { isKerfError } from "../errors.ts";

void describe("kerf check inputs", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "kerf-inputs-"));
    mkdirSync(path.join(dir, "nested", "deeper"), { recursive: true });
    writeFileSync(path.join(dir, "b.yaml"), "kind: B\n---\nkind: B2\n");
    writeFileSync(path.join(dir, "a.yml"), "kind: A\n");
    writeFileSync(path.join(dir, "nested", "c.json"), '{"kind": "C"}');
    writeFileSync(path.join(dir, "nested", "deeper", "d.YAML"), "kind: D\n");
    writeFileSync(path.join(dir, "nested", "notes.txt"), "kind: ignored\n");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  void it("walks directories recursively, keeping only .yaml, .yml and .json files in sorted order", async () => {
    const files = await expandPaths([dir]);
    assert.deepEqual(
      files.map((f) => path.relative(dir, f)),
      ["a.yml", "b.yaml", path.join("nested", "c.json"), path.join("nested", "deeper", "d.YAML")],
    );
  });

  void it("skips what the walked directory's .kerfignore lists, but not a path named explicitly", async () => {
    writeFileSync(path.join(dir, ".kerfignore"), "# broken on purpose\nnested/deeper/\nb.yaml\n");
    try {
      assert.deepEqual(
        (await expandPaths([dir])).map((f) => path.relative(dir, f)),
        ["a.yml", path.join("nested", "c.json")],
      );
      assert.equal((await expandPaths([path.join(dir, "nested", "deeper")])).length, 1);
    } finally {
      rmSync(path.join(dir, ".kerfignore"));
    }
  });

  void it("reads an explicitly named file whatever its extension", async () => {
    const objects = await readInputs([path.join(dir, "nested", "notes.txt")], async () => "");
    assert.equal(objects.length, 1);
  });

  void it("reads every document of every file", async () => {
    const objects = await readInputs([dir], async () => "");
    assert.deepEqual(
      objects.map((o) => (o.value as { kind: string }).kind),
      ["A", "B", "B2", "C", "D"],
    );
  });

  void it("reads standard input for -", async () => {
    const objects = await readInputs(["-"], async () => "kind: FromStdin\n");
    assert.equal(objects[0]?.file, STDIN_NAME);
  });

  void it("names a missing file in a coded error", async () => {
    await assert.rejects(
      readInputs([path.join(dir, "missing.yaml")], async () => ""),
      (error: unknown) =>
        isKerfError(error) &&
        error.code === "KERF_ERR_INPUT_UNREADABLE" &&
        error.message.endsWith("missing.yaml: no such file or directory"),
    );
  });
});
