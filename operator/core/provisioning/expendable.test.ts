import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Pod } from "../lifecycle/objects.ts";
import { noLaunchReason, parsePriorityCutoff } from "./expendable.ts";

const pod = (priority?: number): Pod => ({ metadata: { name: "p" }, spec: priority === undefined ? {} : { priority } });

void describe("expendable pods (--expendable-pods-priority-cutoff)", () => {
  const cases: readonly { name: string; pod: Pod; cutoff: number | undefined; expendable: boolean }[] = [
    { name: "let every pod launch without a cutoff", pod: pod(-1000), cutoff: undefined, expendable: false },
    { name: "keep a pod below the cutoff from launching", pod: pod(-11), cutoff: -10, expendable: true },
    {
      name: "let a pod at the cutoff launch (only below is expendable, as Cluster Autoscaler)",
      pod: pod(-10),
      cutoff: -10,
      expendable: false,
    },
    { name: "let a pod above the cutoff launch", pod: pod(1000), cutoff: 0, expendable: false },
    { name: "read a pod without a priority as 0", pod: pod(), cutoff: 1, expendable: true },
    { name: "let a pod without a priority launch at cutoff 0", pod: pod(), cutoff: 0, expendable: false },
  ];
  for (const c of cases) {
    void it(`should ${c.name}`, () => assert.equal(noLaunchReason(c.pod, c.cutoff) !== undefined, c.expendable));
  }

  void it("should say in the reason which priority and cutoff keep the pod from launching a node", () => {
    assert.match(
      noLaunchReason(pod(5), 10) ?? "",
      new RegExp(
        "^pod priority 5 is below the expendable-pods priority cutoff 10 " +
          "\\(--expendable-pods-priority-cutoff\\): .*never launches a node",
      ),
    );
  });

  const parses: readonly [string, number | undefined][] = [
    ["", undefined],
    [" ", undefined],
    ["-10", -10],
    ["0", 0],
    ["2147483647", 2147483647],
    ["-2147483648", -2147483648],
  ];
  for (const [raw, want] of parses)
    void it(`should read the cutoff "${raw}" as ${String(want)}`, () => assert.equal(parsePriorityCutoff(raw), want));
  for (const raw of ["low", "1.5", "2147483648", "1e3"]) {
    void it(`should refuse the cutoff "${raw}"`, () =>
      assert.throws(() => parsePriorityCutoff(raw), /is not a 32-bit integer pod priority/));
  }
});
