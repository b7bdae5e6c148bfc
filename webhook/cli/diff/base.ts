/**
 * The other side of `kerf check --diff BASE`: the version of each checked file at a git revision
 * (`git show REV:path`, paths relative to the repository root) or under a directory (the same path
 * relative to the working directory). A file absent there holds new objects; a file there that no
 * longer exists under a checked directory holds removed ones.
 */
import { execFile } from "node:child_process";
import { stat } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { causeText, KerfError } from "../../errors.ts";
import { parseDocuments, type SourceObject } from "../documents.ts";
import { expandPaths, readInputs } from "../inputs.ts";

const run = promisify(execFile);
const MANIFEST = /\.(ya?ml|json)$/i;
/** git's output for one file or listing; a manifest larger than this is not one a NodePool review needs. */
const MAX_BUFFER = 64 * 1024 * 1024;

/** The checked paths: what the user named, and the files they expand to now. */
export interface Checked {
  readonly paths: readonly string[];
  readonly files: readonly string[];
}

const isDirectory = async (p: string): Promise<boolean> =>
  (await stat(p).catch(() => undefined))?.isDirectory() ?? false;
const exists = async (p: string): Promise<boolean> => (await stat(p).catch(() => undefined)) !== undefined;

async function git(cwd: string, args: readonly string[]): Promise<string> {
  const { stdout } = await run("git", ["-C", cwd, ...args], { maxBuffer: MAX_BUFFER, encoding: "utf8" });
  return stdout;
}

/** The repository root of `dir` and the commit `ref` names there; a KerfError when either is not found. */
async function resolveRevision(ref: string, dir: string): Promise<string> {
  try {
    const root = (await git(dir, ["rev-parse", "--show-toplevel"])).trim();
    await git(root, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`]);
    return root;
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") {
      throw new KerfError(
        "KERF_ERR_INPUT_UNREADABLE",
        `reading --diff ${ref}: git is not installed (no git on PATH); ` +
          "install it, or give a directory holding the other version instead of a revision",
        { cause: error },
      );
    }
    const detail = (error as { stderr?: string }).stderr?.trim() || causeText(error);
    throw new KerfError(
      "KERF_ERR_INPUT_UNREADABLE",
      `reading --diff ${ref}: not a directory, ` +
        `and not a git revision of the repository at ${dir} (${detail || "unknown revision"})`,
      { cause: error },
    );
  }
}

/** Files under the checked paths as `list` finds them on the other side: kept when checked now or deleted since. */
async function baseFiles(
  checked: Checked,
  list: (p: string) => Promise<string[]>,
  here: (f: string) => string,
): Promise<string[]> {
  const now = new Set(checked.files.map(here));
  const out: string[] = [];
  for (const p of checked.paths) {
    if (!(await isDirectory(p))) {
      out.push(here(p));
      continue;
    }
    for (const f of await list(p))
      if (MANIFEST.test(f) && (now.has(f) || !(await exists(path.resolve(f))))) out.push(f);
  }
  return [...new Set(out)];
}

async function fromRevision(ref: string, checked: Checked): Promise<SourceObject[]> {
  const root = await resolveRevision(ref, path.dirname(path.resolve(checked.files[0] ?? checked.paths[0] ?? ".")));
  const rel = (p: string): string => path.relative(root, path.resolve(p)).split(path.sep).join("/");
  // Listed with paths relative to the root; mapped back to the working directory to compare with what is checked now.
  const fromRoot = (f: string): string => path.relative(process.cwd(), path.join(root, f));
  const list = async (dir: string): Promise<string[]> =>
    (await git(root, ["ls-tree", "-r", "-z", "--name-only", "--full-tree", ref, "--", rel(dir) || "."]))
      .split("\0")
      .filter((f) => f !== "")
      .map(fromRoot);
  const objects: SourceObject[] = [];
  for (const file of await baseFiles(checked, list, (f) => path.relative(process.cwd(), path.resolve(f)))) {
    const text = await git(root, ["show", `${ref}:${rel(file)}`]).catch(() => undefined);
    if (text !== undefined) objects.push(...parseDocuments(`${ref}:${rel(file)}`, text));
  }
  return objects;
}

async function fromDirectory(base: string, checked: Checked): Promise<SourceObject[]> {
  const rel = (p: string): string => {
    const r = path.relative(process.cwd(), path.resolve(p));
    if (r.startsWith("..") || path.isAbsolute(r))
      throw new KerfError(
        "KERF_ERR_INPUT_UNREADABLE",
        `reading --diff ${base}: ${p} is outside the working directory, so it has no counterpart in ${base}`,
      );
    return r;
  };
  const list = async (dir: string): Promise<string[]> => {
    const there = path.join(base, rel(dir));
    return (await exists(there)) ? (await expandPaths([there])).map((f) => path.relative(base, f)) : [];
  };
  const files = await baseFiles(checked, list, rel);
  const present = [];
  for (const f of files) if (await exists(path.join(base, f))) present.push(path.join(base, f));
  return present.length === 0 ? [] : readInputs(present, async () => "");
}

/** The objects of the checked paths on the other side of the comparison: a directory, else a git revision. */
export async function readBase(base: string, checked: Checked): Promise<SourceObject[]> {
  return (await isDirectory(base)) ? fromDirectory(base, checked) : fromRevision(base, checked);
}
