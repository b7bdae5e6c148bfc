import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { PdbLike, Pod } from "../lifecycle/objects.ts";
import { selectorMatches } from "../scheduling/selector.ts";
import type { LabelSelector } from "../scheduling/types.ts";
import { PdbIndex } from "./pod-blockers.ts";

const KEYS = ["app", "tier", "team"];
const VALUES = ["a", "b", "c"];
const labelsArb = fc.dictionary(fc.constantFrom(...KEYS), fc.constantFrom(...VALUES), { maxKeys: 3 });
const selectorArb: fc.Arbitrary<LabelSelector | null | undefined> = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.constant({}),
  fc.record({ matchLabels: labelsArb }),
  fc.record({
    matchLabels: labelsArb,
    matchExpressions: fc.array(
      fc.record({
        key: fc.constantFrom(...KEYS),
        values: fc.subarray(VALUES),
        operator: fc.constantFrom("In", "NotIn", "Exists", "DoesNotExist"),
      }),
      { maxLength: 2 },
    ),
  }),
) as fc.Arbitrary<LabelSelector | null | undefined>;
const nsArb = fc.constantFrom("default", "other");

/** What the index must answer: every PDB of the pod's namespace whose selector matches, in input order. */
function bruteForce(pdbs: readonly PdbLike[], pod: Pod): PdbLike[] {
  return pdbs.filter(
    (p) =>
      p.metadata?.namespace === pod.metadata?.namespace &&
      p.spec?.selector !== undefined &&
      p.spec.selector !== null &&
      selectorMatches(p.spec.selector as LabelSelector, pod.metadata?.labels ?? {}),
  );
}

void describe("the PodDisruptionBudget index", () => {
  void it("should find exactly the PDBs a full scan of the namespace finds, in the same order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ ns: nsArb, selector: selectorArb }), { maxLength: 12 }),
        fc.array(fc.record({ ns: nsArb, labels: labelsArb }), { minLength: 1, maxLength: 8 }),
        (specs, podSpecs) => {
          const pdbs = specs.map(
            (s, i) =>
              ({
                metadata: { name: `pdb-${i}`, namespace: s.ns },
                spec: { selector: s.selector },
              }) as PdbLike,
          );
          const index = new PdbIndex(pdbs);
          for (const [i, p] of podSpecs.entries()) {
            const pod = { metadata: { name: `pod-${i}`, namespace: p.ns, labels: p.labels } } as Pod;
            const names = (found: readonly PdbLike[]): (string | undefined)[] => found.map((x) => x.metadata?.name);
            assert.deepEqual(names(index.selecting(pod)), names(bruteForce(pdbs, pod)));
          }
        },
      ),
      { numRuns: 500, seed: 21 },
    );
  });
});
