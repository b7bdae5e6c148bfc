// Writes manifests/crds/*.yaml from policies/api (run: node .ci/generate-crds.ts); a unit
// test fails when they are stale.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { renderCrds } from "../policies/api/crds.ts";

const dir = path.resolve(import.meta.dirname, "..", "manifests", "crds");
mkdirSync(dir, { recursive: true });
for (const [file, text] of Object.entries(renderCrds())) {
  writeFileSync(path.join(dir, file), text);
  console.log(`wrote manifests/crds/${file}`);
}
