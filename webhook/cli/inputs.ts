/** `kerf check` inputs: files, directories (recursive; .yaml/.yml/.json) and `-` for stdin, parsed into source objects. */
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { causeText, KerfError } from "../errors.ts";
import { parseDocuments, type SourceObject } from "./documents.ts";

/** The name findings from standard input are reported under. */
export const STDIN_NAME = "<stdin>";

const manifestExtensions = new Set([".yaml", ".yml", ".json"]);

/** Files read at once: enough to keep the I/O threads busy, few enough to stay far below the open-file limit. */
const READ_CONCURRENCY = 32;

/** Every object in `paths`, files in argument order and directories walked in sorted order. Throws KerfError. */
export async function readInputs(paths: readonly string[], readStdin: () => Promise<string>): Promise<SourceObject[]> {
  const files = await expandPaths(paths);
  const texts = await readAll(files, readStdin);
  const objects: SourceObject[] = [];
  // In file order, so the error reported is the first file's (unreadable or unparseable), as with one-by-one reads.
  files.forEach((file, i) => {
    const text = texts[i] as PromiseSettledResult<string>;
    if (text.status === "rejected") throw text.reason;
    objects.push(...parseDocuments(file === "-" ? STDIN_NAME : file, text.value));
  });
  return objects;
}

/** Reads every file (READ_CONCURRENCY at a time, not one round trip after another); results in input order. */
async function readAll(files: readonly string[], readStdin: () => Promise<string>): Promise<PromiseSettledResult<string>[]> {
  const results: PromiseSettledResult<string>[] = new Array(files.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < files.length; i = next++) {
      const file = files[i] as string;
      try {
        results[i] = { status: "fulfilled", value: file === "-" ? await readStdin() : await readText(file) };
      } catch (reason) {
        results[i] = { status: "rejected", reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, files.length) }, worker));
  return results;
}

/** The files named by `paths`: directories expanded recursively to their manifest files, duplicates removed. */
export async function expandPaths(paths: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const entry of paths) {
    if (entry === "-") {
      files.push(entry);
      continue;
    }
    const info = await statPath(entry);
    files.push(...(info.isDirectory() ? await manifestFilesUnder(entry) : [entry]));
  }
  return [...new Set(files)];
}

/** File listing paths (relative, `/`-separated; a trailing `/` means a directory) a directory walk skips. */
export const IGNORE_FILE = ".kerfignore";

async function ignoredUnder(dir: string): Promise<(relative: string) => boolean> {
  let text: string;
  try {
    text = await readFile(path.join(dir, IGNORE_FILE), "utf8");
  } catch {
    return () => false;
  }
  const entries = text.split("\n").map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("#")).map((l) => l.replace(/^\.\//, ""));
  return (relative) => entries.some((e) => (e.endsWith("/") ? `${relative}/`.startsWith(e) : relative === e || relative.startsWith(`${e}/`)));
}

async function manifestFilesUnder(dir: string): Promise<string[]> {
  const ignored = await ignoredUnder(dir);
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch (error) {
    throw new KerfError("KERF_ERR_INPUT_UNREADABLE", `reading directory ${dir}: ${causeText(error)}`, { cause: error, location: { file: dir } });
  }
  return entries
    .filter((e) => e.isFile() && manifestExtensions.has(path.extname(e.name).toLowerCase()))
    .map((e) => path.join(e.parentPath, e.name))
    .filter((file) => !ignored(path.relative(dir, file).split(path.sep).join("/")))
    .sort();
}

async function statPath(file: string): Promise<Awaited<ReturnType<typeof stat>>> {
  try {
    return await stat(file);
  } catch (error) {
    throw new KerfError("KERF_ERR_INPUT_UNREADABLE", `reading ${file}: ${reason(error)}`, { cause: error, location: { file } });
  }
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    throw new KerfError("KERF_ERR_INPUT_UNREADABLE", `reading ${file}: ${reason(error)}`, { cause: error, location: { file } });
  }
}

function reason(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === "ENOENT") return "no such file or directory";
  if (code === "EACCES") return "permission denied";
  if (code === "EISDIR") return "is a directory";
  return causeText(error);
}
