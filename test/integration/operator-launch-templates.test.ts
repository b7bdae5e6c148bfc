/**
 * Launch templates under a running operator, on the real environment (apiserver, kwok, moto): ten AMI
 * releases, each drifting the node to a replacement launched from a new template, leave only the
 * template in use once the in-flight grace has passed.
 *
 * The grace is 2 minutes of the operator's clock: the test runs the operator on a clock it moves forward
 * (real time plus an offset) instead of waiting, and pokes the EC2NodeClass (an annotation) so the status
 * refresh and the launch-template GC look at once instead of at their next minute.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { DescribeLaunchTemplatesCommand } from "@aws-sdk/client-ec2";
import { CustomObjectsApi } from "@kubernetes/client-node";
import { mergePatch } from "../../operator/adapters/kube/client.ts";
import { LAUNCH_TEMPLATE_IN_FLIGHT_GRACE_MS as GRACE } from "../../operator/core/launch-template/garbage-collection.ts";
import { startOperator } from "../../operator/main.ts";
import { createLogger, silentLogger } from "../../operator/observability/logger.ts";
import { KubeletSim } from "../harness/kubelet-sim.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { CLUSTER, K8S_VERSION, SSM_PREFIX, clients, seedAl2023Alias } from "./aws-fixtures.ts";
import { operatorConfig } from "./operator-fixtures.ts";
import {
  ON_DEMAND,
  WORKSHOP_FAMILIES,
  createInflate,
  createNodePool,
  prepareCluster,
  runningPods,
} from "./provisioning-fixtures.ts";

const NODECLASSES = { group: "karpenter.k8s.aws", version: "v1", plural: "ec2nodeclasses" } as const;
const NODECLAIMS = { group: "karpenter.sh", version: "v1", plural: "nodeclaims" } as const;

interface ClaimView {
  metadata: { name: string; deletionTimestamp?: string };
  status?: { imageID?: string; conditions?: { type: string; status: string }[] };
}

const ready = (c: ClaimView | undefined): boolean =>
  (c?.status?.conditions ?? []).some((x) => x.type === "Ready" && x.status === "True");

void describe("launch templates under a running operator", () => {
  let env: TestEnvironment;
  const cleanups: (() => Promise<void>)[] = [];

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
  });
  after(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function claims(): Promise<ClaimView[]> {
    const list = await env.kubeConfig.makeApiClient(CustomObjectsApi).listClusterCustomObject(NODECLAIMS);
    return (list as { items: ClaimView[] }).items;
  }

  /** The cluster's launch templates by the AMI their origin tag names. */
  async function templates(): Promise<{ name: string; imageId: string }[]> {
    const filter = { Name: "tag:karpenter.k8s.aws/cluster", Values: [CLUSTER] };
    const { ec2 } = clients(env.aws());
    const out = await ec2.send(new DescribeLaunchTemplatesCommand({ Filters: [filter], MaxResults: 200 }));
    return (out.LaunchTemplates ?? []).map((t) => ({
      name: t.LaunchTemplateName ?? "",
      imageId: t.Tags?.find((tag) => tag.Key === "kerf.dev/image-id")?.Value ?? "",
    }));
  }

  /** An annotation change: the EC2NodeClass's status refresh and the launch-template GC run now. */
  async function poke(value: string): Promise<void> {
    const body = { metadata: { annotations: { "kerf.test/poke": value } } };
    const api = env.kubeConfig.makeApiClient(CustomObjectsApi);
    await api.patchClusterCustomObject({ ...NODECLASSES, name: "default", body }, mergePatch);
  }

  void it("should keep only the template in use after ten AMI releases drift the node, past the grace", async (t) => {
    await env.reset();
    await prepareCluster(env);
    let offset = 0;
    const logger = process.env["KERF_TEST_OPERATOR_LOGS"] === "1" ? createLogger("debug") : silentLogger();
    const config = operatorConfig(env, "launch-templates", { DISABLE_LEADER_ELECTION: "true" });
    const operator = await startOperator(config, {
      kubeConfig: env.kubeConfig,
      logger,
      serveHttp: false,
      awsCredentials: env.aws().credentials,
      ssmPrefix: SSM_PREFIX,
      clock: { now: () => new Date(Date.now() + offset) },
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
    await eventually("a Ready NodeClaim", async () => (await claims()).some(ready), 90_000, 250);

    const atReplacement: number[] = [];
    const afterGrace: number[] = [];
    const started = Date.now();
    for (let n = 1; n <= 10; n++) {
      const version = `v2028${String(n).padStart(4, "0")}`;
      const name = `amazon-eks-node-al2023-x86_64-standard-${K8S_VERSION}-${version}`;
      const ami = await seedAl2023Alias(env.aws(), "x86_64", name);
      await poke(`release-${n}`);
      await eventually(
        `release ${n}: the pod runs on a Ready NodeClaim on ${ami}, the drifted one gone`,
        async () => {
          const all = await claims();
          const claim = all.length === 1 ? all[0] : undefined;
          const live = claim?.metadata.deletionTimestamp === undefined && ready(claim);
          const replaced = live && claim?.status?.imageID === ami;
          return replaced && (await runningPods(env, namespace)).length === 1;
        },
        120_000,
        250,
      );
      atReplacement.push((await templates()).length);
      // No launch for the grace: the replaced release's template can no longer be in any CreateFleet.
      offset += GRACE + 1000;
      await poke(`gc-${n}`);
      const left = await eventually(
        `release ${n}: only the template of ${ami} is left`,
        async () => {
          const all = await templates();
          return all.length === 1 && all[0]?.imageId === ami ? all : undefined;
        },
        60_000,
        250,
      );
      afterGrace.push(left.length);
    }
    const figures = `at each replacement: ${atReplacement.join(", ")}; past the grace: ${afterGrace.join(", ")}`;
    assert.ok(
      atReplacement.every((c) => c <= 2),
      figures,
    );
    t.diagnostic(`templates ${figures}`);
    t.diagnostic(`ten releases drifted and collected in ${Math.round((Date.now() - started) / 1000)} s`);
  });
});
