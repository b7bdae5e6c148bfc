import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { driftRolloutOf, wavePosition, waveSizes } from "./drift-waves.ts";

void describe("drift rollouts in growing waves", () => {
  void it("reads the annotation: absent, waves, anything else invalid", () => {
    assert.deepEqual(driftRolloutOf(undefined), { kind: "absent" });
    assert.deepEqual(driftRolloutOf({ "kerf.dev/drift-rollout": "waves" }), { kind: "waves" });
    assert.equal(driftRolloutOf({ "kerf.dev/drift-rollout": "Waves" }).kind, "invalid");
  });

  const positions: [string, number, number, { wave: number; size: number; settled: number; startable: number }][] = [
    ["starts the first wave with one node", 0, 0, { wave: 1, size: 1, settled: 0, startable: 1 }],
    ["waits while the first wave's node is being replaced", 0, 1, { wave: 1, size: 1, settled: 0, startable: 0 }],
    [
      "counts a replacement and its candidate once they are both in progress as more than the wave",
      0,
      2,
      { wave: 1, size: 1, settled: 0, startable: 0 },
    ],
    ["starts the second wave of two once the first settled", 1, 0, { wave: 2, size: 2, settled: 0, startable: 2 }],
    [
      "lets the rest of a wave start while part of it is in progress",
      1,
      1,
      { wave: 2, size: 2, settled: 0, startable: 1 },
    ],
    [
      "does not start the next wave while one node of this wave is still in progress",
      2,
      1,
      { wave: 2, size: 2, settled: 1, startable: 0 },
    ],
    [
      "lets the last node of a wave start when the others settled",
      2,
      0,
      { wave: 2, size: 2, settled: 1, startable: 1 },
    ],
    ["starts the third wave of four after three settled", 3, 0, { wave: 3, size: 4, settled: 0, startable: 4 }],
    ["starts the fourth wave of eight after seven settled", 7, 0, { wave: 4, size: 8, settled: 0, startable: 8 }],
  ];
  for (const [title, done, inProgress, want] of positions) {
    void it(title, () => assert.deepEqual(wavePosition({ done, inProgress }), want));
  }

  void it("never lets a wave hold more nodes than its size, nor start the next before it settles", () => {
    fc.assert(
      fc.property(fc.nat(10_000), fc.nat(50), (done, inProgress) => {
        const p = wavePosition({ done, inProgress });
        assert.equal(p.size, 2 ** (p.wave - 1));
        assert.ok(p.settled >= 0 && p.settled < p.size);
        assert.ok(p.settled + inProgress + p.startable <= Math.max(p.size, p.settled + inProgress));
        assert.equal(done, p.size - 1 + p.settled, "waves before this one are whole");
      }),
    );
  });

  const sizes: [number, number[]][] = [
    [0, []],
    [1, [1]],
    [2, [1, 1]],
    [3, [1, 2]],
    [4, [1, 2, 1]],
    [10, [1, 2, 4, 3]],
    [40, [1, 2, 4, 8, 16, 9]],
  ];
  for (const [drifting, want] of sizes) {
    void it(`splits ${drifting} drifting nodes into waves of ${want.join(", ") || "none"}`, () => {
      assert.deepEqual(waveSizes(drifting), want);
    });
  }
});
