import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import pino from "pino";
import { input, machine, pool, view, type Machine } from "../../core/disruption/fixtures.ts";
import type { DisruptionInput } from "../../core/disruption/plan.ts";
import type { Command, DisruptionPlan, Skipped } from "../../core/disruption/types.ts";
import type { Validation } from "../../core/disruption/validation.ts";
import { InProcessPlanner, PlannerThread, PlannerThreadError, sourceOf, type Planner } from "./planner.ts";
import { viewSource, type ObjectSource } from "./planner-wire.ts";

const skipped = (s: readonly Skipped[]): unknown => s.map((x) => [x.nodeClaim.metadata?.name, x.node?.metadata?.name, x.blocker.kind, x.blocker.message]);

function commandShape(c: Command | undefined): unknown {
  if (c === undefined) return undefined;
  return {
    method: c.method, reason: c.reason, decision: c.decision, savings: c.savingsPerHour.toFixed(6),
    candidates: c.candidates.map((x) => [x.name, x.nodeClaim.metadata?.name, x.node.metadata?.name, x.pods.map((p) => p.metadata?.name)]),
    replacements: c.replacements.map((r) => [r.nodePool, r.launch, r.instanceTypes.map((t) => t.name), r.pods.map((p) => p.uid)]),
  };
}

/** Everything a plan decides, with objects by name. */
function shape(p: DisruptionPlan): unknown {
  return { command: commandShape(p.command), method: p.method, budgets: p.budgets, eligible: p.eligible, blocked: skipped(p.blocked), unconsolidatable: skipped(p.unconsolidatable), resumeAfter: p.resumeAfter };
}

const validationShape = (v: Validation): unknown => (v.ok ? { ok: true, command: commandShape(v.command) } : v);

/** A source that reads from whatever input the test is on (the operator reads its caches). */
class Current implements ObjectSource {
  source: ObjectSource = viewSource(view([]));
  nodeClaim(n: string) { return this.source.nodeClaim(n); }
  node(n: string) { return this.source.node(n); }
  pod(ns: string, n: string) { return this.source.pod(ns, n); }
}

const logger = pino({ level: "silent" });
const current = new Current();
const thread = new PlannerThread({ logger, objects: current, chunk: 7 });
after(() => thread.close());

async function both(i: DisruptionInput): Promise<{ inThread: DisruptionPlan; inProcess: DisruptionPlan }> {
  current.source = sourceOf(i);
  const inThread = (await thread.plan(i)).plan;
  const inProcess = (await new InProcessPlanner().plan(i)).plan;
  return { inThread, inProcess };
}

const small = (name: string, pods: number, o: Parameters<typeof machine>[1] = {}): Machine => machine(name, { type: "m5.xlarge", pods, memory: "1Gi", ...o });

void describe("the disruption planner thread", () => {
  void it("should decide what the planner decides in process, on the same input", async () => {
    const cases: [string, DisruptionInput][] = [
      ["multi-node consolidation", input(view([small("a", 1), small("b", 1), small("c", 1), small("d", 6)]))],
      ["drift", input(view([small("a", 3, { drifted: "NodePoolDrifted" }), machine("b", { type: "m5.large" })]))],
      ["emptiness", input(view([small("a", 0), small("b", 0), small("c", 2)]))],
      ["nothing to do, with blockers", input(view([
        small("a", 2, { podAnnotations: { "karpenter.sh/do-not-disrupt": "true" } }), small("b", 2, { initialized: false }), machine("c", { type: "m5.large", pods: 1, memory: "6Gi" }),
      ]))],
      ["budgets of 0", input(view([small("a", 1), small("b", 1)], [pool("default", { budgets: [{ nodes: "0" }] })]))],
    ];
    for (const [name, i] of cases) {
      const { inThread, inProcess } = await both(i);
      assert.deepEqual(shape(inThread), shape(inProcess), name);
    }
    // The cases above are not all alike: the comparison covers commands and their absence.
    assert.ok(cases.length >= 5);
  });

  void it("should plan the changed cluster after a sync of only the changes", async () => {
    const machines = [small("a", 1), small("b", 1), small("c", 4), small("d", 4)];
    const first = input(view(machines));
    const { inThread: before } = await both(first);
    assert.ok(before.command !== undefined);
    // b's pod goes, c gains a pod, d goes: a different answer unless the thread saw each change.
    const changed = view([machines[0] as Machine, { ...(machines[1] as Machine), pods: [] }, small("c", 5), small("e", 0)]);
    const { inThread, inProcess } = await both(input(changed));
    assert.deepEqual(shape(inThread), shape(inProcess));
    assert.notDeepEqual(shape(inThread), shape(before));
  });

  void it("should re-validate a command as the planner does in process", async () => {
    const i = input(view([small("a", 1), small("b", 1), small("c", 6)]));
    const { inThread } = await both(i);
    const command = inThread.command;
    assert.ok(command !== undefined);
    for (const later of [i, input(view([small("a", 1), small("b", 8), small("c", 6)]))]) {
      current.source = sourceOf(later);
      const inProcess = await new InProcessPlanner().revalidate(later, command);
      assert.deepEqual(validationShape(await thread.revalidate(later, command)), validationShape(inProcess));
    }
  });

  void it("should answer the same digest until something the pass reads changes", async () => {
    const planners: Planner[] = [thread, new InProcessPlanner()];
    for (const p of planners) {
      const i = input(view([small("a", 1), small("b", 2)]));
      const d1 = await p.sync(i);
      assert.equal(await p.sync({ ...i, cluster: { ...i.cluster }, now: new Date(i.now.getTime() + 60_000) }), d1, "a new snapshot of the same objects, later");
      assert.notEqual(await p.sync({ ...i, cluster: { ...i.cluster, pods: i.cluster.pods.slice(1) } }), d1, "a pod gone");
      const d2 = await p.sync({ ...i, cluster: { ...i.cluster, pods: i.cluster.pods.slice(1) } });
      assert.notEqual(await p.sync({ ...i, cluster: { ...i.cluster, pods: i.cluster.pods.slice(1) }, nominated: new Set(["a"]) }), d2, "a nomination");
    }
  });

  void it("should let the process exit once its requests are answered (an idle thread holds nothing)", () => {
    const url = (f: string): string => JSON.stringify(new URL(f, import.meta.url).href);
    const script = `import { PlannerThread, sourceOf } from ${url("./planner.ts")};
      import { input, machine, view } from ${url("../../core/disruption/fixtures.ts")};
      const i = input(view([machine("a", { pods: 1 }), machine("b", { pods: 1 })]));
      const logger = { error() {}, warn() {}, info() {}, debug() {} };
      const t = new PlannerThread({ logger, objects: sourceOf(i) });
      const r = await t.plan(i);
      console.log("planned", r.plan.command === undefined ? "nothing" : r.plan.command.method);`;
    const cwd = fileURLToPath(new URL("../../..", import.meta.url));
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd, encoding: "utf8", timeout: 60_000 });
    assert.equal(child.signal, null, "still running after 60 s: the thread kept the process alive");
    assert.equal(child.status, 0, child.stderr);
    assert.match(child.stdout, /^planned /);
  });

  void it("should survive its thread crashing: the request fails, the next one runs on a fresh thread", async () => {
    const i = input(view([small("a", 1), small("b", 1), small("c", 6)]));
    const { inProcess } = await both(i);
    const startedBefore = thread.started;
    // A malformed sync message throws inside the thread: an uncaught error, as a planner bug would be.
    const worker = (thread as unknown as { worker: { postMessage: (m: unknown) => void } }).worker;
    const crashed = thread.plan({ ...i, now: new Date(i.now.getTime() + 1) });
    worker.postMessage({ type: "sync", field: "pods", upserts: null, deletes: [] });
    await assert.rejects(crashed, PlannerThreadError);
    const again = await thread.plan(i);
    assert.equal(thread.started, startedBefore + 1);
    assert.deepEqual(shape(again.plan), shape(inProcess));
  });
});
