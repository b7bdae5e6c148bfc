// Keeps the operator-coverage lists and the refusal table in docs/migrate.md true: every field of every schema
// under manifests/crds is either implemented or listed as ignored, and the table is exactly the lists.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";
import { coverageTableRows, IGNORED_FIELDS, IMPLEMENTED_FIELDS, type CoverageKind } from "./operator-coverage.ts";

const root = path.resolve(import.meta.dirname, "..");
const CRD_DIR = path.join(root, "manifests", "crds");

interface Node {
  properties?: Record<string, Node>;
  items?: Node;
  additionalProperties?: Node | boolean;
}

/** Every field location of a schema ("spec.a[].b"; "{}" for map values), parents first. */
function fieldsOf(node: Node, at = "", out: string[] = []): string[] {
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const here = at === "" ? name : `${at}.${name}`;
    out.push(here);
    fieldsOf(child, here, out);
  }
  if (node.items !== undefined) fieldsOf(node.items, `${at}[]`, out);
  if (typeof node.additionalProperties === "object") fieldsOf(node.additionalProperties, `${at}{}`, out);
  return out;
}

/** Each kind served by the bundled CRDs (every version) with its fields. */
function bundledFields(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of readdirSync(CRD_DIR)
    .filter((f) => f.endsWith(".yaml"))
    .sort()) {
    for (const doc of parseAllDocuments(readFileSync(path.join(CRD_DIR, file), "utf8"))) {
      const crd = doc.toJS() as {
        spec?: { names?: { kind?: string }; versions?: { schema?: { openAPIV3Schema?: Node } }[] };
      } | null;
      const kind = crd?.spec?.names?.kind;
      if (kind === undefined) continue;
      const fields = (crd?.spec?.versions ?? []).flatMap((v) =>
        v.schema?.openAPIV3Schema === undefined ? [] : fieldsOf(v.schema.openAPIV3Schema),
      );
      out.set(kind, [...new Set([...(out.get(kind) ?? []), ...fields])]);
    }
  }
  return out;
}

const parentOf = (field: string): [string, string] => {
  const match = /^(.*?)\.?([^.[\]{}]+)$/.exec(field);
  return [field.slice(0, field.length - (match?.[2]?.length ?? 0)).replace(/\.$/, ""), match?.[2] ?? field];
};

function implemented(kind: CoverageKind, field: string): boolean {
  const [parent, name] = parentOf(field);
  return IMPLEMENTED_FIELDS[kind][parent]?.includes(name) === true;
}

function ignored(kind: CoverageKind, field: string): boolean {
  return IGNORED_FIELDS.some(
    (f) => f.kind === kind && (field === f.path || [".", "[]", "{}"].some((s) => field.startsWith(f.path + s))),
  );
}

void describe("kerf's operator coverage of the bundled CRDs", () => {
  const kinds = bundledFields();

  void it("classifies every field of every schema under manifests/crds as implemented or ignored", () => {
    assert.ok(kinds.size >= 3, [...kinds.keys()].join());
    const unclassified: string[] = [];
    for (const [kind, fields] of kinds) {
      if (!Object.hasOwn(IMPLEMENTED_FIELDS, kind)) {
        unclassified.push(`${kind}: the whole kind (add it to policies/operator-coverage.ts)`);
        continue;
      }
      for (const field of fields)
        if (!implemented(kind as CoverageKind, field) && !ignored(kind as CoverageKind, field))
          unclassified.push(`${kind} ${field}`);
    }
    assert.deepEqual(
      unclassified,
      [],
      "list each field in IMPLEMENTED_FIELDS or IGNORED_FIELDS (policies/operator-coverage.ts)",
    );
  });

  void it("lists no field twice, nor one the CRDs do not have", () => {
    const problems: string[] = [];
    const listed = (Object.entries(IMPLEMENTED_FIELDS) as [CoverageKind, Record<string, readonly string[]>][]).flatMap(
      ([kind, parents]) =>
        Object.entries(parents).flatMap(([parent, names]) =>
          names.map((name) => [kind, parent === "" ? name : `${parent}.${name}`] as const),
        ),
    );
    for (const [kind, field] of listed) {
      if (!(kinds.get(kind) ?? []).includes(field)) problems.push(`implemented ${kind} ${field}: not in the CRD`);
      if (ignored(kind, field)) problems.push(`${kind} ${field}: both implemented and ignored`);
    }
    for (const f of IGNORED_FIELDS)
      if (!(kinds.get(f.kind) ?? []).includes(f.path)) problems.push(`ignored ${f.kind} ${f.path}: not in the CRD`);
    assert.deepEqual(problems, []);
  });
});

void describe("the refusal table in docs/migrate.md", () => {
  void it("is exactly the operator-coverage lists, row for row", () => {
    const text = readFileSync(path.join(root, "docs", "migrate.md"), "utf8");
    const section = text.split(/^## /m).find((s) => s.startsWith("What kerf's operator ignores")) ?? "";
    const rows = section
      .split("\n")
      .filter((l) => l.startsWith("| `"))
      .map((l) =>
        l
          .slice(1, -1)
          .split(" | ")
          .map((c) => c.trim()),
      );
    const want = coverageTableRows().map(([what, where, karpenter]) => [`\`${what}\``, where, karpenter]);
    const table = want.map((r) => `| ${r.join(" | ")} |`).join("\n");
    assert.deepEqual(
      rows,
      want,
      `docs/migrate.md, "## What kerf's operator ignores", should hold this table:\n${table}`,
    );
  });
});
