/**
 * The differential judge: one generated object, judged by a real kube-apiserver serving Karpenter's own CRDs
 * (server-side dry-run create) and by kerf with its own policies off (only what the apiserver enforces: schema,
 * cel). Disagreements are classified: a documented kerf-only check, or a failure.
 */
import fc from "fast-check";
import { CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { CONFIGURABLE_POLICY_IDS, parsePolicyConfig } from "../../policies/config.ts";
import { builtinCatalog } from "../../policies/domain/catalog/builtin.ts";
import { evaluate, type Finding } from "../../policies/evaluate.ts";
import { build, fuzzCase, type FuzzCase, type FuzzKind } from "./mutations.ts";

const RESOURCES: Readonly<Record<FuzzKind, { group: string; version: string; plural: string }>> = {
  NodePool: { group: "karpenter.sh", version: "v1", plural: "nodepools" },
  EC2NodeClass: { group: "karpenter.k8s.aws", version: "v1", plural: "ec2nodeclasses" },
};

/** kerf with every configurable policy off: what is left is what the apiserver itself enforces. */
const PARITY_CONFIG = parsePolicyConfig(`policies:\n${CONFIGURABLE_POLICY_IDS.map((id) => `  ${id}: "off"`).join("\n")}\n`);
const CATALOG = builtinCatalog();

/**
 * kerf-only checks: where kerf denies what the apiserver accepts, by design and documented. Each names the
 * finding it explains; a disagreement no entry explains is a failure.
 */
export const KERF_ONLY: readonly { readonly name: string; readonly explains: (finding: Finding) => boolean }[] = [];

/** How one object was judged. */
export interface Judgement {
  readonly apiserver: "accept" | "reject";
  readonly kerf: "allow" | "deny";
  readonly findings: readonly Finding[];
  readonly apiserverText: string;
  /** "agree", a KERF_ONLY name, or "kerf-looser" / "kerf-stricter" for unexplained disagreements. */
  readonly verdict: string;
}

async function apiserverAnswer(api: CustomObjectsApi, kind: FuzzKind, object: Record<string, unknown>): Promise<{ accepted: boolean; text: string }> {
  try {
    await api.createClusterCustomObject({ ...RESOURCES[kind], body: object, dryRun: "All" });
    return { accepted: true, text: "" };
  } catch (error) {
    const { code, body } = error as { code?: number; body?: unknown };
    if (code !== 400 && code !== 422) throw error;
    return { accepted: false, text: typeof body === "string" ? body : JSON.stringify(body) };
  }
}

function classify(apiserver: "accept" | "reject", findings: readonly Finding[]): string {
  const denies = findings.filter((f) => f.severity === "deny");
  if ((apiserver === "reject") === (denies.length > 0)) return "agree";
  if (apiserver === "reject") return "kerf-looser";
  const explained = KERF_ONLY.find((k) => denies.every((f) => k.explains(f)));
  return explained?.name ?? "kerf-stricter";
}

/** Judges one case. */
export async function judge(api: CustomObjectsApi, c: FuzzCase): Promise<Judgement> {
  // Each side gets its own copy: neither may see what the other did to the object.
  const verdict = evaluate({ kind: c.kind, operation: "CREATE", object: build(c), context: { catalog: CATALOG, config: PARITY_CONFIG } });
  const answer = await apiserverAnswer(api, c.kind, build(c));
  const apiserver = answer.accepted ? "accept" : "reject";
  return { apiserver, kerf: verdict.allowed ? "allow" : "deny", findings: verdict.findings, apiserverText: answer.text, verdict: classify(apiserver, verdict.findings) };
}

/** Figures of a run. */
export interface RunReport {
  readonly objects: number;
  readonly byVerdict: Readonly<Record<string, number>>;
  readonly apiserverRejected: number;
  /** The shrunk counterexample of the first unexplained disagreement, if any. */
  readonly failure: {
    readonly case: FuzzCase; readonly object: Record<string, unknown>; readonly judgement: Judgement | undefined;
    readonly seed: number; readonly path: string; readonly error: string | undefined;
  } | undefined;
}

/** Runs `runs` seeded cases; stops at the first unexplained disagreement and shrinks it to a minimal object. */
export async function runDifferential(kubeConfig: KubeConfig, options: { seed: number; runs: number }): Promise<RunReport> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const byVerdict: Record<string, number> = {};
  let objects = 0;
  let rejected = 0;
  const property = fc.asyncProperty(fuzzCase, async (c) => {
    const judgement = await judge(api, c);
    objects++;
    if (judgement.apiserver === "reject") rejected++;
    byVerdict[judgement.verdict] = (byVerdict[judgement.verdict] ?? 0) + 1;
    return judgement.verdict !== "kerf-looser" && judgement.verdict !== "kerf-stricter";
  });
  const details = await fc.check(property, { seed: options.seed, numRuns: options.runs, endOnFailure: false });
  if (!details.failed || details.counterexample === null) return { objects, byVerdict, apiserverRejected: rejected, failure: undefined };
  const [minimal] = details.counterexample;
  const judgement = await judge(api, minimal).catch(() => undefined);
  const error = details.errorInstance instanceof Error ? `${details.errorInstance.name}: ${details.errorInstance.message}` : undefined;
  return {
    objects, byVerdict, apiserverRejected: rejected,
    failure: { case: minimal, object: build(minimal), judgement, seed: options.seed, path: details.counterexamplePath ?? "", error },
  };
}

/** A readable account of a failure: the minimal object, both verdicts, kerf's findings and the apiserver's text. */
export function describeFailure(report: RunReport): string {
  const f = report.failure;
  if (f === undefined) return "";
  const j = f.judgement;
  return [
    j === undefined ? `error (seed ${f.seed}, path ${f.path})` : `${j.verdict}: apiserver ${j.apiserver}, kerf ${j.kerf} (seed ${f.seed}, path ${f.path})`,
    ...(f.error === undefined ? [] : [`thrown: ${f.error}`]),
    `mutations: ${JSON.stringify(f.case.mutations)}`,
    `object: ${JSON.stringify(f.object)}`,
    ...(j === undefined ? [] : [
      `kerf findings: ${j.findings.filter((x) => x.severity === "deny").map((x) => `${x.path}: ${x.message}`).join(" | ") || "none"}`,
      `apiserver: ${j.apiserverText.slice(0, 600) || "accepted"}`,
    ]),
  ].join("\n");
}
