/**
 * The Argo CD health checks of manifests/argocd/ run by a real Lua 5.1 interpreter (the language of
 * gopher-lua, which Argo CD embeds), in a sandbox like the one Argo CD gives argocd-cm scripts: `obj`
 * global, only the base functions, `table` and a safe `os`, no `string` library. They are evaluated on
 * NodePools, NodeClaims and EC2NodeClasses captured from the real environment at each stage (just
 * created, provisioning, Ready, drifting, rollout held by a budget, spec not yet observed, terminating,
 * broken), then on hand-written objects for the edge cases a cluster rarely shows.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { AppsV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { parse } from "yaml";
import { mergePatch } from "../../operator/adapters/kube/client.ts";
import { ensureBinaries } from "../harness/binaries.ts";
import { createTestNamespace } from "../harness/reset.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { nodeClass } from "./aws-fixtures.ts";
import {
  NODECLAIMS,
  ON_DEMAND,
  WORKSHOP_FAMILIES,
  runOperatorOnCluster,
  type OperatorOnCluster,
} from "./provisioning-fixtures.ts";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const NODEPOOLS = { group: "karpenter.sh", version: "v1", plural: "nodepools" } as const;
const NODECLASSES = { group: "karpenter.k8s.aws", version: "v1", plural: "ec2nodeclasses" } as const;
const FAST = { disruption: { pollMs: 1000, validationDelayMs: 2000 } };

type Kind = "NodePool" | "NodeClaim" | "EC2NodeClass";
const GROUP: Record<Kind, string> = {
  NodePool: "karpenter.sh",
  NodeClaim: "karpenter.sh",
  EC2NodeClass: "karpenter.k8s.aws",
};
const scriptOf = (kind: Kind): string => path.join(ROOT, "manifests", "argocd", GROUP[kind], kind, "health.lua");

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}
interface Obj {
  metadata: {
    name: string;
    generation?: number;
    resourceVersion?: string;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
  };
  status?: { conditions?: Condition[] };
}
interface Health {
  status: string;
  message: string;
}

/**
 * What Argo CD does around a custom health script: `obj` set, libraries limited to base, table and a
 * safe os (util/lua/lua.go opens package, base, table and its safe os when useOpenLibs is false), the
 * returned table read as {status, message}. The string metatable's methods go too: without the string
 * library gopher-lua has none, so `s:find(...)` fails there as it does here.
 */
const SANDBOX =
  `
local check = assert(loadfile(arg[1]))
local object = assert(loadfile(arg[2]))()
local env = { obj = object, table = table, os = { time = os.time, clock = os.clock, date = os.date } }
for _, name in ipairs({ "assert", "error", "getmetatable", "ipairs", "next", "pairs", "pcall", "print", "rawequal",
  "rawget", "rawset", "require", "select", "setmetatable", "tonumber", "tostring", "type", ` +
  `"unpack", "xpcall", "_VERSION" }) do
  env[name] = _G[name]
end
env._G = env
setfenv(check, env)
local strings = getmetatable("")
local methods = strings.__index
strings.__index = nil
local ok, hs = pcall(check)
strings.__index = methods
if not ok then io.stderr:write("lua error: " .. tostring(hs)) os.exit(3) end
if type(hs) ~= "table" then io.stderr:write("expect table output from Lua script, not " .. type(hs)) os.exit(3) end
if type(hs.status) ~= "string" or (hs.message ~= nil and type(hs.message) ~= "string") then
  io.stderr:write("hs.status must be a string and hs.message a string or nil") os.exit(3)
end
io.write(hs.status, "\\n", hs.message or "")
`;

/** A Lua literal for a JSON value, as Argo CD's decodeValue builds it (null → nil, arrays → sequences). */
function luaLiteral(value: unknown): string {
  if (value === null || value === undefined) return "nil";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "nil";
  if (typeof value === "string") {
    // Printable ASCII as is, every other byte as a decimal escape (Lua 5.1 has no \\u).
    const escaped = [...Buffer.from(value, "utf8")]
      .map((b) =>
        b >= 32 && b < 127 && b !== 34 && b !== 92 ? String.fromCharCode(b) : `\\${String(b).padStart(3, "0")}`,
      )
      .join("");
    return `"${escaped}"`;
  }
  if (Array.isArray(value)) return `{${value.map(luaLiteral).join(", ")}}`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `[${luaLiteral(k)}] = ${luaLiteral(v)}`)
    .join(", ")}}`;
}

const VALID = new Set(["Healthy", "Progressing", "Degraded", "Suspended", "Missing", "Unknown"]);
let workdir: Promise<string> | undefined;

/** A scratch directory holding the sandbox and the objects as Lua literals. */
function scratch(): Promise<string> {
  workdir ??= mkdtemp(path.join(tmpdir(), "kerf-argocd-")).then(async (dir) => {
    await writeFile(path.join(dir, "sandbox.lua"), SANDBOX);
    return dir;
  });
  return workdir;
}

/** Runs the health script at `script` on `object` with lua5.1 in the sandbox above. */
async function runScript(script: string, object: unknown): Promise<Health> {
  const dir = await scratch();
  const file = path.join(dir, `object-${process.hrtime.bigint()}.lua`);
  await writeFile(file, `return ${luaLiteral(object)}\n`);
  const { stdout } = await run("lua5.1", [path.join(dir, "sandbox.lua"), script, file]).catch((error: unknown) => {
    const e = error as { code?: unknown; stderr?: string };
    const reason =
      e.code === "ENOENT" ? "lua5.1 is not installed (.ci/testenv/ensure.sh installs it)" : (e.stderr ?? String(error));
    throw new Error(`running ${path.relative(ROOT, script)}: ${reason}`, { cause: error });
  });
  const newline = stdout.indexOf("\n");
  const result = { status: stdout.slice(0, newline), message: stdout.slice(newline + 1) };
  assert.ok(VALID.has(result.status), `health status ${result.status} is one Argo CD accepts`);
  return result;
}

/** The health check of `kind` on `object`. */
const health = (kind: Kind, object: unknown): Promise<Health> => runScript(scriptOf(kind), object);

const find = (o: Obj, type: string): Condition | undefined => o.status?.conditions?.find((c) => c.type === type);
const isTrue = (o: Obj, type: string): boolean => find(o, type)?.status === "True";

async function getObject(env: TestEnvironment, api: typeof NODEPOOLS | typeof NODECLASSES, name: string): Promise<Obj> {
  return (await env.kubeConfig.makeApiClient(CustomObjectsApi).getClusterCustomObject({ ...api, name })) as Obj;
}

async function claimsOf(env: TestEnvironment, pool: string): Promise<Obj[]> {
  const list = (await env.kubeConfig.makeApiClient(CustomObjectsApi).listClusterCustomObject(NODECLAIMS)) as {
    items: Obj[];
  };
  return list.items.filter((c) => c.metadata.labels?.["karpenter.sh/nodepool"] === pool);
}

async function createPool(
  env: TestEnvironment,
  name: string,
  o: { budgets?: object[]; nodeClass?: string } = {},
): Promise<Obj> {
  return (await env.kubeConfig.makeApiClient(CustomObjectsApi).createClusterCustomObject({
    ...NODEPOOLS,
    body: {
      apiVersion: "karpenter.sh/v1",
      kind: "NodePool",
      metadata: { name },
      spec: {
        disruption: {
          consolidationPolicy: "WhenEmpty",
          consolidateAfter: "Never",
          ...(o.budgets === undefined ? {} : { budgets: o.budgets }),
        },
        template: {
          spec: {
            nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: o.nodeClass ?? "default" },
            requirements: [ON_DEMAND, WORKSHOP_FAMILIES],
          },
        },
      },
    },
  })) as Obj;
}

async function relabel(env: TestEnvironment, pool: string, team: string): Promise<Obj> {
  const body = { spec: { template: { metadata: { labels: { team } } } } };
  return (await env.kubeConfig
    .makeApiClient(CustomObjectsApi)
    .patchClusterCustomObject({ ...NODEPOOLS, name: pool, body }, mergePatch)) as Obj;
}

/** A Deployment of pause pods on `pool`'s nodes. */
async function deploy(env: TestEnvironment, pool: string, replicas: number): Promise<void> {
  const namespace = await createTestNamespace(env.kubeConfig, pool);
  const labels = { app: pool };
  await env.kubeConfig.makeApiClient(AppsV1Api).createNamespacedDeployment({
    namespace,
    body: {
      metadata: { name: pool },
      spec: {
        replicas,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            terminationGracePeriodSeconds: 0,
            nodeSelector: { "karpenter.sh/nodepool": pool },
            containers: [
              {
                name: "pause",
                image: "public.ecr.aws/eks-distro/kubernetes/pause:3.7",
                resources: { requests: { memory: "1Gi" } },
              },
            ],
          },
        },
      },
    },
  });
}

/** Every distinct version (by resourceVersion) of the pool's NodeClaims seen while polling until `done`. */
class ClaimRecorder {
  readonly seen = new Map<string, Obj>();
  private readonly env: TestEnvironment;
  private readonly pool: string;
  constructor(env: TestEnvironment, pool: string) {
    this.env = env;
    this.pool = pool;
  }
  async poll(): Promise<Obj[]> {
    const claims = await claimsOf(this.env, this.pool);
    for (const c of claims) this.seen.set(`${c.metadata.name}@${c.metadata.resourceVersion ?? ""}`, c);
    return claims;
  }
  until<T>(what: string, done: (claims: Obj[]) => T | undefined, timeoutMs = 90_000): Promise<T> {
    return eventually(what, async () => done(await this.poll()), timeoutMs, 50);
  }
}

/** What the NodeClaim check must say of a captured claim, from the conditions the operator wrote. */
function expectedClaimHealth(c: Obj): { status: string; message: RegExp } | undefined {
  if (c.metadata.deletionTimestamp !== undefined) return { status: "Progressing", message: /^terminating/ };
  if (isTrue(c, "DisruptionReason"))
    return { status: "Progressing", message: /^being disrupted: DisruptionReason=True/ };
  if (find(c, "Launched")?.reason === "LaunchFailed") return { status: "Degraded", message: /LaunchFailed/ };
  if (!isTrue(c, "Initialized")) return { status: "Progressing", message: /waiting|launched|registered/ };
  if (isTrue(c, "Ready")) return { status: "Healthy", message: /^Ready/ };
  return undefined;
}

/** Checks every recorded claim version; returns how many there were of each health status. */
async function checkClaims(recorder: ClaimRecorder): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const [key, claim] of recorder.seen) {
    const got = await health("NodeClaim", claim);
    const want = expectedClaimHealth(claim);
    if (want !== undefined) {
      assert.equal(got.status, want.status, `${key}: ${JSON.stringify(claim.status?.conditions)} → ${got.message}`);
      assert.match(got.message, want.message, key);
    }
    counts.set(got.status, (counts.get(got.status) ?? 0) + 1);
  }
  return counts;
}

void describe("Argo CD health checks on objects captured from the real cluster", () => {
  let env: TestEnvironment;
  let op: OperatorOnCluster;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    op = await runOperatorOnCluster(env, "argocd-health", {}, FAST);
  });
  after(async () => {
    await op.stop();
  });

  void it("should call an EC2NodeClass Progressing when created or changed, Healthy once resolved and Degraded when its subnets match nothing", async () => {
    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const created = (await custom.createClusterCustomObject({
      ...NODECLASSES,
      body: {
        apiVersion: "karpenter.k8s.aws/v1",
        kind: "EC2NodeClass",
        metadata: { name: "fresh" },
        spec: nodeClass("fresh").spec,
      },
    })) as Obj;
    assert.equal(created.status?.conditions, undefined, "the create response has no status yet");
    assert.deepEqual(await health("EC2NodeClass", created), {
      status: "Progressing",
      message: "waiting for the controller to resolve the EC2NodeClass",
    });

    const ready = await eventually("fresh is Ready", async () => {
      const o = await getObject(env, NODECLASSES, "fresh");
      return isTrue(o, "Ready") ? o : undefined;
    });
    assert.deepEqual(await health("EC2NodeClass", ready), { status: "Healthy", message: "Ready" });

    const changed = (await custom.patchClusterCustomObject(
      { ...NODECLASSES, name: "fresh", body: { spec: { tags: { team: "a" } } } },
      mergePatch,
    )) as Obj;
    assert.equal(changed.metadata.generation, (ready.metadata.generation ?? 0) + 1);
    assert.deepEqual(await health("EC2NodeClass", changed), {
      status: "Progressing",
      message:
        `waiting for the controller to observe generation ${changed.metadata.generation} ` +
        `(${changed.status?.conditions?.[0]?.type} reflects generation ${ready.metadata.generation})`,
    });
    const observed = await eventually("fresh observes its new generation", async () => {
      const o = await getObject(env, NODECLASSES, "fresh");
      return o.status?.conditions?.every((c) => c.observedGeneration === changed.metadata.generation) === true
        ? o
        : undefined;
    });
    assert.equal((await health("EC2NodeClass", observed)).status, "Healthy");

    const spec = {
      ...nodeClass("nosubnets").spec,
      subnetSelectorTerms: [{ tags: { "karpenter.sh/discovery": "no-such-cluster" } }],
    };
    await custom.createClusterCustomObject({
      ...NODECLASSES,
      body: { apiVersion: "karpenter.k8s.aws/v1", kind: "EC2NodeClass", metadata: { name: "nosubnets" }, spec },
    });
    const broken = await eventually("nosubnets is not Ready", async () => {
      const o = await getObject(env, NODECLASSES, "nosubnets");
      return find(o, "Ready")?.status === "False" ? o : undefined;
    });
    const verdict = await health("EC2NodeClass", broken);
    assert.equal(verdict.status, "Degraded");
    assert.match(verdict.message, /^SubnetsReady=False \(SubnetsNotFound\)/);
  });

  void it("should call a NodePool whose EC2NodeClass does not exist Degraded, naming the class", async () => {
    await createPool(env, "orphan", { nodeClass: "missing" });
    const pool = await eventually("orphan reports NodeClassReady", async () => {
      const o = await getObject(env, NODEPOOLS, "orphan");
      return find(o, "NodeClassReady") === undefined ? undefined : o;
    });
    assert.deepEqual(await health("NodePool", pool), {
      status: "Degraded",
      message: 'NodeClassReady=False (NodeClassNotFound): EC2NodeClass "missing" not found',
    });
  });

  void it("should follow a NodePool and its NodeClaims from creation through provisioning and a drift rollout back to Healthy", async (t) => {
    const created = await createPool(env, "journey");
    assert.deepEqual(await health("NodePool", created), {
      status: "Progressing",
      message: "waiting for the controller to report the NodePool's status",
    });
    const ready = await eventually("journey is Ready", async () => {
      const o = await getObject(env, NODEPOOLS, "journey");
      return isTrue(o, "Ready") ? o : undefined;
    });
    assert.equal((await health("NodePool", ready)).status, "Healthy");

    const recorder = new ClaimRecorder(env, "journey");
    await deploy(env, "journey", 2);
    const [first] = await recorder.until("one Ready NodeClaim", (cs) =>
      cs.length === 1 && isTrue(cs[0]!, "Ready") ? cs : undefined,
    );
    assert.equal((await health("NodeClaim", first)).status, "Healthy");

    const bumped = await relabel(env, "journey", "b");
    assert.deepEqual(await health("NodePool", bumped), {
      status: "Progressing",
      message:
        `waiting for the controller to observe generation ${bumped.metadata.generation} ` +
        `(${bumped.status?.conditions?.[0]?.type} reflects generation ${ready.metadata.generation})`,
    });
    const rollouts: Health[] = [];
    const pools: Obj[] = [];
    await eventually(
      "the rollout finishes: one Ready NodeClaim labelled team=b, Drifted=False",
      async () => {
        const pool = await getObject(env, NODEPOOLS, "journey");
        pools.push(pool);
        const claims = await recorder.poll();
        const done =
          claims.length === 1 &&
          claims[0]?.metadata.labels?.["team"] === "b" &&
          isTrue(claims[0], "Ready") &&
          find(pool, "Drifted")?.status === "False";
        return done ? claims : undefined;
      },
      120_000,
      50,
    );
    for (const pool of pools) {
      const drifted = find(pool, "Drifted");
      const stale =
        pool.status?.conditions?.some((c) => (c.observedGeneration ?? Infinity) < (pool.metadata.generation ?? 0)) ===
        true;
      if (stale || drifted?.status !== "True") continue;
      const verdict = await health("NodePool", pool);
      rollouts.push(verdict);
      assert.deepEqual(verdict, { status: "Progressing", message: drifted.message });
    }
    assert.ok(
      rollouts.some((r) => /^1 of [12] NodeClaims drifted/.test(r.message)),
      `the rollout was seen as Progressing: ${rollouts.map((r) => r.message).join(" | ")}`,
    );
    const final = await health("NodePool", pools.at(-1));
    assert.deepEqual(final, { status: "Healthy", message: find(pools.at(-1)!, "Drifted")?.message });

    const counts = await checkClaims(recorder);
    t.diagnostic(
      `NodeClaim versions checked by health status: ${JSON.stringify(Object.fromEntries(counts))}; ` +
        `NodePool rollout messages: ${rollouts.length}`,
    );
    assert.ok(
      (counts.get("Progressing") ?? 0) >= 1,
      `a NodeClaim was seen Progressing before Ready: ${JSON.stringify([...counts])}`,
    );
    assert.ok((counts.get("Healthy") ?? 0) >= 2, `both NodeClaims were seen Healthy: ${JSON.stringify([...counts])}`);
  });

  void it("should keep a NodePool whose drift its budget holds Progressing with the budget's message, and a deleted NodeClaim terminating", async () => {
    await createPool(env, "held", { budgets: [{ nodes: "0" }] });
    await deploy(env, "held", 1);
    const recorder = new ClaimRecorder(env, "held");
    const [claim] = await recorder.until("one Ready NodeClaim", (cs) =>
      cs.length === 1 && isTrue(cs[0]!, "Ready") ? cs : undefined,
    );
    await relabel(env, "held", "b");
    const blocked = await eventually(
      "the rollout is blocked",
      async () => {
        const o = await getObject(env, NODEPOOLS, "held");
        return find(o, "Drifted")?.reason === "RolloutBlocked" ? o : undefined;
      },
      60_000,
      250,
    );
    const verdict = await health("NodePool", blocked);
    assert.deepEqual(verdict, { status: "Progressing", message: find(blocked, "Drifted")?.message });
    assert.match(verdict.message, /^1 of 1 NodeClaims drifted \(0 being replaced\); budget allows 0 now: /);

    const drifted = await recorder.until("the NodeClaim is marked Drifted", (cs) =>
      cs.find((c) => isTrue(c, "Drifted")),
    );
    assert.match((await health("NodeClaim", drifted)).message, /^Ready; Drifted=True \(NodePoolDrifted\)/);

    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const deleting = (await custom.deleteClusterCustomObject({
      ...NODECLAIMS,
      name: claim?.metadata.name ?? "",
    })) as Obj;
    const captured =
      deleting.metadata?.deletionTimestamp === undefined
        ? await recorder.until("the NodeClaim is terminating", (cs) =>
            cs.find((c) => c.metadata.deletionTimestamp !== undefined),
          )
        : deleting;
    assert.equal((await health("NodeClaim", captured)).status, "Progressing");
    assert.match((await health("NodeClaim", captured)).message, /^terminating/);
    await recorder.until("the deleted NodeClaim is gone", (cs) =>
      cs.some((c) => c.metadata.name === claim?.metadata.name) ? undefined : true,
    );
    await checkClaims(recorder);
  });
});

const at = (generation: number, ...conditions: Condition[]): Obj => ({
  metadata: { name: "x", generation },
  status: { conditions },
});
/** A condition; `seen` is [message, observedGeneration]. */
const cond = (
  type: string,
  status: string,
  reason = type,
  ...seen: [message?: string, observedGeneration?: number]
): Condition => {
  const [message = "", observedGeneration] = seen;
  return { type, status, reason, message, ...(observedGeneration === undefined ? {} : { observedGeneration }) };
};
const POOL_OK = [
  cond("ValidationSucceeded", "True", "ValidationSucceeded", "", 2),
  cond("NodeClassReady", "True", "NodeClassReady", "", 2),
  cond("Ready", "True", "Ready", "", 2),
];
const CLASS_OK = [
  "AMIsReady",
  "SubnetsReady",
  "SecurityGroupsReady",
  "InstanceProfileReady",
  "ValidationSucceeded",
].map((t) => cond(t, "True", t, "", 1));
const classWith = (...changed: Condition[]): Condition[] => [
  ...CLASS_OK.map((c) => changed.find((x) => x.type === c.type) ?? c),
  cond("Ready", changed.length === 0 ? "True" : "False", "UnhealthyDependents", "", 1),
];

const CASES: readonly { name: string; kind: Kind; object: unknown; status: string; message: string | RegExp }[] = [
  {
    name: "a NodePool without status",
    kind: "NodePool",
    object: { metadata: { name: "x", generation: 1 } },
    status: "Progressing",
    message: /waiting for the controller/,
  },
  {
    name: "a NodePool with an empty condition list",
    kind: "NodePool",
    object: at(1),
    status: "Progressing",
    message: /waiting for the controller/,
  },
  {
    name: "a NodePool without metadata.generation",
    kind: "NodePool",
    object: { metadata: { name: "x" }, status: { conditions: POOL_OK } },
    status: "Healthy",
    message: "Ready",
  },
  {
    name: "a NodePool whose conditions carry no observedGeneration",
    kind: "NodePool",
    object: at(7, cond("Ready", "True")),
    status: "Healthy",
    message: "Ready",
  },
  {
    name: "a Ready NodePool one generation ahead of one condition",
    kind: "NodePool",
    object: at(3, ...POOL_OK.slice(0, 2).map((c) => ({ ...c, observedGeneration: 3 })), POOL_OK[2]!),
    status: "Progressing",
    message: "waiting for the controller to observe generation 3 (Ready reflects generation 2)",
  },
  {
    name: "a NodePool without a Ready condition",
    kind: "NodePool",
    object: at(2, POOL_OK[0]!),
    status: "Progressing",
    message: "waiting for the NodePool to become Ready",
  },
  {
    name: "a NodePool with Ready=Unknown",
    kind: "NodePool",
    object: at(2, cond("Ready", "Unknown", "AwaitingReconciliation", "", 2)),
    status: "Progressing",
    message: "waiting for the NodePool to become Ready",
  },
  {
    name: "a NodePool that failed validation",
    kind: "NodePool",
    object: at(
      2,
      cond("ValidationSucceeded", "False", "NodePoolValidationFailed", "invalid requirement", 2),
      cond("Ready", "False", "UnhealthyDependents", "", 2),
    ),
    status: "Degraded",
    message: "ValidationSucceeded=False (NodePoolValidationFailed): invalid requirement",
  },
  {
    name: "a NodePool whose EC2NodeClass is not ready yet",
    kind: "NodePool",
    object: at(
      2,
      cond("NodeClassReady", "False", "NodeClassNotReady", 'EC2NodeClass "default" is not ready', 2),
      cond("Ready", "False", "NodeClassNotReady", "NodeClassReady=False", 2),
    ),
    status: "Progressing",
    message: 'NodeClassReady=False (NodeClassNotReady): EC2NodeClass "default" is not ready',
  },
  {
    name: "a NodePool Ready=False with no dependent to explain it",
    kind: "NodePool",
    object: at(2, cond("Ready", "False", "Broken", "something", 2)),
    status: "Degraded",
    message: "Ready=False (Broken): something",
  },
  {
    name: "a NodePool rolling out drift",
    kind: "NodePool",
    object: at(
      2,
      ...POOL_OK,
      cond(
        "Drifted",
        "True",
        "RolloutInProgress",
        "7 of 40 NodeClaims drifted (2 being replaced); budget allows 4 now",
        2,
      ),
    ),
    status: "Progressing",
    message: "7 of 40 NodeClaims drifted (2 being replaced); budget allows 4 now",
  },
  {
    name: "a NodePool whose budget holds the rollout",
    kind: "NodePool",
    object: at(
      2,
      ...POOL_OK,
      cond(
        "Drifted",
        "True",
        "RolloutBlocked",
        "3 of 3 NodeClaims drifted (0 being replaced); budget allows 0 now: budget 0",
        2,
      ),
    ),
    status: "Progressing",
    message: /^3 of 3 NodeClaims drifted .*budget allows 0 now/,
  },
  {
    name: "a NodePool being deleted",
    kind: "NodePool",
    object: { ...at(2, ...POOL_OK), metadata: { name: "x", generation: 3, deletionTimestamp: "2026-01-01T00:00:00Z" } },
    status: "Progressing",
    message: "terminating",
  },
  {
    name: "a NodeClaim without status",
    kind: "NodeClaim",
    object: { metadata: { name: "x", generation: 1 } },
    status: "Progressing",
    message: "waiting for the NodeClaim to be launched",
  },
  {
    name: "a NodeClaim whose launch failed",
    kind: "NodeClaim",
    object: at(1, cond("Launched", "Unknown", "LaunchFailed", "UnauthorizedOperation")),
    status: "Degraded",
    message: "Launched=Unknown (LaunchFailed): UnauthorizedOperation",
  },
  {
    name: "a NodeClaim with Launched=False",
    kind: "NodeClaim",
    object: at(1, cond("Launched", "False", "InsufficientCapacity")),
    status: "Degraded",
    message: "Launched=False (InsufficientCapacity)",
  },
  {
    name: "a NodeClaim whose registration failed",
    kind: "NodeClaim",
    object: at(1, cond("Launched", "True"), cond("Registered", "False", "NodeRegistrationFailed", "taints")),
    status: "Degraded",
    message: "Registered=False (NodeRegistrationFailed): taints",
  },
  {
    name: "a launched NodeClaim",
    kind: "NodeClaim",
    object: at(1, cond("Launched", "True"), cond("Registered", "Unknown")),
    status: "Progressing",
    message: "launched, waiting for the node to register",
  },
  {
    name: "a registered NodeClaim",
    kind: "NodeClaim",
    object: at(1, cond("Launched", "True"), cond("Registered", "True")),
    status: "Progressing",
    message: "registered, waiting for initialization",
  },
  {
    name: "an initialized NodeClaim without Ready",
    kind: "NodeClaim",
    object: at(1, cond("Launched", "True"), cond("Registered", "True"), cond("Initialized", "True")),
    status: "Progressing",
    message: "initialized, waiting for Ready",
  },
  {
    name: "an initialized NodeClaim whose node went not ready",
    kind: "NodeClaim",
    object: at(1, cond("Initialized", "True"), cond("Ready", "False", "NodeNotReady")),
    status: "Degraded",
    message: "Ready=False (NodeNotReady)",
  },
  {
    name: "a Ready NodeClaim",
    kind: "NodeClaim",
    object: at(
      1,
      cond("Launched", "True"),
      cond("Registered", "True"),
      cond("Initialized", "True"),
      cond("Ready", "True"),
    ),
    status: "Healthy",
    message: "Ready",
  },
  {
    name: "a NodeClaim marked for disruption",
    kind: "NodeClaim",
    object: at(
      1,
      cond("Initialized", "True"),
      cond("Ready", "True"),
      cond("DisruptionReason", "True", "Underutilized", "replace: cheaper"),
    ),
    status: "Progressing",
    message: "being disrupted: DisruptionReason=True (Underutilized): replace: cheaper",
  },
  {
    name: "a drained NodeClaim being deleted",
    kind: "NodeClaim",
    object: {
      ...at(1, cond("Initialized", "True"), cond("DisruptionReason", "True", "Drifted"), cond("Drained", "True")),
      metadata: { name: "x", deletionTimestamp: "2026-01-01T00:00:00Z" },
    },
    status: "Progressing",
    message: "terminating (Drifted): drained",
  },
  {
    name: "a NodeClaim deleted before launch",
    kind: "NodeClaim",
    object: { metadata: { name: "x", deletionTimestamp: "2026-01-01T00:00:00Z" } },
    status: "Progressing",
    message: "terminating",
  },
  {
    name: "an EC2NodeClass without conditions",
    kind: "EC2NodeClass",
    object: { metadata: { name: "x", generation: 1 }, status: {} },
    status: "Progressing",
    message: /waiting for the controller/,
  },
  {
    name: "a Ready EC2NodeClass",
    kind: "EC2NodeClass",
    object: at(1, ...classWith()),
    status: "Healthy",
    message: "Ready",
  },
  {
    name: "an EC2NodeClass whose AMI selector matches nothing",
    kind: "EC2NodeClass",
    object: at(
      1,
      ...classWith(cond("AMIsReady", "False", "AMINotFound", "amiSelectorTerms did not match any resource", 1)),
    ),
    status: "Degraded",
    message: "AMIsReady=False (AMINotFound): amiSelectorTerms did not match any resource",
  },
  {
    name: "an EC2NodeClass failing Karpenter's auth check",
    kind: "EC2NodeClass",
    object: at(1, ...classWith(cond("ValidationSucceeded", "False", "RunInstancesAuthCheckFailed", "denied", 1))),
    status: "Degraded",
    message: "ValidationSucceeded=False (RunInstancesAuthCheckFailed): denied",
  },
  {
    name: "an EC2NodeClass whose instance profile is still being created",
    kind: "EC2NodeClass",
    object: at(
      1,
      ...classWith(cond("InstanceProfileReady", "False", "InstanceProfileCreationFailed", "NoSuchEntity", 1)),
    ),
    status: "Progressing",
    message: "retrying: InstanceProfileReady=False (InstanceProfileCreationFailed): NoSuchEntity",
  },
  {
    name: "an EC2NodeClass Ready=False without a failing dependent",
    kind: "EC2NodeClass",
    object: at(1, cond("Ready", "False", "Broken", "", 1)),
    status: "Degraded",
    message: "Ready=False (Broken)",
  },
  {
    name: "an EC2NodeClass with Ready=Unknown",
    kind: "EC2NodeClass",
    object: at(
      1,
      cond("SubnetsReady", "False", "SubnetsNotFound", "", 1),
      cond("Ready", "Unknown", "Reconciling", "", 1),
    ),
    status: "Progressing",
    message: "waiting for the EC2NodeClass to become Ready: SubnetsReady=False (SubnetsNotFound)",
  },
  {
    name: "an EC2NodeClass being deleted",
    kind: "EC2NodeClass",
    object: { metadata: { name: "x", deletionTimestamp: "2026-01-01T00:00:00Z" } },
    status: "Progressing",
    message: /^terminating/,
  },
  {
    name: "an EC2NodeClass whose spec changed since its status",
    kind: "EC2NodeClass",
    object: at(2, ...classWith()),
    status: "Progressing",
    message: "waiting for the controller to observe generation 2 (AMIsReady reflects generation 1)",
  },
  {
    name: "a message with quotes, backslashes and non-ASCII text",
    kind: "NodePool",
    object: at(1, cond("ValidationSucceeded", "False", "Invalid", 'nodes "0" "a\\b" — ü\n', 1)),
    status: "Degraded",
    message: 'ValidationSucceeded=False (Invalid): nodes "0" "a\\b" — ü\n',
  },
];

void describe("Argo CD health checks on hand-written objects", () => {
  before(async () => {
    await ensureBinaries(ROOT);
  });

  for (const c of CASES) {
    void it(`should call ${c.name} ${c.status}`, async () => {
      const got = await health(c.kind, c.object);
      assert.equal(got.status, c.status, got.message);
      if (typeof c.message === "string") assert.equal(got.message, c.message);
      else assert.match(got.message, c.message);
    });
  }

  void it("should ship argocd-cm.yaml with each health.lua verbatim under resource.customizations.health.<group>_<Kind>", async () => {
    const cm = parse(await readFile(path.join(ROOT, "manifests", "argocd", "argocd-cm.yaml"), "utf8")) as {
      data: Record<string, string>;
    };
    const kinds: Kind[] = ["NodePool", "NodeClaim", "EC2NodeClass"];
    assert.deepEqual(
      Object.keys(cm.data).sort(),
      kinds.map((k) => `resource.customizations.health.${GROUP[k]}_${k}`).sort(),
    );
    for (const kind of kinds)
      assert.equal(
        cm.data[`resource.customizations.health.${GROUP[kind]}_${kind}`],
        await readFile(scriptOf(kind), "utf8"),
        kind,
      );
  });

  void it("should fail a script that uses the string library or string methods, as Argo CD's sandbox does", async () => {
    const dir = await scratch();
    for (const [name, expression] of [
      ["library", 'string.upper("Healthy")'],
      ["method", '("Healthy"):upper()'],
    ] as const) {
      const script = path.join(dir, `uses-string-${name}.lua`);
      await writeFile(script, `local hs = {}\nhs.status = ${expression}\nreturn hs\n`);
      await assert.rejects(runScript(script, { metadata: { name: "x" } }), /lua error: .*(string|index)/, name);
    }
  });
});
