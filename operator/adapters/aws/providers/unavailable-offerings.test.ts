import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { UnavailableOfferings, UNAVAILABLE_OFFERINGS_TTL_MS } from "./unavailable-offerings.ts";

function clockAt(start: number): { now(): Date; advance(ms: number): void } {
  let t = start;
  return {
    now: () => new Date(t),
    advance: (ms) => {
      t += ms;
    },
  };
}

void describe("the unavailable-offerings cache", () => {
  void it("should mark an offering unavailable for three minutes and then forget it", () => {
    const clock = clockAt(Date.UTC(2000, 0, 1));
    const cache = new UnavailableOfferings({ clock });
    cache.markUnavailable("on-demand", "m5.large", "us-east-1a");
    assert.equal(UNAVAILABLE_OFFERINGS_TTL_MS, 180_000);
    assert.ok(cache.isUnavailable("on-demand", "m5.large", "us-east-1a"));
    assert.deepEqual([...cache.keys()], ["on-demand:m5.large:us-east-1a"]);
    clock.advance(179_999);
    assert.ok(cache.isUnavailable("on-demand", "m5.large", "us-east-1a"));
    clock.advance(1);
    assert.ok(!cache.isUnavailable("on-demand", "m5.large", "us-east-1a"));
    assert.equal(cache.keys().size, 0);
  });

  void it("should key offerings by capacity type, type and zone", () => {
    const cache = new UnavailableOfferings({ clock: clockAt(0) });
    cache.markUnavailable("spot", "m5.large", "us-east-1a");
    const cases: [string, string, string, boolean][] = [
      ["spot", "m5.large", "us-east-1a", true],
      ["on-demand", "m5.large", "us-east-1a", false],
      ["spot", "m5.xlarge", "us-east-1a", false],
      ["spot", "m5.large", "us-east-1b", false],
    ];
    for (const [ct, type, zone, want] of cases)
      assert.equal(cache.isUnavailable(ct, type, zone), want, `${ct}:${type}:${zone}`);
  });

  void it("should refresh the expiry when an offering fails again", () => {
    const clock = clockAt(0);
    const cache = new UnavailableOfferings({ clock });
    cache.markUnavailable("spot", "c5.large", "us-east-1b");
    clock.advance(120_000);
    cache.markUnavailable("spot", "c5.large", "us-east-1b");
    clock.advance(120_000);
    assert.ok(cache.isUnavailable("spot", "c5.large", "us-east-1b"));
  });

  void it("should make all of spot unavailable when spot itself is refused", () => {
    const clock = clockAt(0);
    const cache = new UnavailableOfferings({ clock });
    cache.markSpotUnavailable();
    assert.ok(cache.isUnavailable("spot", "anything", "anywhere"));
    assert.ok(!cache.isUnavailable("on-demand", "anything", "anywhere"));
    clock.advance(UNAVAILABLE_OFFERINGS_TTL_MS);
    assert.ok(!cache.spotUnavailable());
  });
});
