/**
 * `kerf check --diff --cluster` on the real environment: the operator launches NodeClaims for a NodePool,
 * then the preview is run against modified NodePool and EC2NodeClass files with the test kubeconfig and
 * must count exactly the live NodeClaims the change drifts — none for a limits change (which also proves
 * the files' objects, defaulted by the CLI, hash as the operator hashed the live ones), all for a template
 * label or a role change, and those of the excluded family for narrowed requirements.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { AppsV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { runCheck } from "../../webhook/cli/check.ts";
import { capture } from "../../webhook/cli/captured-io.ts";
import { createTestNamespace } from "../harness/reset.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { nodeClass } from "./aws-fixtures.ts";
import {
  nodeClaims,
  ON_DEMAND,
  runOperatorOnCluster,
  WORKSHOP_FAMILIES,
  type Claim,
  type OperatorOnCluster,
} from "./provisioning-fixtures.ts";

const POOL = "preview";
const REPLICAS = 3;

const poolObject = (o: { team?: string; cpu?: string; families?: string[] } = {}): object => ({
  apiVersion: "karpenter.sh/v1",
  kind: "NodePool",
  metadata: { name: POOL },
  spec: {
    limits: { cpu: o.cpu ?? "100", memory: "400Gi" },
    disruption: { consolidationPolicy: "WhenEmpty", consolidateAfter: "1h", budgets: [{ nodes: "1" }] },
    template: {
      metadata: { labels: { team: o.team ?? "a" } },
      spec: {
        nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
        requirements: [ON_DEMAND, { ...WORKSHOP_FAMILIES, values: o.families ?? WORKSHOP_FAMILIES.values }],
      },
    },
  },
});

const classObject = (role?: string): object => {
  const c = nodeClass("default", role === undefined ? {} : { role });
  return { apiVersion: "karpenter.k8s.aws/v1", kind: "EC2NodeClass", metadata: { name: "default" }, spec: c.spec };
};

/** REPLICAS pause pods on the pool, one per node. */
async function spread(env: TestEnvironment): Promise<void> {
  const namespace = await createTestNamespace(env.kubeConfig, POOL);
  const labels = { app: POOL };
  await env.kubeConfig.makeApiClient(AppsV1Api).createNamespacedDeployment({
    namespace,
    body: {
      metadata: { name: POOL },
      spec: {
        replicas: REPLICAS,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            terminationGracePeriodSeconds: 0,
            nodeSelector: { "karpenter.sh/nodepool": POOL },
            affinity: {
              podAntiAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: [
                  { topologyKey: "kubernetes.io/hostname", labelSelector: { matchLabels: labels } },
                ],
              },
            },
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

const stamped = (c: Claim & { metadata: { annotations?: Record<string, string> } }): boolean =>
  c.metadata.annotations?.["karpenter.sh/nodepool-hash-version"] === "kerf-1" &&
  c.metadata.annotations["karpenter.k8s.aws/ec2nodeclass-hash-version"] === "kerf-2" &&
  (c.status?.conditions?.some((x) => x.type === "Initialized" && x.status === "True") ?? false);

interface Live {
  nodePool: string;
  nodeClaims: number;
  budgetNodes: number;
  drifting: number;
  byReason: Record<string, number>;
  otherHashVersion: number;
}
interface Preview {
  changed: {
    kind: string;
    replaces: string;
    nodePools: string[];
    live?: Live[];
    pacing: { waves?: { nodes: number; drifting: number; perWave: number; waves: number } }[];
  }[];
}

void describe("kerf check --diff --cluster on the real environment", () => {
  let env: TestEnvironment;
  let op: OperatorOnCluster;
  let claims: Claim[] = [];
  let dir = "";
  const cwd = process.cwd();

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    op = await runOperatorOnCluster(env, "drift-preview");
    await env.kubeConfig
      .makeApiClient(CustomObjectsApi)
      .createClusterCustomObject({ group: "karpenter.sh", version: "v1", plural: "nodepools", body: poolObject() });
    await spread(env);
    claims = await eventually(
      `${REPLICAS} initialized NodeClaims of ${POOL} stamped with kerf's hashes`,
      async () => {
        const mine = (await nodeClaims(env)).filter((c) => c.metadata.labels?.["karpenter.sh/nodepool"] === POOL);
        return mine.length === REPLICAS && mine.every(stamped) ? mine : undefined;
      },
      90_000,
      250,
    );
    dir = mkdtempSync(path.join(os.tmpdir(), "kerf-preview-"));
  });
  after(async () => {
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
    await op.stop();
  });

  /** Runs the preview of `next` against the objects as created, in the working directory of the new files. */
  async function preview(
    next: { pool?: object; nodeClass?: object; paths?: string[] },
    format = "json",
  ): Promise<{ code: number; out: string }> {
    const [oldDir, newDir] = [mkdtempSync(path.join(dir, "old-")), mkdtempSync(path.join(dir, "new-"))];
    writeFileSync(path.join(oldDir, "pool.json"), JSON.stringify(poolObject()));
    writeFileSync(path.join(oldDir, "class.json"), JSON.stringify(classObject()));
    writeFileSync(path.join(newDir, "pool.json"), JSON.stringify(next.pool ?? poolObject()));
    writeFileSync(path.join(newDir, "class.json"), JSON.stringify(next.nodeClass ?? classObject()));
    process.chdir(newDir);
    const c = capture();
    const code = await runCheck(
      [
        "--diff",
        oldDir,
        "--cluster",
        "--kubeconfig",
        env.state.kubeconfig,
        "--format",
        format,
        ...(next.paths ?? ["."]),
      ],
      c.io,
    );
    process.chdir(cwd);
    assert.equal(c.err(), "");
    return { code, out: c.out() };
  }

  const json = async (next: { pool?: object; nodeClass?: object; paths?: string[] }): Promise<Preview> => {
    const { code, out } = await preview(next);
    assert.equal(code, 0);
    return (JSON.parse(out) as { driftPreview: Preview }).driftPreview;
  };

  void it("counts no drifting NodeClaim when only the limits change", async () => {
    const p = await json({ pool: poolObject({ cpu: "200" }) });
    assert.deepEqual(
      p.changed.map((o) => [o.kind, o.replaces]),
      [["NodePool", "none"]],
    );
    assert.deepEqual(p.changed[0]?.live?.[0], {
      nodePool: POOL,
      nodeClaims: REPLICAS,
      budgetNodes: REPLICAS,
      drifting: 0,
      byReason: {},
      otherHashVersion: 0,
      alreadyDrifted: 0,
    });
  });

  void it("counts every NodeClaim for a template label change, paced one at a time", async () => {
    const p = await json({ pool: poolObject({ team: "b" }) });
    const [o] = p.changed;
    assert.equal(o?.replaces, "all");
    assert.deepEqual([o?.live?.[0]?.drifting, o?.live?.[0]?.byReason], [REPLICAS, { NodePoolDrifted: REPLICAS }]);
    assert.deepEqual(o?.pacing[0]?.waves, { nodes: REPLICAS, drifting: REPLICAS, perWave: 1, waves: REPLICAS });
    const text = await preview({ pool: poolObject({ team: "b" }) }, "text");
    assert.match(
      text.out,
      new RegExp(
        `live NodePool/${POOL}: ${REPLICAS} NodeClaims, ${REPLICAS} would drift \\(NodePoolDrifted ${REPLICAS}\\)`,
      ),
    );
    assert.match(
      text.out,
      new RegExp(`with ${REPLICAS} nodes \\(${REPLICAS} drifting\\): ${REPLICAS} waves of at most 1`),
    );
  });

  void it("counts the NodeClaims of the family narrowed requirements exclude", async () => {
    const family = (c: Claim): string => c.metadata.labels?.["karpenter.k8s.aws/instance-family"] ?? "";
    const excluded = family(claims[0]!);
    const p = await json({ pool: poolObject({ families: WORKSHOP_FAMILIES.values.filter((f) => f !== excluded) }) });
    const expected = claims.filter((c) => family(c) === excluded).length;
    assert.ok(expected >= 1);
    assert.equal(p.changed[0]?.replaces, "some");
    assert.deepEqual(p.changed[0]?.live?.[0]?.byReason, { RequirementsDrifted: expected });
  });

  void it("counts every NodeClaim launched from an EC2NodeClass whose role changes, and finds its NodePool in the cluster", async () => {
    const p = await json({ nodeClass: classObject("OtherNodeRole"), paths: ["class.json"] });
    const [o] = p.changed;
    assert.deepEqual([o?.kind, o?.replaces, o?.nodePools], ["EC2NodeClass", "all", [POOL]]);
    assert.deepEqual(o?.live?.[0]?.byReason, { NodeClassDrift: REPLICAS });
  });
});
