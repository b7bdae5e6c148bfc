import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ReservationRoom } from "./room.ts";

/** A room with reservations `a` (EC2 says 1 free) and `b` (2 free). */
function room(): ReservationRoom {
  const r = new ReservationRoom();
  r.sync("a", 1);
  r.sync("b", 2);
  return r;
}

void describe("ReservationRoom", () => {
  const cases: { name: string; steps: (r: ReservationRoom) => void; a: number; b: number }[] = [
    { name: "starts from EC2's counts", steps: () => undefined, a: 1, b: 2 },
    {
      name: "a hold takes one slot of each reservation it names, once per id",
      steps: (r) => void r.hold(["a", "b", "b"]),
      a: 0,
      b: 1,
    },
    {
      name: "two holds add up, and room never goes below 0",
      steps: (r) => (r.hold(["a"]), void r.hold(["a"])),
      a: 0,
      b: 2,
    },
    { name: "a release gives the slots back", steps: (r) => r.hold(["a", "b"])(), a: 1, b: 2 },
    {
      name: "a second call of the same release gives nothing back twice",
      steps: (r) => {
        const other = r.hold(["b"]);
        const release = r.hold(["b"]);
        release();
        release();
        void other;
      },
      a: 1,
      b: 1,
    },
    {
      name: "a launch counted, then its hold released: the slot stays used",
      steps: (r) => {
        const release = r.hold(["a", "b"]);
        r.markLaunched("b");
        release();
      },
      a: 1,
      b: 1,
    },
    {
      name: "a release does not undo a markFull made during the launch",
      steps: (r) => {
        const release = r.hold(["b"]);
        r.markFull("b");
        release();
      },
      a: 1,
      b: 0,
    },
    {
      name: "a refresh from EC2 during the launch keeps the hold on top of the new count",
      steps: (r) => {
        r.hold(["b"]);
        r.sync("b", 5);
      },
      a: 1,
      b: 4,
    },
    {
      name: "a termination gives its slot back once, however often it is seen",
      steps: (r) => {
        r.markLaunched("a");
        r.markTerminated("a", "i-1");
        r.markTerminated("a", "i-1");
      },
      a: 1,
      b: 2,
    },
    {
      name: "a launch into a full reservation leaves it at 0",
      steps: (r) => (r.markLaunched("a"), r.markLaunched("a")),
      a: 0,
      b: 2,
    },
  ];
  for (const c of cases) {
    void it(c.name, () => {
      const r = room();
      c.steps(r);
      assert.deepEqual([r.capacity("a"), r.capacity("b")], [c.a, c.b]);
    });
  }

  void it("offers nothing of a reservation EC2 never reported, held or not", () => {
    const r = new ReservationRoom();
    r.hold(["x"])();
    r.markTerminated("x", "i-2");
    assert.equal(r.capacity("x"), 0);
  });
});
