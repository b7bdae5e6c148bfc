/** The one seam between the front-ends (CLI, webhook) and the policy engine: loads catalog and policy config once. */
import { readFile } from "node:fs/promises";
import { evaluate, isKarpenterKind, prepareEvaluation, type EvaluateInput, type EvaluationContext, type Kind, type Verdict } from "../policies/evaluate.ts";
import { defaultPolicyConfig, parsePolicyConfig } from "../policies/config.ts";
import { builtinCatalog } from "../policies/domain/catalog/builtin.ts";
import { causeText, KerfError } from "./errors.ts";

export type { EvaluateInput, EvaluationContext, Kind, Verdict };

/** The engine with its startup data bound: what check.ts and the admission plugin call. */
export interface Engine {
  readonly context: EvaluationContext;
  readonly evaluate: (input: EvaluateInput) => Verdict;
  readonly isKarpenterKind: (apiVersion: unknown, kind: unknown) => Kind | undefined;
}

/** Where the startup data comes from. */
export interface EngineSources {
  /** A policy configuration file (YAML or JSON); the default configuration when absent. */
  readonly policyConfigFile?: string | undefined;
  /** Compile the schemas and index the catalog now rather than on first use (the webhook: no slow first review). */
  readonly eager?: boolean;
}

/** Reads the policy configuration and the catalog; throws KerfError naming the file on failure. */
export async function loadEngine(sources: EngineSources = {}): Promise<Engine> {
  const config = sources.policyConfigFile === undefined ? defaultPolicyConfig() : await readPolicyConfig(sources.policyConfigFile);
  const catalog = builtinCatalog();
  const context = { catalog, config };
  if (sources.eager === true) prepareEvaluation(context);
  return { context, evaluate, isKarpenterKind };
}

async function readPolicyConfig(file: string): Promise<EvaluationContext["config"]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new KerfError("KERF_ERR_POLICY_CONFIG", `reading policy config ${file}: ${causeText(error)}`, { cause: error, location: { file } });
  }
  try {
    return parsePolicyConfig(text);
  } catch (error) {
    throw new KerfError("KERF_ERR_POLICY_CONFIG", `parsing policy config ${file}: ${causeText(error)}`, { cause: error, location: { file } });
  }
}
