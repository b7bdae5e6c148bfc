/**
 * Shared set-up for the operator-* integration tests: the generated CRDs, a config,
 * and in-process operator replicas.
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import type { V1CustomResourceDefinition } from "@kubernetes/client-node";
import { loadConfig, type OperatorConfig } from "../../operator/config.ts";
import { startOperator, type OperatorOverrides, type RunningOperator } from "../../operator/main.ts";
import { createLogger, silentLogger } from "../../operator/observability/logger.ts";
import { installCrds } from "../harness/crds.ts";
import type { TestEnvironment } from "../harness/use-environment.ts";
import { CLUSTER, SSM_PREFIX } from "./aws-fixtures.ts";

/** Installs manifests/crds (NodePool, NodeClaim, EC2NodeClass). */
export async function installKarpenterCrds(env: TestEnvironment): Promise<void> {
  const files = [
    "karpenter.sh_nodepools.yaml",
    "karpenter.sh_nodeclaims.yaml",
    "karpenter.k8s.aws_ec2nodeclasses.yaml",
  ];
  const crds = files.map(
    (f) =>
      parse(readFileSync(new URL(`../../manifests/crds/${f}`, import.meta.url), "utf8")) as V1CustomResourceDefinition,
  );
  await installCrds(env.kubeConfig, crds);
}

/** Installs manifests/crds' NodeOverlay (karpenter.sh/v1alpha1), needed only with the NodeOverlay gate on. */
export async function installNodeOverlayCrd(env: TestEnvironment): Promise<void> {
  const crd = parse(
    readFileSync(new URL("../../manifests/crds/karpenter.sh_nodeoverlays.yaml", import.meta.url), "utf8"),
  ) as V1CustomResourceDefinition;
  await installCrds(env.kubeConfig, [crd]);
}

/**
 * A config for a test replica: fast leader election, moto endpoint, and the test apiserver as the
 * endpoint nodes join with (moto holds no EKS cluster to discover it from; `CLUSTER_ENDPOINT: ""`
 * in `extra` makes the replica discover it).
 */
export function operatorConfig(
  env: TestEnvironment,
  identity: string,
  extra: Record<string, string> = {},
): OperatorConfig {
  const aws = env.aws();
  return loadConfig({
    argv: [],
    env: {
      CLUSTER_NAME: CLUSTER,
      AWS_REGION: aws.region,
      AWS_ENDPOINT_URL: aws.endpoint,
      CLUSTER_ENDPOINT: env.state.apiserverUrl,
      LEADER_ELECTION_NAMESPACE: "default",
      LEADER_ELECTION_IDENTITY: identity,
      LEADER_ELECTION_NAME: "kerf-test-leader",
      LEADER_ELECTION_LEASE_DURATION: "3s",
      LEADER_ELECTION_RENEW_DEADLINE: "2s",
      LEADER_ELECTION_RETRY_PERIOD: "250ms",
      ...extra,
    },
  });
}

/** Starts one in-process replica against the test environment. */
export function replica(
  env: TestEnvironment,
  identity: string,
  extra: Record<string, string> = {},
  overrides: Pick<OperatorOverrides, "disruption" | "catalogRefreshMs"> = {},
): Promise<RunningOperator> {
  return startOperator(operatorConfig(env, identity, extra), {
    ...overrides,
    kubeConfig: env.kubeConfig,
    logger: process.env["KERF_TEST_OPERATOR_LOGS"] === "1" ? createLogger("debug") : silentLogger(),
    serveHttp: false,
    awsCredentials: env.aws().credentials,
    ssmPrefix: SSM_PREFIX,
  });
}
