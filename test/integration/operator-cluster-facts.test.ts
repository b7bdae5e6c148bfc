/**
 * Cluster facts that change under a running operator, on the real environment (apiserver, kwok, moto):
 * the Kubernetes version AMI aliases resolve for (re-read periodically, so an upgrade drifts nodes to
 * the new version's AMIs without a restart), and the Name tag instances get once their Node registered.
 *
 * The test apiserver's version cannot change under a running test, so the operator talks to it through
 * test/harness/version-proxy.ts, which makes /version report the next minor version on demand (as an
 * EKS upgrade would) and passes every other request through unchanged.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DescribeInstancesCommand, RegisterImageCommand } from "@aws-sdk/client-ec2";
import { PutParameterCommand } from "@aws-sdk/client-ssm";
import { startOperator, type RunningOperator } from "../../operator/main.ts";
import { createLogger, silentLogger } from "../../operator/observability/logger.ts";
import { KubeletSim } from "../harness/kubelet-sim.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { VersionProxy } from "../harness/version-proxy.ts";
import { eventually } from "../harness/wait.ts";
import { CLUSTER, K8S_VERSION, SSM_PREFIX, clients } from "./aws-fixtures.ts";
import { operatorConfig } from "./operator-fixtures.ts";
import {
  ON_DEMAND,
  WORKSHOP_FAMILIES,
  createInflate,
  createNodePool,
  nodeClaims,
  prepareCluster,
  runOperatorOnCluster,
  runningPods,
} from "./provisioning-fixtures.ts";

/** The NodeClaim fields these tests read. */
interface ClaimView {
  metadata: { name: string; annotations?: Record<string, string> };
  status?: {
    providerID?: string;
    nodeName?: string;
    imageID?: string;
    conditions?: { type: string; status: string; reason?: string }[];
  };
}

async function claims(env: TestEnvironment): Promise<ClaimView[]> {
  return (await nodeClaims(env)) as unknown as ClaimView[];
}

const hasCondition = (c: ClaimView | undefined, type: string, reason?: string): boolean =>
  (c?.status?.conditions ?? []).some(
    (x) => x.type === type && x.status === "True" && (reason ?? x.reason) === x.reason,
  );
const isReady = (c: ClaimView | undefined): boolean => hasCondition(c, "Ready");

/** The version after the test apiserver's (1.36 → 1.37). */
const NEXT_MINOR = String(Number(K8S_VERSION.split(".")[1]) + 1);
const NEXT_VERSION = `${K8S_VERSION.split(".")[0]}.${NEXT_MINOR}`;

/** Publishes an al2023 x86_64 AMI as the recommended image of `version` (seedAl2023Alias does it for K8S_VERSION). */
async function seedAliasFor(env: TestEnvironment, version: string): Promise<string> {
  const { ec2, ssm } = clients(env.aws());
  const image = await ec2.send(
    new RegisterImageCommand({
      Name: `amazon-eks-node-al2023-x86_64-standard-${version}-v20261201`,
      Architecture: "x86_64",
      RootDeviceName: "/dev/xvda",
      BlockDeviceMappings: [{ DeviceName: "/dev/xvda", Ebs: { VolumeSize: 20 } }],
    }),
  );
  const id = image.ImageId ?? "";
  const name = `${SSM_PREFIX}/eks/optimized-ami/${version}/amazon-linux-2023/x86_64/standard/recommended/image_id`;
  await ssm.send(new PutParameterCommand({ Name: name, Value: id, Type: "String", Overwrite: true }));
  return id;
}

async function instanceTags(env: TestEnvironment, providerID: string): Promise<Record<string, string>> {
  const id = providerID.split("/").at(-1) ?? "";
  const out = await clients(env.aws()).ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }));
  const tags = out.Reservations?.[0]?.Instances?.[0]?.Tags ?? [];
  return Object.fromEntries(tags.map((t) => [t.Key ?? "", t.Value ?? ""]));
}

void describe("cluster facts that change under a running operator", () => {
  let env: TestEnvironment;
  let workdir: string;
  const cleanups: (() => Promise<void>)[] = [];

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    workdir = mkdtempSync(path.join(os.tmpdir(), "kerf-cluster-facts-"));
  });
  after(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    rmSync(workdir, { recursive: true, force: true });
  });

  void it("should drift nodes to the new version's AMIs once the apiserver reports it, without a restart", async () => {
    await env.reset();
    await prepareCluster(env);
    const current = await seedAliasFor(env, K8S_VERSION);
    const next = await seedAliasFor(env, NEXT_VERSION);
    const proxy = await VersionProxy.start({ admin: env.kubeConfig, ca: env.state.ca, dir: workdir });
    cleanups.push(() => proxy.stop());
    const logger = process.env["KERF_TEST_OPERATOR_LOGS"] === "1" ? createLogger("debug") : silentLogger();
    const config = operatorConfig(env, "cluster-facts", { DISABLE_LEADER_ELECTION: "true" });
    const operator: RunningOperator = await startOperator(config, {
      kubeConfig: proxy.kubeConfig(),
      logger,
      serveHttp: false,
      awsCredentials: env.aws().credentials,
      ssmPrefix: SSM_PREFIX,
      kubernetesVersionRefreshMs: 500,
      disruption: { pollMs: 1000, validationDelayMs: 2000 },
    });
    const sim = new KubeletSim({ kubeConfig: env.kubeConfig, aws: env.aws(), clusterName: CLUSTER });
    sim.start();
    cleanups.push(async () => {
      await sim.stop();
      await operator.stop();
    });

    await createNodePool(env, "default", { requirements: [ON_DEMAND, WORKSHOP_FAMILIES] });
    const namespace = await createInflate(env, 1);
    const old = await eventually(
      `a Ready NodeClaim on the ${K8S_VERSION} AMI`,
      async () => {
        const all = await claims(env);
        const c = all[0];
        return all.length === 1 && isReady(c) && c?.status?.imageID === current ? c : undefined;
      },
      90_000,
      250,
    );

    proxy.reportMinor(NEXT_MINOR);
    // The version is re-read within a second; the EC2NodeClass's next status refresh (every minute) resolves
    // the new version's AMIs, and the NodeClaim on the old one drifts.
    await eventually(
      "the NodeClaim on the old AMI is marked Drifted with AMIDrift (or already replaced)",
      async () => {
        const claim = (await claims(env)).find((c) => c.metadata.name === old.metadata.name);
        return claim === undefined || hasCondition(claim, "Drifted", "AMIDrift");
      },
      150_000,
      250,
    );
    await eventually(
      `a NodeClaim on the ${NEXT_VERSION} AMI runs the pod in place of the old one`,
      async () => {
        const all = await claims(env);
        const c = all[0];
        const replaced = c?.metadata.name !== old.metadata.name && c?.status?.imageID === next;
        const ok = all.length === 1 && replaced && isReady(c);
        return ok && (await runningPods(env, namespace)).length === 1;
      },
      120_000,
      250,
    );
  });

  void it("should tag each instance with its Node's name once the node registered, and mark it tagged", async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await env.reset();
    const op = await runOperatorOnCluster(env, "tagging");
    cleanups.push(() => op.stop());
    await createNodePool(env, "default", { requirements: [ON_DEMAND, WORKSHOP_FAMILIES] });
    await createInflate(env, 1);
    const claim = await eventually(
      "a registered NodeClaim marked tagged",
      async () => {
        const c = (await claims(env))[0];
        const tagged = c?.metadata.annotations?.["karpenter.k8s.aws/tagged"] === "true";
        return c?.status?.nodeName !== undefined && tagged ? c : undefined;
      },
      90_000,
      250,
    );
    assert.equal(claim.metadata.annotations?.["compatibility.karpenter.k8s.aws/cluster-name-tagged"], "true");
    const tags = await instanceTags(env, claim.status?.providerID ?? "");
    assert.equal(tags["Name"], claim.status?.nodeName, "DescribeInstances shows the Node's name");
    assert.equal(tags["karpenter.sh/nodeclaim"], claim.metadata.name);
    assert.equal(tags["eks:eks-cluster-name"], CLUSTER);
  });
});
