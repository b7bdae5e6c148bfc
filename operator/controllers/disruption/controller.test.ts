import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { BlockerKind } from "../../core/disruption/types.ts";
import { publishesNodeEvents } from "./controller.ts";

void describe("which held-back nodes get Events of their own", () => {
  // Karpenter publishes a budget block once, on the NodePool (helpers.go BuildDisruptionBudgetMapping).
  const cases: { kind: BlockerKind; want: boolean }[] = [
    { kind: "budget", want: false },
    { kind: "not-initialized", want: false },
    { kind: "pdb", want: true },
    { kind: "do-not-disrupt", want: true },
    { kind: "unconsolidatable", want: true },
  ];
  for (const c of cases) {
    void it(`${c.want ? "publishes" : "does not publish"} per-node Events for a ${c.kind} blocker`, () => {
      assert.equal(publishesNodeEvents({ nodeClaim: { metadata: { name: "a" } }, blocker: { kind: c.kind, message: "m" } }), c.want);
    });
  }
});
