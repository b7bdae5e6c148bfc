/**
 * `kerf top` in a terminal (tmux: new-session -d, capture-pane, send-keys) against the real kube-apiserver: a
 * NodePool, NodeClaims and a Node with bound pods created there show up with their figures, and a node whose
 * pool's budget is 0 says so. tmux comes from Debian's packages (installed when missing, as root).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { mergePatch } from "../../operator/adapters/kube/client.ts";
import { builtinCatalog } from "../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../policies/domain/catalog/catalog.ts";
import { createTestNamespace } from "../harness/reset.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { createPool } from "./disruption-fixtures.ts";
import { installKarpenterCrds } from "./operator-fixtures.ts";

const execFileAsync = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const NODECLAIMS = { group: "karpenter.sh", version: "v1", plural: "nodeclaims" } as const;
const session = `kerf-top-${process.pid}`;

function ensureTmux(): string | undefined {
  if (spawnSync("sh", ["-c", "command -v tmux"]).status === 0) return undefined;
  if (process.getuid?.() !== 0) return "no tmux and not root to install it";
  const installed = spawnSync(
    "sh",
    ["-c", "apt-get install -y -qq tmux || (apt-get update -qq && apt-get install -y -qq tmux)"],
    { env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" }, stdio: "ignore" },
  );
  return installed.status === 0 ? undefined : "installing tmux from Debian's packages failed";
}

const skip = ensureTmux();
if (skip !== undefined) process.stdout.write(`# top-tmux: skipped: ${skip}\n`);

const price = (type: string): string => {
  const offering = toInstanceTypes(builtinCatalog("us-east-1"))
    .find((t) => t.name === type)
    ?.offerings.find((o) => o.zone === "us-east-1a" && o.capacityType === "on-demand");
  return `$${(offering?.pricePerHour ?? Number.NaN).toFixed(4)}/h`;
};

async function createMachine(env: TestEnvironment, name: string, pool: string, withNode: boolean): Promise<void> {
  const labels = {
    "karpenter.sh/nodepool": pool,
    "node.kubernetes.io/instance-type": "m5.large",
    "topology.kubernetes.io/zone": "us-east-1a",
    "topology.kubernetes.io/region": "us-east-1",
    "karpenter.sh/capacity-type": "on-demand",
  };
  const providerID = `aws:///us-east-1a/i-${name}`;
  const objects = env.kubeConfig.makeApiClient(CustomObjectsApi);
  await objects.createClusterCustomObject({
    ...NODECLAIMS,
    body: {
      apiVersion: "karpenter.sh/v1",
      kind: "NodeClaim",
      metadata: { name, labels },
      spec: { nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" }, requirements: [] },
    },
  });
  const now = new Date(Date.now() - 3_600_000).toISOString();
  const conditions = [
    ["Launched", "True"],
    ...(withNode
      ? [
          ["Registered", "True"],
          ["Initialized", "True"],
          ["Consolidatable", "True"],
        ]
      : []),
  ].map(([type, status]) => ({ type, status, reason: type, message: "", lastTransitionTime: now }));
  await objects.patchClusterCustomObjectStatus(
    {
      ...NODECLAIMS,
      name,
      body: {
        status: {
          conditions,
          ...(withNode ? { providerID, nodeName: name } : {}),
        },
      },
    },
    mergePatch,
  );
  if (!withNode) return;
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  await core.createNode({ body: { metadata: { name, labels }, spec: { providerID } } });
  await core.patchNodeStatus(
    {
      name,
      body: {
        status: {
          allocatable: { cpu: "1930m", memory: "7220Mi", pods: "29" },
          capacity: { cpu: "2", memory: "8Gi", pods: "29" },
          conditions: [
            {
              type: "Ready",
              status: "True",
              reason: "KubeletReady",
              message: "",
              lastHeartbeatTime: now,
              lastTransitionTime: now,
            },
          ],
        },
      },
    },
    mergePatch,
  );
}

async function capture(): Promise<string> {
  return (await execFileAsync("tmux", ["capture-pane", "-p", "-t", session])).stdout;
}

void describe("kerf top on a real apiserver, in tmux", { skip }, () => {
  let env: TestEnvironment;

  before(async () => {
    env = await useEnvironment({ kwok: false, moto: false });
    await installKarpenterCrds(env);
    await createPool(env, "top-web");
    await createPool(env, "top-frozen", { budgets: [{ nodes: "0" }] });
    await createMachine(env, "top-web-1", "top-web", true);
    await createMachine(env, "top-frozen-1", "top-frozen", true);
    await createMachine(env, "top-web-2", "top-web", false);
    const ns = await createTestNamespace(env.kubeConfig, "top");
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    for (let i = 0; i < 2; i += 1) {
      await core.createNamespacedPod({
        namespace: ns,
        body: {
          metadata: { name: `web-${i}` },
          spec: {
            nodeName: "top-web-1",
            containers: [{ name: "c", image: "pause", resources: { requests: { cpu: "500m", memory: "1Gi" } } }],
          },
        },
      });
    }
  });

  after(async () => {
    await execFileAsync("tmux", ["kill-session", "-t", session]).catch(() => undefined);
  });

  void it("shows the NodePools, nodes with their requests and $/h, budgets and NodeClaims without a node", async () => {
    const command =
      `KUBECONFIG=${env.state.kubeconfig} ${process.execPath} ` +
      `${path.join(root, "webhook/cli/kerf.mjs")} top --interval 1`;
    await execFileAsync("tmux", ["new-session", "-d", "-s", session, "-x", "220", "-y", "40", command]);
    const screen = await eventually(
      "kerf top showing top-web-1 with its pods",
      async () => {
        const text = await capture();
        return /top-web-1 .* 2 +\$/.test(text) ? text : false;
      },
      60_000,
      250,
    );
    const line = (start: string): string => screen.split("\n").find((l) => l.startsWith(start)) ?? "";
    assert.match(line("top-web-1 "), /m5\.large\s+on-demand\s+us-east-1a\s+\[#+\.*\]\s+52% 1\/1930m/, screen);
    assert.ok(line("top-web-1 ").includes(price("m5.large")), screen);
    assert.match(line("top-frozen-1 "), /empty: budget allows 0 now$/, screen);
    assert.match(line("top-frozen "), /Empty 0\/1/, screen);
    assert.match(line("top-web-2 "), /top-web\s+m5\.large\s+Launched/, screen);
    assert.match(
      screen.split("\n")[0] ?? "",
      new RegExp(`2 nodes\\s+\\$${(2 * Number(price("m5.large").slice(1, -2))).toFixed(4)}/h`),
    );
    await execFileAsync("tmux", ["send-keys", "-t", session, "C-c"]);
    await eventually(
      "kerf top stopped by Ctrl-C",
      async () => {
        const { stdout } = await execFileAsync("tmux", [
          "list-panes",
          "-t",
          session,
          "-F",
          "#{pane_dead} #{pane_current_command}",
        ]).catch(() => ({ stdout: "gone" }));
        return stdout.startsWith("gone") || stdout.startsWith("1") || !stdout.includes("node");
      },
      30_000,
      250,
    );
  });
});
