/**
 * The operator's start line, and what of the Karpenter configuration it was given it ignores (feature gates,
 * settings), said once at start.
 */
import { IGNORED_FEATURE_GATES, ignoredFeatureGates, ignoredSettings } from "../../policies/operator-coverage.ts";
import type { OperatorConfig } from "../config.ts";
import type { Logger } from "../observability/logger.ts";

/** The start line, then what of the configuration kerf ignores. */
export function logStarted(logger: Logger, config: OperatorConfig): void {
  logger.info(
    { cluster: config.clusterName, region: config.region, identity: config.leaderElectionIdentity },
    "operator started",
  );
  logIgnoredConfiguration(logger, config.featureGates, process.env);
}

/**
 * Says once, at start, which Karpenter feature gates and settings this operator was given but ignores (the kerf
 * chart refuses them; an operator started another way would otherwise ignore them silently).
 */
function logIgnoredConfiguration(
  logger: Logger,
  gates: Readonly<Record<string, boolean>>,
  env: NodeJS.ProcessEnv,
): void {
  const { ignored, unknown } = ignoredFeatureGates(gates);
  if (ignored.length > 0) {
    logger.warn(
      { featureGates: ignored.map((g) => ({ gate: g, karpenter: IGNORED_FEATURE_GATES[g] })) },
      "kerf's operator ignores these feature gates: kerf does not implement them",
    );
  }
  if (unknown.length > 0)
    logger.warn({ featureGates: unknown }, "unknown feature gates: neither Karpenter's nor kerf's; ignored");
  const settings = ignoredSettings(env);
  if (settings.length > 0) logger.warn({ settings }, "kerf's operator ignores these Karpenter settings");
}
