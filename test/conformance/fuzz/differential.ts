// The differential fuzz: generated objects judged by a real apiserver (through an injected function) and by kerf
// with its own policies off; each disagreement is a documented difference (known-differences.ts) or a failure,
// shrunk by fast-check to a minimal object.
import fc from "fast-check";
import { evaluate } from "../../../policies/evaluate.ts";
import { policyConfigFromObject, CONFIGURABLE_POLICY_IDS } from "../../../policies/config.ts";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import type { Finding } from "../../../policies/types.ts";
import type { KarpenterApi } from "../../../policies/api/releases/index.ts";
import { explainStricter } from "../known-differences.ts";
import { structuredCloneJson, type Generated } from "./mutations.ts";

/** The apiserver's answer to a dry-run create: its verdict and, on a rejection, its message. */
export interface ApiAnswer {
  verdict: "accept" | "reject";
  message: string;
}
export type Apiserver = (kind: Generated["kind"], object: Record<string, unknown>) => Promise<ApiAnswer>;

/**
 * kerf as the fuzz judges it: parity is about schema, CEL and Karpenter's runtime validation; runtime and
 * strict stay, kerf's own policies go.
 */
const PARITY_POLICIES = new Set(["runtime", "strict"]);
export const PARITY_CONFIG = policyConfigFromObject({
  policies: Object.fromEntries(
    CONFIGURABLE_POLICY_IDS.filter((id) => !PARITY_POLICIES.has(id)).map((id) => [id, "off"]),
  ),
});
const catalog = builtinCatalog();

export interface Judgement {
  generated: Generated;
  /** The object as both sides saw it (after a JSON round trip). */
  object: Record<string, unknown>;
  api: ApiAnswer;
  denials: Finding[];
  /**
   * "agree", a documented difference ("known: <names>"), or an unexplained class
   * ("kerf-looser: …", "kerf-stricter: …").
   */
  outcome: string;
  explained: boolean;
}

/** A finding path without indices or map keys past the field, so disagreements group by field. */
function fieldOf(path: string): string {
  return path
    .replace(/\[\d+\]/g, "[]")
    .split(".")
    .slice(0, 6)
    .join(".");
}

function apiField(message: string): string {
  const match = /: (?:\[)?([a-zA-Z.[\]0-9]+?): /.exec(message) ?? /\b((?:spec|metadata)[a-zA-Z.[\]0-9]*)/.exec(message);
  return fieldOf(match?.[1] ?? "?");
}

/**
 * Judges one object by the apiserver and by kerf, kerf judging against `karpenter`
 * (the apiserver's CRDs) when given.
 */
export async function judge(generated: Generated, apiserver: Apiserver, karpenter?: KarpenterApi): Promise<Judgement> {
  const object = structuredCloneJson(generated.object);
  const context = { catalog, config: PARITY_CONFIG, ...(karpenter === undefined ? {} : { api: karpenter }) };
  const [api, verdict] = [
    await apiserver(generated.kind, object),
    evaluate({ kind: generated.kind, operation: "CREATE", object: structuredCloneJson(object), context }),
  ];
  const denials = verdict.findings.filter((f) => f.severity === "deny");
  const base = { generated, object, api, denials };
  if ((api.verdict === "accept") === verdict.allowed) return { ...base, outcome: "agree", explained: true };
  if (api.verdict === "reject")
    return { ...base, outcome: `kerf-looser: ${generated.kind} ${apiField(api.message)}`, explained: false };
  const known = explainStricter(denials);
  if (known !== undefined) return { ...base, outcome: `known: ${known.join(" + ")}`, explained: true };
  const first = denials.find((d) => explainStricter([d]) === undefined) ?? denials[0];
  return {
    ...base,
    outcome: `kerf-stricter: ${generated.kind} ${first?.policy ?? "?"} ${fieldOf(first?.path ?? "?")}`,
    explained: false,
  };
}

export interface FuzzOptions {
  seed: number;
  runs: number;
  concurrency: number;
  apiserver: Apiserver;
  /** The Karpenter API kerf judges against (the CRDs the apiserver serves); undefined = kerf's bundled default. */
  karpenter?: KarpenterApi;
  objects: fc.Arbitrary<Generated>;
  maxShrunk?: number;
  /** Called with every judgement, in order (e.g. to write them out for study). */
  onJudgement?: (judgement: Judgement) => void;
}

export interface FuzzReport {
  seed: number;
  objects: number;
  apiserverRejected: number;
  /** Outcome → count, agreements included. */
  outcomes: Map<string, number>;
  /** One shrunk counterexample per unexplained class (up to maxShrunk). */
  failures: Judgement[];
  seconds: number;
}

/** Generates `runs` objects from the seed, judges them `concurrency` at a time, and shrinks each unexplained class. */
export async function fuzz(options: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  const samples = fc.sample(options.objects, { seed: options.seed, numRuns: options.runs });
  const judgements: Judgement[] = [];
  for (let i = 0; i < samples.length; i += options.concurrency) {
    judgements.push(
      ...(await Promise.all(
        samples.slice(i, i + options.concurrency).map((g) => judge(g, options.apiserver, options.karpenter)),
      )),
    );
  }
  if (options.onJudgement !== undefined) judgements.forEach(options.onJudgement);
  const outcomes = new Map<string, number>();
  for (const j of judgements) outcomes.set(j.outcome, (outcomes.get(j.outcome) ?? 0) + 1);
  const firstOfClass = new Map<string, number>();
  judgements.forEach((j, index) => {
    if (!j.explained && !firstOfClass.has(j.outcome)) firstOfClass.set(j.outcome, index);
  });
  const failures: Judgement[] = [];
  for (const index of [...firstOfClass.values()].slice(0, options.maxShrunk ?? 10)) {
    failures.push(await shrink(options, index, judgements[index] as Judgement));
  }
  return {
    seed: options.seed,
    objects: judgements.length,
    apiserverRejected: judgements.filter((j) => j.api.verdict === "reject").length,
    outcomes,
    failures,
    seconds: (performance.now() - started) / 1000,
  };
}

/** Replays run `index` of the seed in fast-check and shrinks it while the disagreement stays unexplained. */
async function shrink(options: FuzzOptions, index: number, found: Judgement): Promise<Judgement> {
  let smallest = found;
  const property = fc.asyncProperty(options.objects, async (generated) => {
    const judgement = await judge(generated, options.apiserver, options.karpenter);
    if (judgement.explained) return true;
    smallest = judgement;
    return false;
  });
  await fc.check(property, { seed: options.seed, path: String(index), numRuns: options.runs, endOnFailure: false });
  return smallest;
}

/** A report as text: seed, counts by outcome, and each failure with its mutations, object and both verdicts. */
export function formatReport(report: FuzzReport): string {
  const lines = [
    `differential fuzz: seed ${report.seed} (KERF_FUZZ_SEED=${report.seed} replays it), ` +
      `${report.objects} objects in ${report.seconds.toFixed(1)} s, apiserver rejected ${report.apiserverRejected}`,
    ...[...report.outcomes].sort((a, b) => b[1] - a[1]).map(([outcome, n]) => `  ${String(n).padStart(6)}  ${outcome}`),
  ];
  for (const f of report.failures) {
    const denials = f.denials.map((d) => `[${d.policy}] ${d.path}: ${d.message}`).join("; ");
    lines.push(
      "",
      `UNEXPLAINED ${f.outcome}`,
      `  mutations: ${JSON.stringify(f.generated.mutations)}`,
      `  object: ${JSON.stringify(f.object)}`,
      `  apiserver: ${f.api.verdict}${f.api.message === "" ? "" : `: ${f.api.message}`}`,
      `  kerf: ${f.denials.length === 0 ? "allow" : `deny: ${denials}`}`,
    );
  }
  return lines.join("\n");
}
