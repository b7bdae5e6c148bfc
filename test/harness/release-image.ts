/**
 * The released image for tests: built from the Dockerfile by scripts/release/build-image.sh (buildah, no Docker
 * daemon; cached by the content of its inputs, so a second build with unchanged sources only checks its tag) and
 * run with `buildah run` (chroot isolation, the host's network), as the user and with the entrypoint the image
 * declares. Where buildah is missing and cannot be installed (not root) the suites using it are skipped with a
 * notice, as the release needs a container tool.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");

/** Why the image cannot be built here, or undefined when it can. */
export function containerToolUnavailable(): string | undefined {
  if (spawnSync("sh", ["-c", "command -v buildah"]).status === 0) return undefined;
  if (process.getuid?.() === 0 && spawnSync("sh", ["-c", "command -v apt-get"]).status === 0) return undefined;
  return "no buildah and no way to install it here (needs root and apt-get): the built image is not tested";
}

/** A working container of the built image, and what `docker run` would take from the image's config. */
export interface ImageContainer {
  readonly image: string;
  readonly container: string;
  readonly entrypoint: readonly string[];
  readonly user: string;
  remove(): Promise<void>;
}

/** Builds (or finds cached) the amd64 image and opens a working container of it. */
export async function openReleaseImage(): Promise<ImageContainer> {
  const built = await execFileAsync("bash", [path.join(root, "scripts/release/build-image.sh"), "amd64"], {
    maxBuffer: 16 << 20,
  }).catch((error: unknown) => {
    const e = error as { stderr?: string; message: string };
    throw new Error(`building the image: ${e.stderr?.split("\n").slice(-15).join("\n") ?? e.message}`);
  });
  const image = built.stdout.trim().split("\n").at(-1) ?? "";
  const container = (await execFileAsync("buildah", ["from", "--pull=never", image])).stdout.trim();
  // buildah run does not apply ENTRYPOINT: read it from the image so tests run what `docker run` would.
  const inspected = await execFileAsync("buildah", ["inspect", "--type", "image", image], { maxBuffer: 16 << 20 });
  const { config } = (JSON.parse(inspected.stdout) as { OCIv1: { config: { Entrypoint?: string[]; User?: string } } })
    .OCIv1;
  return {
    image,
    container,
    entrypoint: config.Entrypoint ?? [],
    user: config.User ?? "",
    remove: async () => {
      await execFileAsync("buildah", ["rm", container]).catch(() => undefined);
    },
  };
}

/** How to run one command in the container. */
export interface RunOptions {
  /** host:container[:ro] bind mounts. */
  readonly volumes?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** uid[:gid], as a pod's securityContext sets it; the image's own user otherwise. */
  readonly user?: string;
}

/** `buildah run` argv for `command` (given in full: the entrypoint is not prepended). */
export function runArgv(image: ImageContainer, command: readonly string[], o: RunOptions = {}): string[] {
  return [
    "run",
    "--isolation",
    "chroot",
    "--network",
    "host",
    ...(o.volumes ?? []).flatMap((v) => ["--volume", v]),
    ...Object.entries(o.env ?? {}).flatMap(([k, v]) => ["--env", `${k}=${v}`]),
    ...(o.user === undefined ? [] : ["--user", o.user]),
    image.container,
    "--",
    ...command,
  ];
}

/** The pids under `root` (chroot isolation keeps the host's PID namespace), parents first. */
function descendants(root: number): { pid: number; argv: string[] }[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The ppid is the 2nd field after the parenthesised command name, which may itself contain spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      /* exited meanwhile */
    }
  }
  const out: { pid: number; argv: string[] }[] = [];
  const queue = [...(parents.get(root) ?? [])];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    try {
      out.push({
        pid,
        argv: readFileSync(`/proc/${pid}/cmdline`, "utf8")
          .split("\0")
          .filter((a) => a !== ""),
      });
    } catch {
      continue;
    }
    queue.push(...(parents.get(pid) ?? []));
  }
  return out;
}

/** A command running in the container. */
export interface InImage {
  readonly child: ChildProcess;
  output(): string;
  /** SIGTERM to the process group: buildah and everything it runs go at once (cleanup). */
  stop(): void;
  /**
   * SIGTERM to the command itself, as the kubelet stops a container's process, so its shutdown runs; buildah
   * run would answer a signal of its own by killing the command.
   */
  terminate(): void;
}

/** A long-running command in the container, its own process group (so a test can stop it with what it spawned). */
export function startInImage(image: ImageContainer, command: readonly string[], o: RunOptions = {}): InImage {
  let log = "";
  const child = spawn("buildah", runArgv(image, command, o), { detached: true, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout?.on("data", (c: Buffer) => {
    log += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    log += c.toString();
  });
  const stop = (): void => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      /* already gone */
    }
  };
  const terminate = (): void => {
    if (child.pid === undefined) return;
    // buildah resolves the executable (node → /usr/local/bin/node), and its exec helper carries the same words.
    const target = descendants(child.pid).find(
      (p) =>
        path.basename(p.argv[0] ?? "") === path.basename(command[0] ?? "") &&
        p.argv.slice(1).join(" ") === command.slice(1).join(" "),
    );
    if (target === undefined) throw new Error(`no process runs ${command.join(" ")} under buildah (pid ${child.pid})`);
    process.kill(target.pid, "SIGTERM");
  };
  return { child, output: () => log, stop, terminate };
}
