import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { runCheck } from "./check.ts";
import { capture } from "./captured-io.ts";

const examples = path.resolve(import.meta.dirname, "../../manifests/examples");
const broken = path.join(examples, "broken");

interface Expected {
  severity: string;
  policy: string;
  path: string;
  line: number;
  message: string;
}

/** `# expect: deny cel spec.disruption.budgets@21: message` lines at the end of a broken example. */
function expectations(file: string): Expected[] {
  const pattern = /^# expect: (deny|warn|notice) (\S+) (\S*)@(\d+): (.*)$/;
  return readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line) => {
      const m = pattern.exec(line);
      return m === null ? [] : [{ severity: m[1]!, policy: m[2]!, path: m[3]!, line: Number(m[4]), message: m[5]! }];
    });
}

void describe("manifests/examples", () => {
  void it("passes kerf check with exit code 0 (the README's run command)", async () => {
    const c = capture();
    const code = await runCheck([examples], c.io);
    assert.equal(code, 0, c.out() + c.err());
    assert.match(c.out(), /nothing denied/);
  });

  for (const name of readdirSync(broken)
    .filter((f) => f.endsWith(".yaml"))
    .sort()) {
    void it(`broken/${name} reports the findings it documents, at their lines`, async () => {
      const file = path.join(broken, name);
      const expected = expectations(file);
      assert.ok(expected.length > 0, `${name} documents no expected findings`);
      const c = capture();
      const code = await runCheck([file, "--format", "json"], c.io);
      assert.equal(code, expected.some((e) => e.severity === "deny") ? 1 : 0);
      const report = JSON.parse(c.out()) as { results: Array<{ violations: Expected[] }> };
      const actual = report.results.flatMap((r) =>
        r.violations.map((v) => ({
          severity: v.severity,
          policy: v.policy,
          path: v.path,
          line: v.line,
          message: v.message,
        })),
      );
      for (const e of expected)
        assert.ok(
          actual.some((a) => JSON.stringify(a) === JSON.stringify(e)),
          `missing ${JSON.stringify(e)} in ${JSON.stringify(actual, null, 1)}`,
        );
    });
  }
});
