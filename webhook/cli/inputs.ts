/**
 * `kerf check` inputs: files, directories (recursive; .yaml/.yml/.json) and `-` for
 * stdin, parsed into source objects.
 */
import type { Dirent } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { causeText, isKerfError, KerfError } from "../errors.ts";
import { parseDocuments, type SourceObject } from "./documents.ts";

/** The name findings from standard input are reported under. */
export const STDIN_NAME = "<stdin>";

const manifestExtensions = new Set([".yaml", ".yml", ".json"]);

/** Files read at once: enough to keep the I/O threads busy, few enough to stay far below the open-file limit. */
const READ_CONCURRENCY = 32;

/** Directories a walk never enters: dependencies and git's own files hold no manifests of the repository's. */
const PRUNED_DIRECTORIES = new Set(["node_modules", ".git"]);

/** A file (or a pruned directory) that was not checked, and why: reported as a notice, never a failure. */
export interface SkippedFile {
  readonly file: string;
  readonly reason: string;
}

/** What the inputs hold: the objects of the Kubernetes files, and the files that are not Kubernetes YAML. */
export interface Manifests {
  readonly objects: SourceObject[];
  readonly skipped: SkippedFile[];
}

const TEMPLATE_REASON =
  "a Helm or Go template ({{ … }}), not YAML until rendered: check the rendered output " +
  "(e.g. `helm template CHART | kerf check -`)";
const NO_OBJECT_REASON = "no Kubernetes object (no document has apiVersion and kind)";

/**
 * Every object in `paths` (see readManifests), documents without apiVersion and kind included (kerf simulate's
 * scenarios may omit them); the skipped files are dropped. Throws KerfError.
 */
export async function readInputs(paths: readonly string[], readStdin: () => Promise<string>): Promise<SourceObject[]> {
  return (await readManifests(paths, readStdin, { keepObjectless: true })).objects;
}

/**
 * Every object in `paths`, files in argument order and directories walked in sorted order. Files that are not
 * Kubernetes YAML are skipped with their reason: Helm templates (`{{` in a templates/ folder, or in text that does
 * not parse), explicitly named files of another extension that do not parse, files without apiVersion and kind,
 * and node_modules folders. Any other unreadable or unparseable file throws KerfError, as before.
 */
export async function readManifests(
  paths: readonly string[],
  readStdin: () => Promise<string>,
  options: { readonly keepObjectless?: boolean } = {},
): Promise<Manifests> {
  const { files, pruned } = await walkPaths(paths);
  const texts = await readAll(files, readStdin);
  const objects: SourceObject[] = [];
  const skipped: SkippedFile[] = [...pruned];
  // In file order, so the error reported is the first file's (unreadable or unparseable), as with one-by-one reads.
  files.forEach((file, i) => {
    const text = texts[i] as PromiseSettledResult<string>;
    if (text.status === "rejected") throw text.reason;
    const name = file === "-" ? STDIN_NAME : file;
    const parsed = parseOrSkip(name, text.value, options.keepObjectless === true);
    if ("reason" in parsed) skipped.push(parsed);
    else objects.push(...parsed.objects);
  });
  return { objects, skipped };
}

/** A Go template action: `{{` then optional trim marker, then what Helm templates put there. */
const TEMPLATE_ACTION = /\{\{-?\s*[-.$("/a-zA-Z]/;

function inTemplatesFolder(file: string): boolean {
  return file.split(/[\\/]/).includes("templates");
}

/** The file's objects, or why the file is not Kubernetes YAML. Throws KerfError for a broken manifest. */
function parseOrSkip(file: string, text: string, keepObjectless: boolean): { objects: SourceObject[] } | SkippedFile {
  const template = TEMPLATE_ACTION.test(text);
  // Rendered, a template's values differ: checking the unrendered text would judge placeholders.
  if (template && inTemplatesFolder(file)) return { file, reason: TEMPLATE_REASON };
  let objects: SourceObject[];
  try {
    objects = parseDocuments(file, text);
  } catch (error) {
    if (!isKerfError(error)) throw error;
    if (template) return { file, reason: TEMPLATE_REASON };
    const named = file !== STDIN_NAME && !manifestExtensions.has(path.extname(file).toLowerCase());
    if (named) return { file, reason: `not YAML or JSON (${causeText(error)})` };
    throw error;
  }
  if (!keepObjectless && !objects.some((o) => isKubernetesObject(o.value))) return { file, reason: NO_OBJECT_REASON };
  return { objects };
}

function isKubernetesObject(value: unknown): boolean {
  const object = value as { apiVersion?: unknown; kind?: unknown } | null;
  return (
    typeof object === "object" &&
    object !== null &&
    typeof object.apiVersion === "string" &&
    typeof object.kind === "string"
  );
}

/** Reads every file (READ_CONCURRENCY at a time, not one round trip after another); results in input order. */
async function readAll(
  files: readonly string[],
  readStdin: () => Promise<string>,
): Promise<PromiseSettledResult<string>[]> {
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
  return (await walkPaths(paths)).files;
}

async function walkPaths(paths: readonly string[]): Promise<{ files: string[]; pruned: SkippedFile[] }> {
  const files: string[] = [];
  const pruned: SkippedFile[] = [];
  for (const entry of paths) {
    if (entry === "-") {
      files.push(entry);
      continue;
    }
    const info = await statPath(entry);
    if (!info.isDirectory()) {
      files.push(entry);
      continue;
    }
    const walked = await manifestFilesUnder(entry);
    files.push(...walked.files);
    pruned.push(...walked.pruned);
  }
  return { files: [...new Set(files)], pruned };
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
  const entries = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((l) => l.replace(/^\.\//, ""));
  return (relative) =>
    entries.some((e) =>
      e.endsWith("/") ? `${relative}/`.startsWith(e) : relative === e || relative.startsWith(`${e}/`),
    );
}

async function manifestFilesUnder(dir: string): Promise<{ files: string[]; pruned: SkippedFile[] }> {
  const ignored = await ignoredUnder(dir);
  const files: string[] = [];
  const pruned: SkippedFile[] = [];
  // Folder by folder rather than readdir's recursive mode, so node_modules is never read at all.
  const pending = [dir];
  for (let folder = pending.pop(); folder !== undefined; folder = pending.pop()) {
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch (error) {
      throw new KerfError("KERF_ERR_INPUT_UNREADABLE", `reading directory ${folder}: ${causeText(error)}`, {
        cause: error,
        location: { file: folder },
      });
    }
    for (const e of entries) {
      const full = path.join(folder, e.name);
      if (ignored(path.relative(dir, full).split(path.sep).join("/"))) continue;
      sortEntry(e, full, { files, pruned, pending });
    }
  }
  return { files: files.sort(), pruned: pruned.sort((a, b) => a.file.localeCompare(b.file)) };
}

/** Where a walked entry goes: a manifest file, a folder to walk, a pruned folder, or nowhere. */
function sortEntry(e: Dirent, full: string, into: { files: string[]; pruned: SkippedFile[]; pending: string[] }): void {
  if (e.isDirectory() && PRUNED_DIRECTORIES.has(e.name)) {
    if (e.name === "node_modules")
      into.pruned.push({
        file: `${full}${path.sep}`,
        reason: "dependencies (node_modules), not the repository's manifests",
      });
  } else if (e.isDirectory()) {
    into.pending.push(full);
  } else if (e.isFile() && manifestExtensions.has(path.extname(e.name).toLowerCase())) {
    into.files.push(full);
  }
}

async function statPath(file: string): Promise<Awaited<ReturnType<typeof stat>>> {
  try {
    return await stat(file);
  } catch (error) {
    throw new KerfError("KERF_ERR_INPUT_UNREADABLE", `reading ${file}: ${reason(error)}`, {
      cause: error,
      location: { file },
    });
  }
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    throw new KerfError("KERF_ERR_INPUT_UNREADABLE", `reading ${file}: ${reason(error)}`, {
      cause: error,
      location: { file },
    });
  }
}

function reason(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === "ENOENT") return "no such file or directory";
  if (code === "EACCES") return "permission denied";
  if (code === "EISDIR") return "is a directory";
  return causeText(error);
}
