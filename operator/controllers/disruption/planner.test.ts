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
import { projectNode, projectPod } from "./planner-projection.ts";
import type { Node, Pod } from "../../core/lifecycle/objects.ts";

const skipped = (s: readonly Skipped[]): unknown =>
  s.map((x) => [x.nodeClaim.metadata?.name, x.node?.metadata?.name, x.blocker.kind, x.blocker.message]);

function commandShape(c: Command | undefined): unknown {
  if (c === undefined) return undefined;
  return {
    method: c.method,
    reason: c.reason,
    decision: c.decision,
    savings: c.savingsPerHour.toFixed(6),
    candidates: c.candidates.map((x) => [
      x.name,
      x.nodeClaim.metadata?.name,
      x.node.metadata?.name,
      x.pods.map((p) => p.metadata?.name),
    ]),
    replacements: c.replacements.map((r) => [
      r.nodePool,
      r.launch,
      r.instanceTypes.map((t) => t.name),
      r.pods.map((p) => p.uid),
    ]),
  };
}

/** Everything a plan decides, with objects by name. */
function shape(p: DisruptionPlan): unknown {
  return {
    command: commandShape(p.command),
    method: p.method,
    budgets: p.budgets,
    eligible: p.eligible,
    blocked: skipped(p.blocked),
    unconsolidatable: skipped(p.unconsolidatable),
    resumeAfter: p.resumeAfter,
  };
}

const validationShape = (v: Validation): unknown => (v.ok ? { ok: true, command: commandShape(v.command) } : v);

/** A source that reads from whatever input the test is on (the operator reads its caches). */
class Current implements ObjectSource {
  source: ObjectSource = viewSource(view([]));
  nodeClaim(n: string) {
    return this.source.nodeClaim(n);
  }
  node(n: string) {
    return this.source.node(n);
  }
  pod(ns: string, n: string) {
    return this.source.pod(ns, n);
  }
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

const small = (name: string, pods: number, o: Parameters<typeof machine>[1] = {}): Machine =>
  machine(name, { type: "m5.xlarge", pods, memory: "1Gi", ...o });

type Loose = Record<string, unknown>;
const TIME = "2026-11-20T00:00:00Z";

/** A fixture pod as the apiserver and kubelet fill it in (fields no decision reads), plus `extra` in its spec. */
function fullPod(pod: Pod, extra: Loose = {}): Pod {
  const p = pod as unknown as { metadata: Loose; spec: Loose & { containers: Loose[] }; status: Loose };
  return {
    metadata: {
      ...p.metadata,
      resourceVersion: "123",
      generateName: "app-7d9f8c6b5-",
      ownerReferences: [
        {
          apiVersion: "apps/v1",
          kind: "ReplicaSet",
          name: "app-7d9f8c6b5",
          uid: "rs-uid",
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      ...p.spec,
      dnsPolicy: "ClusterFirst",
      schedulerName: "default-scheduler",
      serviceAccountName: "default",
      securityContext: {},
      restartPolicy: "Always",
      enableServiceLinks: true,
      preemptionPolicy: "PreemptLowerPriority",
      priority: 0,
      terminationGracePeriodSeconds: 30,
      containers: p.spec.containers.map((c) => ({
        ...c,
        image: "registry.example.com/app:1.2.3",
        ports: [{ containerPort: 8080, protocol: "TCP" }],
        env: [{ name: "A", value: "b" }],
      })),
      tolerations: [
        { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
      ],
      volumes: [
        {
          name: "kube-api-access-x1y2z",
          projected: {
            sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: "token" } }],
            defaultMode: 420,
          },
        },
      ],
      ...extra,
    },
    status: {
      ...p.status,
      podIP: "10.0.0.7",
      podIPs: [{ ip: "10.0.0.7" }],
      hostIP: "10.0.0.10",
      qosClass: "Burstable",
      startTime: TIME,
      conditions: ["Initialized", "Ready", "ContainersReady", "PodScheduled"].map((type) => ({
        type,
        status: "True",
        lastTransitionTime: TIME,
      })),
    },
  } as unknown as Pod;
}

/** A fixture node as kubelet fills it in. */
function fullNode(node: Node, spec: Loose = {}): Node {
  const n = node as unknown as { metadata: Loose; spec: Loose; status: Loose & { conditions: Loose[] } };
  return {
    metadata: {
      ...n.metadata,
      resourceVersion: "456",
      annotations: { "node.alpha.kubernetes.io/ttl": "0", ...(n.metadata["annotations"] as Loose) },
    },
    spec: { ...n.spec, ...spec },
    status: {
      ...n.status,
      conditions: n.status.conditions.map((c) => ({
        ...c,
        reason: "KubeletReady",
        lastHeartbeatTime: TIME,
        lastTransitionTime: TIME,
      })),
      addresses: [{ type: "InternalIP", address: "10.0.0.10" }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: { kubeletVersion: "v1.36.4", architecture: "amd64", operatingSystem: "linux" },
    },
  } as unknown as Node;
}

/** `machines` with every pod and node filled in; `spec(m, i)` adds to the i-th pod of machine m. */
function fullView(
  machines: readonly Machine[],
  spec: (m: string, i: number) => Loose = () => ({}),
  node: (m: string) => Loose = () => ({}),
): Machine[] {
  return machines.map((m) => ({
    claim: m.claim,
    node: fullNode(m.node, node(m.node.metadata?.name ?? "")),
    pods: m.pods.map((p, i) => fullPod(p, spec(m.node.metadata?.name ?? "", i))),
  }));
}

const hostPort = (port: number): Loose => ({
  containers: [
    {
      name: "c",
      resources: { requests: { cpu: "100m", memory: "1Gi" } },
      ports: [{ containerPort: port, hostPort: port, protocol: "TCP" }],
    },
  ],
});
const antiAffine: Loose = {
  affinity: {
    podAntiAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [
        { topologyKey: "kubernetes.io/hostname", labelSelector: { matchLabels: { tier: "one-per-node" } } },
      ],
    },
  },
};
const sidecar = (memory: string): Loose => ({
  initContainers: [{ name: "proxy", restartPolicy: "Always", resources: { requests: { memory } } }],
});

void describe("the disruption planner thread", () => {
  void it("should decide what the planner decides in process, on the same input", async () => {
    const cases: [string, DisruptionInput][] = [
      ["multi-node consolidation", input(view([small("a", 1), small("b", 1), small("c", 1), small("d", 6)]))],
      ["drift", input(view([small("a", 3, { drifted: "NodePoolDrifted" }), machine("b", { type: "m5.large" })]))],
      ["emptiness", input(view([small("a", 0), small("b", 0), small("c", 2)]))],
      [
        "nothing to do, with blockers",
        input(
          view([
            small("a", 2, { podAnnotations: { "karpenter.sh/do-not-disrupt": "true" } }),
            small("b", 2, { initialized: false }),
            machine("c", { type: "m5.large", pods: 1, memory: "6Gi" }),
          ]),
        ),
      ],
      ["budgets of 0", input(view([small("a", 1), small("b", 1)], [pool("default", { budgets: [{ nodes: "0" }] })]))],
    ];
    for (const [name, i] of cases) {
      const { inThread, inProcess } = await both(i);
      assert.deepEqual(shape(inThread), shape(inProcess), name);
    }
    // The cases above are not all alike: the comparison covers commands and their absence.
    assert.ok(cases.length >= 5);
  });

  void it("should decide on the Pods and Nodes it is sent (the fields planners read) as on full objects", async () => {
    const taint = { taints: [{ key: "dedicated", value: "x", effect: "NoSchedule" }] };
    const tolerates = { tolerations: [{ key: "dedicated", operator: "Equal", value: "x", effect: "NoSchedule" }] };
    const oneEach = { tier: "one-per-node" };
    const none = (): Loose => ({});
    const onA =
      (extra: Loose) =>
      (m: string): Loose =>
        m === "a" ? extra : {};
    const threeSmall = (o: Parameters<typeof machine>[1] = {}): Machine[] => [
      small("a", 1, o),
      small("b", 1, o),
      small("c", 2, o),
    ];
    const twoSmall = [small("a", 1), small("c", 2)];
    // Each case with what it adds to the kubelet-filled objects: a field the decision turns on.
    const cases: [string, Machine[], (m: string, i: number) => Loose, (m: string) => Loose][] = [
      ["kubelet-filled objects", [small("a", 1), small("b", 1), small("c", 1), small("d", 6)], none, none],
      ["host ports that collide", threeSmall(), () => hostPort(90), none],
      ["hostname anti-affinity", threeSmall({ podLabels: oneEach }), () => antiAffine, none],
      ["a sidecar too large to move", threeSmall(), onA(sidecar("13Gi")), none],
      ["pod overhead too large to move", threeSmall(), onA({ overhead: { memory: "13Gi" } }), none],
      ["a taint the pods tolerate", twoSmall, (m) => (m === "c" ? {} : tolerates), (m) => (m === "c" ? taint : {})],
      ["a taint no pod tolerates", twoSmall, none, (m) => (m === "c" ? taint : {})],
      ["empty nodes", [small("a", 0), small("b", 0), small("c", 2)], none, none],
    ];
    for (const [name, machines, spec, node] of cases) {
      const { inThread, inProcess } = await both(input(view(fullView(machines, spec, node))));
      assert.deepEqual(shape(inThread), shape(inProcess), name);
      if (spec === none && node === none) continue;
      // The case turns on what it adds to the pods (else to the nodes): without it the planner decides otherwise.
      const without = spec === none ? fullView(machines) : fullView(machines, none, node);
      const plain = (await new InProcessPlanner().plan(input(view(without)))).plan;
      assert.notDeepEqual(shape(inProcess), shape(plain), `${name}: the decision does not depend on the field`);
    }
  });

  void it("should send a Pod without the fields no decision reads, and keep the ones that do", () => {
    const pod = fullPod(small("a", 1).pods[0] as Pod, {
      ...hostPort(9000),
      ...sidecar("1Gi"),
      ...antiAffine,
      overhead: { cpu: "10m" },
    });
    const claim = { name: "data", persistentVolumeClaim: { claimName: "d" } };
    const volumes = [...(pod.spec as Loose & { volumes: unknown[] }).volumes, claim];
    const withClaim = { ...pod, spec: { ...pod.spec, volumes } };
    const sent = JSON.stringify(projectPod(withClaim));
    const dropped = [
      "image",
      "env",
      "podIP",
      "qosClass",
      "serviceAccountToken",
      "dnsPolicy",
      "resourceVersion",
      'containerPort":8080',
    ];
    for (const field of dropped) assert.ok(!sent.includes(field), `${field} is not sent`);
    const kept = [
      "hostPort",
      'restartPolicy":"Always',
      "podAntiAffinity",
      "overhead",
      "claimName",
      "tolerations",
      "ownerReferences",
      "Ready",
      "Running",
      "startTime",
      "priority",
    ];
    for (const field of kept) assert.ok(sent.includes(field), `${field} is sent`);
    assert.ok(sent.length < JSON.stringify(withClaim).length * 0.75, "a pod sent is well under its cached size");
    const taints = [{ key: "k", effect: "NoSchedule" }];
    const node = JSON.stringify(projectNode(fullNode(small("a", 0).node, { taints })));
    for (const field of ["nodeInfo", "addresses", "daemonEndpoints", "lastHeartbeatTime"]) {
      assert.ok(!node.includes(field), `${field} is not sent`);
    }
    for (const field of ["providerID", "taints", "allocatable", "Ready", "lastTransitionTime", "labels"]) {
      assert.ok(node.includes(field), `${field} is sent`);
    }
  });

  void it("should plan the changed cluster after a sync of only the changes", async () => {
    const machines = [small("a", 1), small("b", 1), small("c", 4), small("d", 4)];
    const first = input(view(machines));
    const { inThread: before } = await both(first);
    assert.ok(before.command !== undefined);
    // b's pod goes, c gains a pod, d goes: a different answer unless the thread saw each change.
    const changed = view([
      machines[0] as Machine,
      { ...(machines[1] as Machine), pods: [] },
      small("c", 5),
      small("e", 0),
    ]);
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
      assert.equal(
        await p.sync({ ...i, cluster: { ...i.cluster }, now: new Date(i.now.getTime() + 60_000) }),
        d1,
        "a new snapshot of the same objects, later",
      );
      assert.notEqual(
        await p.sync({ ...i, cluster: { ...i.cluster, pods: i.cluster.pods.slice(1) } }),
        d1,
        "a pod gone",
      );
      const d2 = await p.sync({ ...i, cluster: { ...i.cluster, pods: i.cluster.pods.slice(1) } });
      assert.notEqual(
        await p.sync({ ...i, cluster: { ...i.cluster, pods: i.cluster.pods.slice(1) }, nominated: new Set(["a"]) }),
        d2,
        "a nomination",
      );
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
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd,
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.equal(child.signal, null, "still running after 60 s: the thread kept the process alive");
    assert.equal(child.status, 0, child.stderr);
    assert.match(child.stdout, /^planned /);
  });

  void it("should start its thread when warmed, once, before any cluster is synced", async () => {
    const t = new PlannerThread({ logger, objects: sourceOf(input(view([]))) });
    try {
      t.warm();
      t.warm();
      assert.equal(t.started, 1);
      const i = input(view([small("a", 1), small("b", 1)]));
      await t.plan(i);
      assert.equal(t.started, 1, "the first pass runs on the warmed thread");
    } finally {
      await t.close();
    }
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
