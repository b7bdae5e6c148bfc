import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { NodeClaim, Pod } from "../lifecycle/objects.ts";
import {
  COMMAND_ANNOTATION,
  formatIntent,
  parseIntent,
  recoveries,
  replacementNeeded,
  type CommandIntent,
} from "./intent.ts";

const DRIFT: CommandIntent = {
  id: "c1",
  role: "candidate",
  method: "drift",
  reason: "Drifted",
  decision: "replace",
  candidates: ["a"],
  replacements: 1,
};

function claim(
  name: string,
  intent: CommandIntent | undefined,
  o: { deleting?: boolean; nodeName?: string } = {},
): NodeClaim {
  return {
    metadata: {
      name,
      ...(intent === undefined ? {} : { annotations: { [COMMAND_ANNOTATION]: formatIntent(intent) } }),
      ...(o.deleting === true ? { deletionTimestamp: "2026-11-25T12:00:00Z" } : {}),
    },
    ...(o.nodeName === undefined ? {} : { status: { nodeName: o.nodeName } }),
  } as NodeClaim;
}
const replacement = (name: string, of: CommandIntent = DRIFT, o: { deleting?: boolean } = {}): NodeClaim =>
  claim(name, { ...of, role: "replacement" }, o);

void describe("a disruption command's recorded intent", () => {
  void it("should read back what it wrote", () => {
    assert.deepEqual(parseIntent(formatIntent(DRIFT)), DRIFT);
    const multi: CommandIntent = {
      ...DRIFT,
      id: "x",
      role: "replacement",
      method: "multi-node-consolidation",
      reason: "Underutilized",
      candidates: ["a", "b", "c"],
    };
    assert.deepEqual(parseIntent(formatIntent(multi)), multi);
  });

  void it("should treat an absent or unreadable annotation as no intent", () => {
    for (const value of [
      undefined,
      "",
      "{",
      "null",
      "[]",
      "{}",
      '{"id":"c1"}',
      JSON.stringify({ ...DRIFT, role: "other" }),
      JSON.stringify({ ...DRIFT, method: "rebalance" }),
      JSON.stringify({ ...DRIFT, reason: "Expired" }),
      JSON.stringify({ ...DRIFT, replacements: -1 }),
      JSON.stringify({ ...DRIFT, replacements: 1.5 }),
      JSON.stringify({ ...DRIFT, candidates: [1] }),
    ]) {
      assert.equal(parseIntent(value), undefined, String(value));
    }
  });

  void it("should resume a replace command whose replacements all exist", () => {
    const [r] = recoveries([claim("a", DRIFT), replacement("r1"), claim("other", undefined)], new Set());
    assert.equal(r?.kind, "resume");
    assert.deepEqual(
      r.kind === "resume"
        ? [r.candidates.map((c) => c.metadata?.name), r.replacements.map((c) => c.metadata?.name)]
        : [],
      [["a"], ["r1"]],
    );
  });

  void it("should abandon a replace command killed before its replacement was created", () => {
    const [r] = recoveries([claim("a", DRIFT)], new Set());
    assert.equal(r?.kind, "abandon");
  });

  void it("should abandon a command whose replacement failed (is being deleted)", () => {
    const [r] = recoveries([claim("a", DRIFT), replacement("r1", DRIFT, { deleting: true })], new Set());
    assert.equal(r?.kind, "abandon");
    assert.deepEqual(r.kind === "abandon" ? r.replacements : [undefined], []);
  });

  void it("should abandon a command with only some of its replacements", () => {
    const two = { ...DRIFT, replacements: 2 };
    const [r] = recoveries([claim("a", two), replacement("r1", two)], new Set());
    assert.equal(r?.kind, "abandon");
  });

  void it("should always abandon a delete-only command (it launched nothing; the next pass re-plans it)", () => {
    const empty: CommandIntent = {
      ...DRIFT,
      id: "e",
      method: "emptiness",
      reason: "Empty",
      decision: "delete",
      candidates: ["a", "b"],
      replacements: 0,
    };
    const [r] = recoveries([claim("a", empty), claim("b", empty)], new Set());
    assert.equal(r?.kind, "abandon");
    assert.deepEqual(r.kind === "abandon" ? r.candidates.map((c) => c.metadata?.name) : [], ["a", "b"]);
  });

  void it("should finish a command whose candidates are all deleting or gone, keeping the live replacements", () => {
    const deleted = recoveries([claim("a", DRIFT, { deleting: true }), replacement("r1")], new Set());
    assert.deepEqual(
      deleted.map((r) => r.kind),
      ["finish"],
    );
    const gone = recoveries([replacement("r1")], new Set());
    assert.deepEqual(
      gone.map((r) => [r.kind, r.kind === "finish" ? r.replacements.map((c) => c.metadata?.name) : []]),
      [["finish", ["r1"]]],
    );
  });

  void it("should resume a command killed between deleting two candidates (the rest are deleted)", () => {
    const two = { ...DRIFT, candidates: ["a", "b"] };
    const [r] = recoveries([claim("a", two, { deleting: true }), claim("b", two), replacement("r1", two)], new Set());
    assert.equal(r?.kind, "resume");
    assert.deepEqual(r.kind === "resume" ? r.candidates.map((c) => c.metadata?.name) : [], ["b"]);
  });

  void it("should leave commands this process is running to their task", () => {
    assert.deepEqual(recoveries([claim("a", DRIFT), replacement("r1")], new Set(["c1"])), []);
  });

  void it("should group by command id", () => {
    const other: CommandIntent = { ...DRIFT, id: "c2", candidates: ["b"] };
    const found = recoveries(
      [claim("a", DRIFT), claim("b", other), replacement("r2", other), replacement("r1")],
      new Set(),
    );
    assert.deepEqual(found.map((r) => [r.intent.id, r.kind]).sort(), [
      ["c1", "resume"],
      ["c2", "resume"],
    ]);
  });

  void it("should keep a replacement a pod runs on or a pending pod was nominated to", () => {
    const r = claim("r1", undefined, { nodeName: "node-r1" });
    const movable = (p: Pod): boolean => p.metadata?.name !== "daemon";
    const pod = (name: string): Pod => ({ metadata: { name } }) as Pod;
    assert.equal(replacementNeeded(r, [], new Set(), movable), false);
    assert.equal(replacementNeeded(r, [pod("daemon")], new Set(), movable), false);
    assert.equal(replacementNeeded(r, [pod("web")], new Set(), movable), true);
    assert.equal(replacementNeeded(r, [], new Set(["node-r1"]), movable), true);
    assert.equal(replacementNeeded(r, [], new Set(["r1"]), movable), true);
  });
});
