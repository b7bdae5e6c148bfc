import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { unrecordedInstances, type TaggedInstance } from "./unrecorded-instance.ts";

const running = (id: string): TaggedInstance => ({ providerID: `aws:///us-east-1a/${id}`, state: "running" });
const stopping = (id: string): TaggedInstance => ({ providerID: `aws:///us-east-1a/${id}`, state: "shutting-down" });
const p = (id: string): string => `aws:///us-east-1a/${id}`;

void describe("the instance of a NodeClaim deleted before its providerID was written", () => {
  const cases: { name: string; remembered?: string; tagged: TaggedInstance[]; adopt?: string; terminate: string[] }[] =
    [
      { name: "no instance at all: nothing was launched", tagged: [], terminate: [] },
      { name: "the one tagged instance", tagged: [running("i-1")], adopt: p("i-1"), terminate: [] },
      {
        name: "the remembered launch even when the listing does not show it yet",
        remembered: p("i-9"),
        tagged: [],
        adopt: p("i-9"),
        terminate: [],
      },
      {
        name: "the remembered launch, listed as well, once",
        remembered: p("i-1"),
        tagged: [running("i-1")],
        adopt: p("i-1"),
        terminate: [],
      },
      {
        name: "a running instance over one shutting down",
        tagged: [stopping("i-1"), running("i-2")],
        adopt: p("i-2"),
        terminate: [],
      },
      {
        name: "one shutting down when it is the only one (termination waits for it)",
        tagged: [stopping("i-1")],
        adopt: p("i-1"),
        terminate: [],
      },
      {
        name: "the remembered launch, terminating a second running one",
        remembered: p("i-1"),
        tagged: [running("i-2"), running("i-1")],
        adopt: p("i-1"),
        terminate: [p("i-2")],
      },
    ];
  for (const c of cases) {
    void it(`should adopt ${c.name}`, () => {
      assert.deepEqual(unrecordedInstances(c.remembered, c.tagged), { adopt: c.adopt, terminate: c.terminate });
    });
  }
});
