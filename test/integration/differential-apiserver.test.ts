/**
 * Differential test: seeded, schema-aware mutations of valid NodePools and EC2NodeClasses, each judged by a real
 * kube-apiserver with Karpenter's own v1.14.1 CRDs and by kerf with its own policies off. Every disagreement must be
 * a documented kerf-only check (test/fuzz/differential.ts, KERF_ONLY); fast-check shrinks a failure to a minimal
 * object. `npm run fuzz` runs the same with more objects (test/fuzz/run.ts).
 */
import { before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { installCrds } from "../harness/crds.ts";
import { upstreamCrds } from "../harness/karpenter-crds.ts";
import { describeFailure, runDifferential } from "../fuzz/differential.ts";

const SEED = 20261125;
const RUNS = 1500;

void describe("kerf and a real kube-apiserver with Karpenter's CRDs agree on generated objects", () => {
  let env: TestEnvironment;
  before(async () => {
    env = await useEnvironment({ kwok: false, moto: false });
    await installCrds(env.kubeConfig, await upstreamCrds("1.14.1"));
  });

  void it(`agrees on ${RUNS} seeded mutations (seed ${SEED}), except documented kerf-only checks`, async () => {
    const report = await runDifferential(env.kubeConfig, { seed: SEED, runs: RUNS });
    assert.equal(report.failure, undefined, describeFailure(report));
    assert.equal(report.objects, RUNS);
    assert.ok(report.apiserverRejected > RUNS / 10, `only ${report.apiserverRejected} of ${RUNS} objects were rejected: the mutations are too tame`);
  });
});
