// docs/scheduling-parity.md lists every Karpenter It of the ported files with a status; this keeps the list and
// the suite in step: every case's cited It must be listed as ported (or a deliberate difference) naming the case.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { cases as clusterState } from "./cluster-state.cases.ts";
import { cases as constraints } from "./constraints.cases.ts";
import { cases as defaultSpread } from "./default-spread.cases.ts";
import { cases as instanceSelection } from "./instance-selection.cases.ts";
import { cases as provisioning } from "./provisioning.cases.ts";
import { cases as requests } from "./requests.cases.ts";
import { cases as topology } from "./topology.cases.ts";
import { cases as volumes } from "./volumes.cases.ts";
import type { ParityCase, Source } from "./harness.ts";

const doc = readFileSync(path.resolve(import.meta.dirname, "../../../docs/scheduling-parity.md"), "utf8");

interface Row {
  readonly file: string;
  readonly it: string;
  readonly status: string;
  readonly where: string;
}

/** The table rows of the document, each under the Karpenter file of its section. */
function rows(): Row[] {
  const out: Row[] = [];
  let file = "";
  for (const line of doc.split("\n")) {
    const section = /^## `pkg\/controllers\/provisioning\/(.+)`$/.exec(line);
    if (section !== null) file = section[1]!;
    const cells = line.startsWith("| ")
      ? line
          .slice(2, -2)
          .split(/ (?<!\\)\| /)
          .map((c) => c.replace(/\\\|/g, "|"))
      : [];
    if (cells.length === 5 && /^\d+$/.test(cells[0]!)) {
      out.push({ file, it: cells[2]!, status: cells[3]!, where: cells[4]! });
    }
  }
  return out;
}

const all: readonly ParityCase[] = [
  ...constraints,
  ...topology,
  ...provisioning,
  ...instanceSelection,
  ...clusterState,
  ...volumes,
  ...requests,
  ...defaultSpread,
];
const sources = (c: ParityCase): readonly Source[] => (Array.isArray(c.from) ? c.from : [c.from as Source]);

describe("the scheduling parity document", () => {
  const table = rows();
  it("lists every It and Entry of the four Karpenter files (477 rows)", () => assert.equal(table.length, 477));
  it("lists every ported case as ported under the It it cites, naming the case", () => {
    for (const c of all) {
      for (const s of sources(c)) {
        const row = table.filter((r) => r.file === s.file && r.it === s.it);
        assert.ok(row.length > 0, `${s.file} '${s.it}' is not listed`);
        for (const r of row) {
          assert.match(r.status, /^(ported|deliberate difference)/, `${s.file} '${s.it}' is listed as ${r.status}`);
          assert.ok(r.where.includes(c.name), `${s.file} '${s.it}' does not name the case '${c.name}'`);
        }
      }
    }
  });
});
