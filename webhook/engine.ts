/** The one seam between the front-ends (CLI, webhook) and the policy engine: loads catalog and policy config once. */
import { readFile } from "node:fs/promises";
import {
  evaluate,
  isKarpenterKind,
  prepareEvaluation,
  type EvaluateInput,
  type EvaluationContext,
  type Kind,
  type Verdict,
} from "../policies/evaluate.ts";
import { defaultPolicyConfig, parsePolicyConfig } from "../policies/config.ts";
import { builtinCatalog } from "../policies/domain/catalog/builtin.ts";
import type { KarpenterApi } from "../policies/api/releases/index.ts";
import { causeText, KerfError } from "./errors.ts";

export type { EvaluateInput, EvaluationContext, Kind, Verdict };

/** The engine with its startup data bound: what check.ts and the admission plugin call. */
export interface Engine {
  /** The context of the next evaluation: the same object until useApi switches the Karpenter API. */
  readonly context: EvaluationContext;
  /** Judges later evaluations against `api` (prepared first when the engine is eager, so no review pays for it). */
  readonly useApi: (api: KarpenterApi | undefined) => void;
  readonly evaluate: (input: EvaluateInput) => Verdict;
  readonly isKarpenterKind: (apiVersion: unknown, kind: unknown) => Kind | undefined;
}

/** Where the startup data comes from. */
export interface EngineSources {
  /** A policy configuration file (YAML or JSON); the default configuration when absent. */
  readonly policyConfigFile?: string | undefined;
  /** Compile the schemas and index the catalog now rather than on first use (the webhook: no slow first review). */
  readonly eager?: boolean;
  /** The Karpenter API to judge against; the bundled default release when absent. */
  readonly api?: KarpenterApi | undefined;
  /** The AWS region whose bundled catalog the policies use (validated by the caller); us-east-1 when absent. */
  readonly region?: string | undefined;
}

/** Reads the policy configuration and the catalog; throws KerfError naming the file on failure. */
export async function loadEngine(sources: EngineSources = {}): Promise<Engine> {
  const config =
    sources.policyConfigFile === undefined ? defaultPolicyConfig() : await readPolicyConfig(sources.policyConfigFile);
  const catalog = builtinCatalog(sources.region);
  const contextFor = (api: KarpenterApi | undefined): EvaluationContext => {
    const next: EvaluationContext = api === undefined ? { catalog, config } : { catalog, config, api };
    if (sources.eager === true) prepareEvaluation(next);
    return next;
  };
  let context = contextFor(sources.api);
  return {
    get context() {
      return context;
    },
    useApi: (api) => {
      context = contextFor(api);
    },
    evaluate,
    isKarpenterKind,
  };
}

async function readPolicyConfig(file: string): Promise<EvaluationContext["config"]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new KerfError("KERF_ERR_POLICY_CONFIG", `reading policy config ${file}: ${causeText(error)}`, {
      cause: error,
      location: { file },
    });
  }
  try {
    return parsePolicyConfig(text);
  } catch (error) {
    throw new KerfError("KERF_ERR_POLICY_CONFIG", `parsing policy config ${file}: ${causeText(error)}`, {
      cause: error,
      location: { file },
    });
  }
}
