/**
 * The operator as a platform team runs it: the released image (built from the Dockerfile without a daemon, see
 * test/harness/release-image.ts), started with the rendered kerf chart's Deployment — its command and args, its
 * environment, the pod's user — against the test environment (kube-apiserver, kwok's kubelet simulation, moto).
 * The kubelet's part is played as well: the ServiceAccount token, `ca.crt` and `namespace` mounted where a pod has
 * them and KUBERNETES_SERVICE_HOST/PORT set, so the operator finds the cluster by in-cluster configuration and
 * acts with nothing but the chart's RBAC. Only the AWS endpoint (moto), fake AWS keys in place of IRSA and the
 * ports (the host's network is shared) are the test's.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { CoordinationV1Api, CustomObjectsApi, type V1Deployment } from "@kubernetes/client-node";
import { DescribeImagesCommand, EC2Client } from "@aws-sdk/client-ec2";
import { KubeletSim } from "../harness/kubelet-sim.ts";
import { CI_VALUES, component, renderChart } from "../harness/chart.ts";
import { containerEnvironment, deploymentContainer, only } from "../harness/manifests.ts";
import { freePorts } from "../harness/ports.ts";
import { get } from "../harness/probes.ts";
import {
  containerToolUnavailable,
  openReleaseImage,
  startInImage,
  type ImageContainer,
} from "../harness/release-image.ts";
import { createTestNamespace } from "../harness/reset.ts";
import { operatorAccount, removeOperatorAccount } from "../harness/server-side-apply.ts";
import type { ManifestObject } from "../harness/manifests.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { CLUSTER } from "./aws-fixtures.ts";
import {
  ON_DEMAND,
  WORKSHOP_FAMILIES,
  createNodePool,
  prepareCluster,
  podOnReadyClaim,
  deleteClaimUntilGone,
  runningInstanceOf,
} from "./provisioning-fixtures.ts";

const root = path.resolve(import.meta.dirname, "../..");
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string };
const RELEASE = `kerf-image-${process.pid}`;
/**
 * Where the kubelet mounts a pod's ServiceAccount token; @kubernetes/client-node's in-cluster loader reads it as
 * /var/run/…, a symlink to /run in the image, which buildah's chroot mounts do not follow.
 */
const SERVICE_ACCOUNT_DIR = "/run/secrets/kubernetes.io/serviceaccount";

const skip = containerToolUnavailable();
if (skip !== undefined) process.stdout.write(`# release-image-operator: skipped: ${skip}\n`);

/** The AMI prepareCluster registered: the image's operator reads AWS's own SSM paths, which moto does not hold. */
async function registeredAmi(env: TestEnvironment): Promise<string> {
  const aws = env.aws();
  const ec2 = new EC2Client({ endpoint: aws.endpoint, region: aws.region, credentials: aws.credentials });
  const images =
    (
      await ec2.send(
        new DescribeImagesCommand({
          Owners: ["self"],
          Filters: [{ Name: "name", Values: ["amazon-eks-node-al2023-x86_64-standard-*"] }],
        }),
      )
    ).Images ?? [];
  const id = images[0]?.ImageId;
  if (id === undefined) throw new Error("prepareCluster registered no AL2023 AMI in moto");
  return id;
}

void describe("the operator in the release image, started as the rendered chart's Deployment", { skip }, () => {
  let env: TestEnvironment;
  let image: ImageContainer | undefined;
  let namespace: string;
  let workdir: string;
  let sim: KubeletSim | undefined;
  let stopOperator: (() => void) | undefined;
  const outliving: ManifestObject[] = [];

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    namespace = await createTestNamespace(env.kubeConfig, "kerf-image-operator");
    workdir = mkdtempSync(path.join(os.tmpdir(), "kerf-image-operator-"));
    image = await openReleaseImage();
  });
  after(async () => {
    stopOperator?.();
    await sim?.stop();
    await removeOperatorAccount(env.kubeConfig, outliving);
    await image?.remove();
    rmSync(workdir, { recursive: true, force: true });
  });

  void it("provisions, registers, drains and terminates a node on the chart's RBAC, then exits on SIGTERM", async () => {
    const opened = image;
    assert.ok(opened !== undefined);
    await prepareCluster(env);
    await env.kubeConfig.makeApiClient(CustomObjectsApi).patchClusterCustomObject({
      group: "karpenter.k8s.aws",
      version: "v1",
      plural: "ec2nodeclasses",
      name: "default",
      body: [
        { op: "replace", path: "/spec/amiSelectorTerms", value: [{ id: await registeredAmi(env) }] },
        { op: "add", path: "/spec/amiFamily", value: "AL2023" },
      ],
    });
    await createNodePool(env, "default", { requirements: [ON_DEMAND, WORKSHOP_FAMILIES] });

    const set = {
      "settings.clusterName": CLUSTER,
      "settings.region": env.aws().region,
      "settings.clusterEndpoint": env.state.apiserverUrl,
      logLevel: "debug",
    };
    const shipped = component(await renderChart({ release: RELEASE, namespace, values: [CI_VALUES], set }), "operator");
    const account = await operatorAccount(env.kubeConfig, shipped, namespace, env.state.apiserverUrl);
    outliving.push(...account.outliving);

    const deployment = only<V1Deployment>(shipped, "Deployment");
    const container = deploymentContainer(deployment, "controller");
    assert.match(
      container.image ?? "",
      new RegExp(`:${pkg.version.replaceAll(".", "\\.")}$`),
      "the chart's default image tag is the release's version",
    );
    const [metricsPort = 0, healthPort = 0] = await freePorts(2);
    const command = [...(container.command ?? []), ...(container.args ?? [])].map((a) =>
      a
        .replace(/^--metrics-port=\d+$/, `--metrics-port=${metricsPort}`)
        .replace(/^--health-probe-port=\d+$/, `--health-probe-port=${healthPort}`),
    );
    const security = deployment.spec?.template.spec?.securityContext;
    assert.ok(security?.runAsUser !== undefined && security.runAsGroup !== undefined, "the pod sets its user");

    // What the kubelet gives the pod: the projected ServiceAccount volume, readable by the pod's user.
    const mounted = path.join(workdir, "serviceaccount");
    mkdirSync(mounted);
    writeFileSync(path.join(mounted, "token"), account.token);
    writeFileSync(path.join(mounted, "ca.crt"), readFileSync(env.state.ca.cert));
    writeFileSync(path.join(mounted, "namespace"), namespace);
    for (const file of ["token", "ca.crt", "namespace"]) chmodSync(path.join(mounted, file), 0o644);
    chmodSync(workdir, 0o755);
    chmodSync(mounted, 0o755);
    const apiserver = new URL(env.state.apiserverUrl);
    const identity = `${RELEASE}-operator-0`;
    const environment = {
      ...containerEnvironment(container, [], { name: identity, namespace }),
      KUBERNETES_SERVICE_HOST: apiserver.hostname,
      KUBERNETES_SERVICE_PORT: apiserver.port,
      AWS_ENDPOINT_URL: env.aws().endpoint,
      AWS_ACCESS_KEY_ID: env.aws().credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: env.aws().credentials.secretAccessKey,
    };
    const operator = startInImage(opened, command, {
      env: environment,
      volumes: [`${mounted}:${SERVICE_ACCOUNT_DIR}:ro`],
      user: `${security.runAsUser}:${security.runAsGroup}`,
    });
    stopOperator = operator.stop;
    const said = (): string => operator.output().split("\n").slice(-30).join("\n");
    // An operator that exits ends the wait at once, with what it printed.
    await eventually(
      "the operator in the image to report ready",
      async () => {
        if (operator.child.exitCode !== null)
          throw new Error(`the operator exited ${operator.child.exitCode}: ${said()}`);
        return (await get(`http://127.0.0.1:${healthPort}/readyz`).catch(() => ({ status: 0 }))).status === 200;
      },
      120_000,
      250,
    ).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; operator: ${said()}`);
    });

    sim = new KubeletSim({ kubeConfig: env.kubeConfig, aws: env.aws(), clusterName: CLUSTER });
    sim.start();
    const workload = await createTestNamespace(env.kubeConfig, "image-workload");
    const claim = await podOnReadyClaim(env, workload, "web", 90_000).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; operator: ${said()}`);
    });
    await runningInstanceOf(env, claim);
    await deleteClaimUntilGone(env, claim, workload, 90_000).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; operator: ${said()}`);
    });

    const page = (await get(`http://127.0.0.1:${metricsPort}/metrics`)).body;
    assert.match(
      page,
      /^karpenter_nodeclaims_created_total(\{[^}]*\})? [1-9]/m,
      "the image's operator counts its launch",
    );
    const lines = operator
      .output()
      .split("\n")
      .filter((l) => l.startsWith("{"));
    assert.ok(lines.length > 0, "the operator logs JSON lines");
    assert.deepEqual(
      lines.filter((l) => /forbidden|unauthorized|\b403\b/i.test(l)),
      [],
      "no request was denied",
    );

    const leases = env.kubeConfig.makeApiClient(CoordinationV1Api);
    const lease = { name: "karpenter-leader-election", namespace };
    assert.equal(
      (await leases.readNamespacedLease(lease)).spec?.holderIdentity,
      identity,
      "the pod name holds the Lease",
    );
    // SIGTERM, as the kubelet stops a pod: the operator releases the Lease for a prompt takeover, then exits.
    operator.terminate();
    await eventually(
      "the operator to exit on SIGTERM",
      () => operator.child.exitCode !== null || operator.child.signalCode !== null,
      60_000,
    );
    assert.equal((await leases.readNamespacedLease(lease)).spec?.holderIdentity ?? "", "", `released: ${said()}`);
    assert.equal(operator.child.exitCode, 0, "the operator, and so buildah run, exits 0 after SIGTERM");
  });
});
