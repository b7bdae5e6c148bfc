/**
 * The test-side handle on the real environment. Inside `npm test` every integration file attaches
 * to the one environment the orchestrator started (KERF_TEST_ENV); a file run on its own with
 * `node --test` starts a private environment and stops it when the file ends.
 */
import { readFileSync } from "node:fs";
import { KubeConfig } from "@kubernetes/client-node";
import { startEnvironment, type EnvironmentOptions, type EnvironmentState } from "./environment.ts";
import { resetCluster } from "./reset.ts";
import { get } from "./probes.ts";

/** AWS SDK v3 client settings for moto: one endpoint for every service, fake credentials. */
export interface AwsTestConfig {
  readonly endpoint: string;
  readonly region: string;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

/** What an integration test gets. */
export interface TestEnvironment {
  readonly state: EnvironmentState;
  readonly kubeConfig: KubeConfig;
  /** moto settings; throws if the environment has no moto. */
  aws(): AwsTestConfig;
  /** Clears moto and every cluster object earlier tests created (Nodes, Karpenter objects, test namespaces). */
  reset(): Promise<void>;
}

function loadState(file: string): EnvironmentState {
  return JSON.parse(readFileSync(file, "utf8")) as EnvironmentState;
}

async function attachOrStart(options: EnvironmentOptions): Promise<EnvironmentState> {
  const shared = process.env["KERF_TEST_ENV"];
  if (shared !== undefined && shared !== "") return loadState(shared);
  // node:test's after() called from a before() hook runs when that hook ends, not when the file
  // ends, so a private environment is torn down at process exit instead.
  const env = await startEnvironment({ controlPlane: true, kwok: true, moto: true, ...options });
  env.stopOnExit();
  return env.state;
}

/** Attaches to (or starts) the environment and resets it, so each suite starts clean. */
export async function useEnvironment(options: EnvironmentOptions = {}): Promise<TestEnvironment> {
  const state = await attachOrStart(options);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(state.kubeconfig);
  const env: TestEnvironment = {
    state,
    kubeConfig,
    aws: () => {
      if (state.awsEndpoint === undefined) throw new Error("this test environment runs no moto");
      return {
        endpoint: state.awsEndpoint,
        region: "us-east-1",
        credentials: { accessKeyId: "testing", secretAccessKey: "testing" },
      };
    },
    reset: async () => {
      if (state.awsEndpoint !== undefined) {
        const res = await get(`${state.awsEndpoint}/moto-api/reset`, { method: "POST" });
        if (res.status !== 200) throw new Error(`resetting moto: HTTP ${res.status}`);
      }
      await resetCluster(kubeConfig);
    },
  };
  await env.reset();
  return env;
}
