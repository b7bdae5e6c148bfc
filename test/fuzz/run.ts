/**
 * `npm run fuzz`: the differential test (test/integration/differential-apiserver.test.ts) with more objects, on a
 * private environment. Usage: node test/fuzz/run.ts [--runs 20000] [--seed N] (a random seed when absent, printed
 * so that a failure can be replayed). Exits 1 on an unexplained disagreement, printing its minimal object.
 */
import { parseArgs } from "node:util";
import { KubeConfig } from "@kubernetes/client-node";
import { startEnvironment } from "../harness/environment.ts";
import { installCrds } from "../harness/crds.ts";
import { upstreamCrds } from "../harness/karpenter-crds.ts";
import { describeFailure, runDifferential } from "./differential.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "20000" }, seed: { type: "string" } } });
const runs = Number(values.runs);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);

const env = await startEnvironment({ controlPlane: true, kwok: false, moto: false });
try {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(env.state.kubeconfig);
  await installCrds(kubeConfig, await upstreamCrds("1.14.1"));
  const started = performance.now();
  const report = await runDifferential(kubeConfig, { seed, runs });
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  console.log(`differential fuzz: ${report.objects} objects (seed ${seed}) in ${seconds} s; apiserver rejected ${report.apiserverRejected}`);
  console.log(`verdicts: ${JSON.stringify(report.byVerdict)}`);
  if (report.failure !== undefined) {
    console.log(describeFailure(report));
    process.exitCode = 1;
  }
} finally {
  await env.stop();
}
