import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CASES } from "../conformance/cases/index.ts";
import type { ConformanceCase } from "../conformance/case.ts";
import { evaluate, type Verdict } from "../../policies/evaluate.ts";
import { defaultPolicyConfig } from "../../policies/config.ts";
import { builtinCatalog } from "../../policies/domain/catalog/builtin.ts";
import { bundledKarpenterApi } from "../../policies/api/releases/index.ts";
import { allRules, compiledRules } from "../../policies/cel/rules.ts";

const catalog = builtinCatalog();
const config = defaultPolicyConfig();

function run(c: ConformanceCase): Verdict {
  const context =
    c.nodeClassNames === undefined
      ? { catalog, config }
      : { catalog, config, nodeClassNames: new Set(c.nodeClassNames) };
  const base = { kind: c.kind, operation: c.operation ?? "CREATE", object: c.object, context } as const;
  return evaluate(c.oldObject === undefined ? base : { ...base, oldObject: c.oldObject });
}

function describeFindings(v: Verdict): string {
  return v.findings.map((f) => `  ${f.policy} ${f.severity} ${f.path}: ${f.message}`).join("\n");
}

void describe("conformance corpus against evaluate()", () => {
  for (const c of CASES) {
    void it(c.name, () => {
      const verdict = run(c);
      assert.equal(verdict.allowed ? "allow" : "deny", c.kerf, `verdict\n${describeFindings(verdict)}`);
      for (const e of c.expect ?? []) {
        const hit = verdict.findings.some(
          (f) =>
            f.policy === e.policy && f.path === e.path && (e.message === undefined || f.message.includes(e.message)),
        );
        assert.ok(
          hit,
          `expected ${e.policy} at ${e.path}${e.message === undefined ? "" : ` containing "${e.message}"`}, ` +
            `got\n${describeFindings(verdict)}`,
        );
      }
      // Parity: schema + cel findings deny exactly what the apiserver rejects.
      const parityDeny = verdict.findings.some(
        (f) => (f.policy === "schema" || f.policy === "cel") && f.severity === "deny",
      );
      assert.equal(parityDeny ? "reject" : "accept", c.apiserver, `parity\n${describeFindings(verdict)}`);
    });
  }

  void it("never allows what the apiserver rejects", () => {
    const loose = CASES.filter((c) => c.apiserver === "reject" && c.kerf === "allow");
    assert.deepEqual(
      loose.map((c) => c.name),
      [],
    );
  });

  void it("covers every upstream CEL rule message with at least one rejecting case", () => {
    const messages = new Set(
      CASES.flatMap((c) =>
        (c.expect ?? []).filter((e) => e.policy === "cel").map((e) => `${c.kind}|${e.message ?? ""}`),
      ),
    );
    const rules = Object.entries(bundledKarpenterApi().schemas).flatMap(([kind, schema]) =>
      allRules(compiledRules(schema)).map((r) => [kind, r] as const),
    );
    assert.equal(rules.length, 84);
    const uncovered = rules
      .filter(([kind, r]) => !messages.has(`${kind}|${r.rule.message ?? ""}`))
      .map(([kind, r]) => `${kind} ${r.location}: ${r.rule.message ?? ""}`);
    assert.deepEqual(uncovered, []);
  });

  void it("allows the defaulted object of every case kerf's mutation fixes", () => {
    const stillDenied = CASES.filter((c) => c.fixedByDefaults === true).filter(
      (c) => !run({ ...c, object: run(c).defaulted as Record<string, unknown> }).allowed,
    );
    assert.deepEqual(
      stillDenied.map((c) => c.name),
      [],
    );
  });

  void it("keeps case names unique", () => {
    const names = CASES.map((c) => `${c.kind}: ${c.name}`);
    assert.equal(new Set(names).size, names.length);
  });
});
