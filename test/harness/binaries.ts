/** Locates the test-environment binaries, building them once through .ci/testenv/ensure.sh. */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Absolute paths of every executable the environment can start. */
export interface Binaries {
  readonly kubeApiserver: string;
  readonly kubeScheduler: string;
  readonly kubeControllerManager: string;
  readonly etcd: string;
  readonly kwok: string;
  /** kwok's stage configuration (node and pod "fast" stages). */
  readonly kwokStages: string;
  readonly motoServer: string;
  /** helm, for rendering and installing manifests/charts. */
  readonly helm: string;
}

const keys: Record<string, keyof Binaries> = {
  KUBE_APISERVER: "kubeApiserver",
  KUBE_SCHEDULER: "kubeScheduler",
  KUBE_CONTROLLER_MANAGER: "kubeControllerManager",
  ETCD: "etcd",
  KWOK: "kwok",
  KWOK_STAGES: "kwokStages",
  MOTO_SERVER: "motoServer",
  HELM: "helm",
};

/** Parses ensure.sh's KEY=VALUE lines; throws naming the first missing key. */
export function parseBinaries(output: string): Binaries {
  const found: Partial<Record<keyof Binaries, string>> = {};
  for (const line of output.split("\n")) {
    const eq = line.indexOf("=");
    const key = keys[line.slice(0, eq)];
    if (eq > 0 && key !== undefined) found[key] = line.slice(eq + 1).trim();
  }
  for (const key of Object.values(keys)) {
    if (found[key] === undefined) throw new Error(`reading test binaries: ensure.sh printed no path for ${key}`);
  }
  return found as Binaries;
}

/** Runs ensure.sh (seconds when cached, a cold Go build otherwise) and returns the binaries. */
export async function ensureBinaries(root: string): Promise<Binaries> {
  const script = path.join(root, ".ci", "testenv", "ensure.sh");
  try {
    const { stdout } = await run("bash", [script], { maxBuffer: 16 * 1024 * 1024, timeout: 80 * 60_000 });
    return parseBinaries(stdout);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? "";
    throw new Error(`building the test environment binaries: ${stderr.split("\n").slice(-15).join("\n")}`, {
      cause: error,
    });
  }
}
