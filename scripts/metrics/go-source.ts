/**
 * Reading Go package-level declarations out of the Go module cache, for scripts/metrics/karpenter-metrics.ts:
 * a package's files (comments blanked, imports mapped), balanced bracket groups, top-level lists and struct
 * fields, and the definition an identifier (possibly package-qualified) resolves to. Not a Go parser: it reads
 * the shapes Karpenter's metric declarations use, and throws ExtractError on anything else rather than guess.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const MOD =
  process.env["GOMODCACHE"] ??
  path.join(process.env["KERF_CACHE_DIR"] ?? path.join(os.homedir(), ".cache", "kerf"), "go", "mod");

/** Module path prefix → folder in the module cache, at the versions kerf is compatible with. */
export const MODULES: Readonly<Record<string, string>> = {
  "sigs.k8s.io/karpenter": "sigs.k8s.io/karpenter@v1.15.0",
  "github.com/aws/karpenter-provider-aws": "github.com/aws/karpenter-provider-aws@v1.15.1",
  "github.com/awslabs/operatorpkg": "github.com/awslabs/operatorpkg@v0.0.0-20261002163259-5e8ed3699dea",
  "k8s.io/api": "k8s.io/api@v0.36.1",
};

/** A declaration the reader cannot evaluate (the table would be wrong, so the script stops). */
export class ExtractError extends Error {}

/** One Go source file: its path in the module cache, package folder, text without comments and imports. */
export interface GoFile {
  readonly rel: string;
  readonly dir: string;
  readonly text: string;
  readonly imports: Map<string, string>;
}

const files = new Map<string, GoFile[]>();

/** The non-test Go files of the package folder `dir` (module-cache relative), read once. */
export function packageFiles(dir: string): GoFile[] {
  const cached = files.get(dir);
  if (cached !== undefined) return cached;
  let names: string[] = [];
  try {
    names = readdirSync(path.join(MOD, dir));
  } catch {
    names = [];
  }
  const out = names
    .filter((n) => n.endsWith(".go") && !n.endsWith("_test.go"))
    .map((n) => {
      const text = withoutComments(readFileSync(path.join(MOD, dir, n), "utf8"));
      const imports = new Map<string, string>();
      for (const m of text.matchAll(/^\s*(?:(\w+)\s+)?"([^"]+)"\s*$/gm)) {
        const importPath = m[2] ?? "";
        imports.set(m[1] ?? importPath.split("/").at(-1) ?? "", importPath);
      }
      return { rel: path.join(dir, n), dir, text, imports };
    });
  files.set(dir, out);
  return out;
}

/** Go source with `//` and `/* *\/` comments blanked, string literals kept. */
function withoutComments(text: string): string {
  return text.replace(/"(?:[^"\\\n]|\\.)*"|`[^`]*`|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (m) => (m.startsWith("/") ? " " : m));
}

/** The module-cache folder of an import path, for the modules in MODULES. */
export function importDir(importPath: string): string | undefined {
  for (const [prefix, dir] of Object.entries(MODULES)) {
    if (importPath === prefix) return dir;
    if (importPath.startsWith(`${prefix}/`)) return `${dir}${importPath.slice(prefix.length)}`;
  }
  return undefined;
}

/** The text of the balanced bracket group opening at `open`. */
export function balanced(text: string, open: number): string {
  const pairs: Record<string, string> = { "(": ")", "{": "}", "[": "]" };
  const stack: string[] = [];
  for (let i = open; i < text.length; i++) {
    const c = text[i] ?? "";
    if (c === '"' || c === "`") {
      const end = c === "`" ? text.indexOf("`", i + 1) : /"(?:[^"\\]|\\.)*"/y.exec(text.slice(i))?.[0].length;
      i = c === "`" ? (end as number) : i + (end as number) - 1;
      continue;
    }
    if (pairs[c] !== undefined) stack.push(pairs[c]);
    else if (c === stack.at(-1)) {
      stack.pop();
      if (stack.length === 0) return text.slice(open + 1, i);
    }
  }
  throw new ExtractError(`unbalanced group at ${open}`);
}

/** Top-level comma-separated parts of an argument or element list. */
export function splitTop(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  let quote = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? "";
    if (quote !== "") {
      if (c === "\\") i++;
      else if (c === quote) quote = "";
      continue;
    }
    if (c === '"' || c === "`") quote = c;
    else if ("({[".includes(c)) depth++;
    else if (")}]".includes(c)) depth--;
    else if (c === "," && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts.filter((p) => p !== "");
}

/** `Field: expr` entries of a struct literal body. */
export function fields(body: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of splitTop(body)) {
    const m = /^(\w+)\s*:\s*([\s\S]+)$/.exec(part);
    if (m !== null) out.set(m[1] ?? "", (m[2] ?? "").trim());
  }
  return out;
}

/** The right-hand side of `ident = …` or `ident Type = …` at package level of dir, with the file it is in. */
function definition(dir: string, ident: string): { expr: string; file: GoFile } | undefined {
  for (const file of packageFiles(dir)) {
    const re = new RegExp(`(?:^|\\n)\\s*(?:const |var )?${ident}(?:\\s+[\\w.]+)?\\s*=\\s*`, "g");
    const m = re.exec(file.text);
    if (m === null) continue;
    const start = m.index + m[0].length;
    const rest = file.text.slice(start);
    const brace = /^[\w.[\]]*\{/.exec(rest) ?? /^[\w.]+\(/.exec(rest);
    if (brace !== null) {
      const open = start + brace[0].length - 1;
      return {
        expr:
          file.text.slice(start, open) +
          file.text[open] +
          balanced(file.text, open) +
          (file.text[open] === "{" ? "}" : ")"),
        file,
      };
    }
    return { expr: (/^[^\n]*/.exec(rest)?.[0] ?? "").trim(), file };
  }
  return undefined;
}

/** Resolves a possibly package-qualified identifier used in file to its definition. */
export function resolve(file: GoFile, ref: string): { expr: string; file: GoFile } {
  const [qualifier, ident] = ref.includes(".") ? (ref.split(".") as [string, string]) : [undefined, ref];
  const importPath = qualifier === undefined ? undefined : file.imports.get(qualifier);
  const dir = qualifier === undefined ? file.dir : importPath === undefined ? undefined : importDir(importPath);
  const found = dir === undefined ? undefined : definition(dir, ident);
  if (found === undefined) throw new ExtractError(`${file.rel}: cannot resolve ${ref}`);
  return found;
}

/** A Go string expression: literals, constants, `+`, string(x), strings.ToLower(x), pretty.ToSnakeCase(x). */
export function str(file: GoFile, expr: string): string {
  const e = expr.trim();
  const parts = splitPlus(e);
  if (parts.length > 1) return parts.map((p) => str(file, p)).join("");
  const literal = /^"((?:[^"\\]|\\.)*)"$/.exec(e) ?? /^`([^`]*)`$/.exec(e);
  if (literal !== null) return literal[1] ?? "";
  const call = /^([\w.]+)\(([\s\S]*)\)$/.exec(e);
  if (call !== null) {
    const inner = str(file, call[2] ?? "");
    if (call[1] === "strings.ToLower") return inner.toLowerCase();
    if (call[1] === "pretty.ToSnakeCase") return inner.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
    return inner; // a type conversion such as string(x) or corev1.ResourceName(x)
  }
  if (/^[\w.]+$/.test(e)) {
    const def = resolve(file, e);
    return str(def.file, def.expr);
  }
  throw new ExtractError(`${file.rel}: not a string expression: ${e}`);
}

/** The top-level operands of a `+` expression. */
function splitPlus(e: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = "";
  let start = 0;
  for (let i = 0; i < e.length; i++) {
    const c = e[i] ?? "";
    if (quote !== "") {
      if (c === "\\") i++;
      else if (c === quote) quote = "";
      continue;
    }
    if (c === '"' || c === "`") quote = c;
    else if ("({[".includes(c)) depth++;
    else if (")}]".includes(c)) depth--;
    else if (c === "+" && depth === 0) {
      parts.push(e.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(e.slice(start));
  return parts.map((p) => p.trim());
}

/** The package folders under `dir` (module-cache relative) that hold Go sources, tests and fakes left out. */
export function walk(dir: string): string[] {
  return readdirSync(path.join(MOD, dir)).flatMap((n) => {
    const rel = path.join(dir, n);
    if (statSync(path.join(MOD, rel)).isDirectory()) {
      return ["test", "fake", "testdata"].includes(n) ? [] : walk(rel);
    }
    return n.endsWith(".go") && !n.endsWith("_test.go") ? [dir] : [];
  });
}
