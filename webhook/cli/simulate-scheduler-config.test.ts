import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  DEFAULT_NODE_CLASS,
  deployment,
  documents,
  m5NodePool,
  simulatePlan,
  simulateRefused,
  writeTempFile,
} from "./simulate-fixtures.ts";

const scenario = documents(DEFAULT_NODE_CLASS, m5NodePool("default"), deployment("web", 3));

/** A scheduler config whose one default constraint spreads over hostnames, with `extra` fields. */
const spreadConfig = (extra = ""): string =>
  "podTopologySpread:\n  defaultConstraints:\n" +
  `  - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule${extra}}\n`;

describe("kerf simulate --scheduler-config (issue 22 item 9)", () => {
  const scenarioFile = writeTempFile(scenario);

  it("spreads a Deployment's pods by the default constraints, as the operator would", async () => {
    const config = writeTempFile(spreadConfig(), "hostname.yaml");
    assert.equal((await simulatePlan(["-f", scenarioFile, "--scheduler-config", config])).nodeClaims.length, 3);
    assert.equal((await simulatePlan(["-f", scenarioFile])).nodeClaims.length, 1);
  });

  it("refuses a configuration Karpenter refuses, naming the file and the field, with exit 2", async () => {
    const config = writeTempFile(spreadConfig(", labelSelector: {}"), "bad.yaml");
    const err = await simulateRefused(["-f", scenarioFile, "--scheduler-config", config]);
    assert.match(err, /--scheduler-config .*bad\.yaml: .*defaultConstraints\[0\]\.labelSelector must not be set/);
  });
});
