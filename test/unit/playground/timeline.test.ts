import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { niceMax, timelineSvg } from "../../playground/timeline.ts";

void describe("the playground timeline picture", () => {
  void it("draws pods, nodes and cost as step lines with a marker per scaling step", () => {
    const svg = timelineSvg(
      [
        { atMs: 0, running: 0, readyNodes: 0, costPerHour: 0 },
        { atMs: 10_000, running: 12, readyNodes: 2, costPerHour: 0.192 },
        { atMs: 40_000, running: 0, readyNodes: 0, costPerHour: 0 },
      ],
      [
        { atMs: 0, replicas: 12 },
        { atMs: 30_000, replicas: 0 },
      ],
    );
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.equal((svg.match(/<path /g) ?? []).length, 3, "three series");
    assert.match(svg, />→ 12</);
    assert.match(svg, />→ 0</);
    assert.match(svg, />\$0\.20</, "the cost axis tops out at a round value above the peak");
    assert.match(svg, /<\/svg>\n$/);
  });

  void it("rounds axis maxima up to 1, 2 or 5 times a power of ten", () => {
    assert.deepEqual([0, 0.192, 3, 12, 49, 120].map(niceMax), [1, 0.2, 5, 20, 50, 200]);
  });
});
