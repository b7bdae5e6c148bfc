/**
 * The kerf operator, in this process: the same composition root as `kerf operator` (startOperator),
 * pointed at the environment's apiserver and moto. In-process rather than a child because moto's SSM
 * refuses /aws/… paths, and only the embedding overrides can move the AMI parameter prefix.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { pino } from "pino";
import { loadConfig } from "../../operator/config.ts";
import { startOperator, type RunningOperator } from "../../operator/main.ts";
import { createLogger } from "../../operator/observability/logger.ts";
import type { AwsTestConfig } from "../harness/use-environment.ts";

/**
 * Starts one replica without leader election; its JSON logs go to `logFile`. It serves /metrics (and its probes) on
 * free ports, as `kerf operator` does on 8080 (and 8081); `featureGates` is its --feature-gates.
 */
export async function startPlaygroundOperator(o: {
  kubeConfig: KubeConfig;
  aws: AwsTestConfig;
  clusterName: string;
  ssmPrefix: string;
  logFile: string;
  featureGates?: string | undefined;
}): Promise<RunningOperator> {
  const config = loadConfig({
    argv: [],
    env: {
      CLUSTER_NAME: o.clusterName,
      AWS_REGION: o.aws.region,
      AWS_ENDPOINT_URL: o.aws.endpoint,
      // Nodes join the local apiserver; moto holds no EKS cluster to discover it from.
      CLUSTER_ENDPOINT: o.kubeConfig.getCurrentCluster()?.server ?? "",
      DISABLE_LEADER_ELECTION: "true",
      LEADER_ELECTION_IDENTITY: "kerf-playground",
      METRICS_PORT: "0",
      HEALTH_PROBE_PORT: "0",
      ...(o.featureGates === undefined ? {} : { FEATURE_GATES: o.featureGates }),
    },
  });
  const logger = createLogger("info", pino.destination({ dest: o.logFile, sync: true }));
  try {
    // Karpenter waits 15 s before it re-validates and executes a disruption and polls every 10 s; the
    // playground halves that wait so scaling to 0 shows the empty nodes going in seconds, not half a minute.
    const disruption = { validationDelayMs: 5_000, pollMs: 2_000 };
    return await startOperator(config, {
      kubeConfig: o.kubeConfig,
      logger,
      awsCredentials: o.aws.credentials,
      ssmPrefix: o.ssmPrefix,
      disruption,
    });
  } catch (error) {
    throw new Error(`starting the kerf operator: ${(error as Error).message}`, { cause: error });
  }
}
