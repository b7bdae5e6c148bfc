import { describe, it } from "node:test";
import assert from "node:assert/strict";
import pino from "pino";
import { input, machine, pool, view, type Machine } from "../../core/disruption/fixtures.ts";
import { planDisruption } from "../../core/disruption/plan.ts";
import type { Command } from "../../core/disruption/types.ts";
import type { Node, NodeClaim } from "../../core/lifecycle/objects.ts";
import { createMetrics } from "../../observability/metrics.ts";
import type { Cluster, NodePatch } from "../../ports/cluster.ts";
import { Orchestrator } from "./orchestrator.ts";

/**
 * The writes the orchestrator makes, against objects the test holds (the port, in memory): each
 * write replaces the object, as the apiserver and the informer would; `conflicts` makes the next
 * Node patches fail as a stale resourceVersion does.
 */
class Writes {
  readonly nodes = new Map<string, Node>();
  readonly claims = new Map<string, NodeClaim>();
  readonly deleted: string[] = [];
  conflicts = 0;
  onDelete: (name: string) => void = () => undefined;
  /** A replacement launch: fails (as a launch error would) after running this, unless `createFails` is off. */
  onCreate: () => void = () => undefined;
  createFails = true;
  /** Creates under way now, and the most at once. */
  creating = 0;
  mostAtOnce = 0;

  constructor(machines: readonly Machine[]) {
    for (const m of machines) {
      this.nodes.set(m.node.metadata?.name ?? "", m.node);
      this.claims.set(m.claim.metadata?.name ?? "", m.claim);
    }
  }

  cluster(): Cluster {
    const conflict = (): Error => Object.assign(new Error("the object has been modified"), { name: "ConflictError" });
    return {
      node: (name: string) => this.nodes.get(name),
      nodeClaim: (name: string) => this.claims.get(name),
      nodeByProviderID: (id: string) => [...this.nodes.values()].find((n) => n.spec?.providerID === id),
      podsOnNode: () => [],
      patchNode: async (node: Node, patch: NodePatch) => {
        await Promise.resolve();
        if (this.conflicts > 0) {
          this.conflicts -= 1;
          throw conflict();
        }
        const name = node.metadata?.name ?? "";
        this.nodes.set(name, { ...node, spec: { ...node.spec, taints: patch.taints ?? node.spec?.taints ?? [] } });
      },
      patchNodeClaimMetadata: async (claim: NodeClaim, meta: { annotations?: Record<string, string | null> }) => {
        await Promise.resolve();
        const annotations = Object.fromEntries(
          Object.entries({ ...claim.metadata?.annotations, ...meta.annotations }).filter(
            (e): e is [string, string] => e[1] !== null,
          ),
        );
        this.claims.set(claim.metadata?.name ?? "", { ...claim, metadata: { ...claim.metadata, annotations } });
      },
      patchNodeClaimStatus: async (claim: NodeClaim, status: NonNullable<NodeClaim["status"]>) => {
        await Promise.resolve();
        this.claims.set(claim.metadata?.name ?? "", { ...claim, status: { ...claim.status, ...status } });
      },
      nodePool: (name: string) => pool(name),
      createNodeClaim: async () => {
        this.creating += 1;
        this.mostAtOnce = Math.max(this.mostAtOnce, this.creating);
        await new Promise(setImmediate);
        this.creating -= 1;
        this.onCreate();
        if (this.createFails) throw new Error("creating nodeclaim: InsufficientInstanceCapacity");
        return { metadata: { name: `replacement-${this.mostAtOnce}-${this.creating}` } };
      },
      deleteNodeClaim: async (name: string) => {
        await Promise.resolve();
        this.deleted.push(name);
        this.onDelete(name);
      },
    } as unknown as Cluster;
  }

  tainted(name: string): boolean {
    return (this.nodes.get(name)?.spec?.taints ?? []).some((t) => t.key === "karpenter.sh/disrupted");
  }
}

function orchestrator(writes: Writes): Orchestrator {
  return new Orchestrator({
    cluster: writes.cluster(),
    clock: { now: () => new Date() },
    events: { publish: () => undefined },
    metrics: createMetrics(),
    logger: pino({ level: "silent" }),
    validationDelayMs: 0,
    replacementTimeoutMs: 60_000,
    nominated: () => new Set(),
    revalidate: (command: Command) => Promise.resolve({ ok: true, command }),
  });
}

/** Emptiness's command for two empty nodes (budget 100%). */
function emptyNodes(): { machines: Machine[]; command: Command } {
  const p = pool("default", { budgets: [{ nodes: "100%" }] });
  const machines = [machine("a", { pool: p }), machine("b", { pool: p })];
  const command = planDisruption(input(view(machines, [p]))).command;
  assert.equal(command?.method, "emptiness");
  return { machines, command: command! };
}

void describe("the disruption orchestrator (review S16)", () => {
  void it("marks a candidate whose Node changed since the cache read it (a conflict) and completes", async () => {
    const { machines, command } = emptyNodes();
    const writes = new Writes(machines);
    writes.conflicts = 2;
    await orchestrator(writes).start(command, new AbortController().signal);
    assert.deepEqual(writes.deleted.sort(), ["a", "b"]);
    assert.ok(writes.tainted("a") && writes.tainted("b"));
  });

  // queue.go StartCommand: a command without replacements goes on with the candidates that were marked.
  void it("goes on with the candidates it could mark when the command launches nothing", async () => {
    const { machines, command } = emptyNodes();
    const writes = new Writes(machines);
    writes.nodes.delete("b");
    await orchestrator(writes).start(command, new AbortController().signal);
    assert.deepEqual(writes.deleted, ["a"]);
  });

  void it("writes nothing more once leadership is lost, not even the remaining deletes", async () => {
    const { machines, command } = emptyNodes();
    const writes = new Writes(machines);
    const lease = new AbortController();
    writes.onDelete = () => lease.abort();
    await orchestrator(writes).start(command, lease.signal);
    assert.equal(writes.deleted.length, 1, `deleted ${writes.deleted.join(", ")}`);
    assert.ok(writes.tainted("a") && writes.tainted("b"), "no untaint after the lease is gone");
  });

  // statenode.go RequireNoScheduleTaint leaves a deleting node's taint: untainting it reopens a draining node.
  void it("releases a failed command's candidates, except one whose NodeClaim is already being deleted", async () => {
    for (const deleting of [false, true]) {
      const p = pool("default", { budgets: [{ nodes: "100%" }] });
      const machines = [machine("a", { pool: p, pods: 1, drifted: "NodePoolDrifted" })];
      const command = planDisruption(input(view(machines, [p]))).command;
      assert.equal(command?.decision, "replace");
      const writes = new Writes(machines);
      writes.onCreate = () => {
        const claim = writes.claims.get("a");
        if (!deleting || claim === undefined) return;
        const metadata = { ...claim.metadata, deletionTimestamp: "2026-11-25T12:00:00Z" };
        writes.claims.set("a", { ...claim, metadata });
      };
      await orchestrator(writes).start(command!, new AbortController().signal);
      const why = deleting ? "a draining node keeps its taint" : "the node is released";
      assert.equal(writes.tainted("a"), deleting, why);
    }
  });

  // Karpenter's CreateNodeClaims creates a command's replacements at once.
  void it("creates a command's replacements at once, and lets every create settle before it gives up", async () => {
    const p = pool("default", { budgets: [{ nodes: "100%" }] });
    const machines = [machine("a", { pool: p, pods: 1, drifted: "NodePoolDrifted" })];
    const planned = planDisruption(input(view(machines, [p]))).command;
    const replacement = planned?.replacements[0];
    assert.ok(planned !== undefined && replacement !== undefined);
    const writes = new Writes(machines);
    let created = 0;
    writes.onCreate = () => {
      created += 1;
    };
    const twice = { ...planned, replacements: [replacement, replacement] };
    await orchestrator(writes).start(twice, new AbortController().signal);
    assert.equal(writes.mostAtOnce, 2);
    assert.equal(created, 2, "the second create ran to its end though the first failed");
    assert.equal(writes.tainted("a"), false, "the failed command released its candidate");
  });
});
