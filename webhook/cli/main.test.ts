import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { run } from "./main.ts";
import { capture } from "./captured-io.ts";
import pkg from "../../package.json" with { type: "json" };

describe("kerf command", () => {
  it("prints the usage with --help and exits 0", async () => {
    const c = capture();
    assert.equal(await run(["--help"], c.io), 0);
    assert.match(c.out(), /Usage: kerf <command>/);
  });

  it("prints the package version with --version", async () => {
    const c = capture();
    assert.equal(await run(["--version"], c.io), 0);
    assert.equal(c.out(), `kerf ${pkg.version}\n`);
  });

  it("rejects an unknown command with a one-line error and exit code 2", async () => {
    const c = capture();
    assert.equal(await run(["frobnicate"], c.io), 2);
    assert.equal(c.err().trim().split("\n").length, 1);
    assert.match(c.err(), /unknown command "frobnicate"/);
  });

  it("treats a missing command as a usage error", async () => {
    const c = capture();
    assert.equal(await run([], c.io), 2);
  });
});
