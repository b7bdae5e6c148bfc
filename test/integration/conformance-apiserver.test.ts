import { before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CustomObjectsApi, type KubernetesObject } from "@kubernetes/client-node";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { installCrds } from "../harness/crds.ts";
import { generatedCrds, upstreamCrds } from "../harness/karpenter-crds.ts";
import { CASES } from "../conformance/cases/index.ts";
import type { ConformanceCase } from "../conformance/case.ts";
import { INSTALLED_RELEASE_ANSWERS } from "../conformance/installed-release.ts";
import { evaluate } from "../../policies/evaluate.ts";
import { defaultPolicyConfig } from "../../policies/config.ts";
import { builtinCatalog } from "../../policies/domain/catalog/builtin.ts";
import type { Kind } from "../../policies/types.ts";

type ApiVerdict = "accept" | "reject";

const resources: Record<Kind, { group: string; version: string; plural: string }> = {
  NodePool: { group: "karpenter.sh", version: "v1", plural: "nodepools" },
  NodeClaim: { group: "karpenter.sh", version: "v1", plural: "nodeclaims" },
  EC2NodeClass: { group: "karpenter.k8s.aws", version: "v1", plural: "ec2nodeclasses" },
};

const catalog = builtinCatalog();
const config = defaultPolicyConfig();

function kerfVerdict(c: ConformanceCase): { allowed: boolean; defaulted: unknown } {
  const context =
    c.nodeClassNames === undefined
      ? { catalog, config }
      : { catalog, config, nodeClassNames: new Set(c.nodeClassNames) };
  const base = { kind: c.kind, operation: c.operation ?? "CREATE", object: c.object, context } as const;
  return evaluate(c.oldObject === undefined ? base : { ...base, oldObject: c.oldObject });
}

/** The apiserver's answer: its verdict and, on a rejection, the error text (field paths and messages). */
interface ApiAnswer {
  verdict: ApiVerdict;
  text: string;
}

function rejection(error: unknown): ApiAnswer {
  const { code, body } = error as { code?: number; body?: unknown };
  if (code !== 422 && code !== 400) throw error;
  return { verdict: "reject", text: typeof body === "string" ? body : JSON.stringify(body) };
}

const accepted: ApiAnswer = { verdict: "accept", text: "" };

/**
 * What kube-apiserver answers for the case: CREATE as a server-side dry run; UPDATE creates
 * oldObject, then dry-runs the replace.
 */
async function apiserverAnswer(api: CustomObjectsApi, c: ConformanceCase, object: unknown): Promise<ApiAnswer> {
  const ref = resources[c.kind];
  if (c.oldObject === undefined) {
    try {
      await api.createClusterCustomObject({ ...ref, body: object as object, dryRun: "All" });
      return accepted;
    } catch (error) {
      return rejection(error);
    }
  }
  const created = (await api.createClusterCustomObject({ ...ref, body: c.oldObject })) as KubernetesObject;
  const name = created.metadata?.name ?? "";
  try {
    const body = {
      ...(object as KubernetesObject),
      metadata: { ...(object as KubernetesObject).metadata, resourceVersion: created.metadata?.resourceVersion ?? "" },
    };
    await api.replaceClusterCustomObject({ ...ref, name, body, dryRun: "All" });
    return accepted;
  } catch (error) {
    return rejection(error);
  } finally {
    await api.deleteClusterCustomObject({ ...ref, name, gracePeriodSeconds: 0 });
  }
}

/**
 * raw: the apiserver's verdict on the object as written; mutated: on kerf's defaulted object
 * (cases kerf's mutation fixes).
 */
interface Row {
  name: string;
  kind: Kind;
  corpus: ApiVerdict;
  raw: ApiVerdict;
  mutated: ApiVerdict | undefined;
  kerfAllows: boolean;
  missingPaths: string[];
}

/**
 * The schema finding paths a case expects that the apiserver's validation error (422) does not name ("<path>: ").
 * A metadata value that cannot be decoded is a 400 naming the Go field instead; kerf's message quotes that.
 */
function missingPaths(c: ConformanceCase, answer: ApiAnswer): string[] {
  if (answer.verdict !== "reject" || !answer.text.includes('"code":422')) return [];
  return (c.expect ?? [])
    .filter((e) => e.policy === "schema" && !answer.text.includes(`${e.path}: `))
    .map((e) => e.path);
}

async function runCorpus(env: TestEnvironment): Promise<Row[]> {
  const api = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const rows: Row[] = [];
  for (const c of CASES) {
    const verdict = kerfVerdict(c);
    const answer = await apiserverAnswer(api, c, c.object);
    // A case kerf fixes by defaulting also reaches the apiserver the way the mutating webhook sends it.
    const mutated = c.fixedByDefaults === true ? (await apiserverAnswer(api, c, verdict.defaulted)).verdict : undefined;
    rows.push({
      name: `${c.kind}: ${c.name}`,
      kind: c.kind,
      corpus: c.apiserver,
      raw: answer.verdict,
      mutated,
      kerfAllows: verdict.allowed,
      missingPaths: missingPaths(c, answer),
    });
  }
  return rows;
}

const looser = (rows: Row[]): string[] => rows.filter((r) => r.raw === "reject" && r.kerfAllows).map((r) => r.name);
const unfixed = (rows: Row[]): string[] => rows.filter((r) => r.mutated === "reject").map((r) => r.name);

describe("kerf against a real kube-apiserver over the conformance corpus", () => {
  let env: TestEnvironment;
  before(async () => {
    env = await useEnvironment();
  });

  it("with kerf's generated CRDs, the apiserver answers every case as the corpus states", async () => {
    await installCrds(env.kubeConfig, generatedCrds());
    const rows = await runCorpus(env);
    assert.ok(rows.length >= 100, `the corpus has ${rows.length} cases`);
    // The installed CRDs serve v1.15.1; the corpus states v1.14.1's answers
    // (installed-release.ts lists where they part).
    const expected = (r: Row): ApiVerdict => INSTALLED_RELEASE_ANSWERS[r.name]?.apiserver ?? r.corpus;
    const wrong = rows
      .filter((r) => r.raw !== expected(r))
      .map((r) => `${r.name}: expected ${expected(r)}, apiserver ${r.raw}`);
    assert.deepEqual(wrong, []);
    const stale = Object.keys(INSTALLED_RELEASE_ANSWERS).filter((name) => !rows.some((r) => r.name === name));
    assert.deepEqual(stale, [], "installed-release.ts names cases the corpus has");
    assert.deepEqual(looser(rows), [], "kerf accepts what the CRD + CEL reject");
    assert.deepEqual(unfixed(rows), [], "kerf's mutation does not make the object acceptable");
    const paths = rows.filter((r) => r.missingPaths.length > 0).map((r) => `${r.name}: ${r.missingPaths.join(", ")}`);
    assert.deepEqual(paths, [], "kerf's schema finding paths are not the apiserver's");
  });

  it("with Karpenter's own v1.14.1 CRDs, kerf never accepts what they reject", async () => {
    await installCrds(env.kubeConfig, await upstreamCrds("1.14.1"));
    const rows = await runCorpus(env);
    assert.deepEqual(looser(rows), [], "kerf accepts what Karpenter's CRD + CEL reject");
    assert.deepEqual(unfixed(rows), [], "kerf's mutation does not make the object acceptable to Karpenter's CRD");
    const differ = rows
      .filter((r) => r.raw !== r.corpus)
      .map((r) => `${r.name}: generated-CRD verdict ${r.corpus}, upstream ${r.raw}`);
    assert.deepEqual(differ, [], "kerf's generated CRDs and Karpenter's disagree");
  });
});
