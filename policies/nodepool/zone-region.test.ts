import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog } from "../domain/catalog/builtin.ts";
import { defaultPolicyConfig } from "../config.ts";
import { evaluate } from "../evaluate.ts";
import { foreignLocations, regionOfZone } from "./zone-region.ts";

const requirement = (key: string, operator: string, values: string[]): Record<string, unknown> => ({
  key,
  operator,
  values,
});
const ZONE = "topology.kubernetes.io/zone";

void describe("zone-region: requirements name the checked region only", () => {
  const zones: Array<[string, string | undefined]> = [
    ["eu-west-1a", "eu-west-1"],
    ["us-east-1f", "us-east-1"],
    ["ap-southeast-4b", "ap-southeast-4"],
    ["us-gov-west-1a", "us-gov-west-1"],
    ["us-east-1-bos-1a", "us-east-1"],
    ["ap-northeast-1-wl1-nrt-wlz-1", "ap-northeast-1"],
    ["use1-az1", undefined],
    ["zone-a", undefined],
    ["", undefined],
  ];
  for (const [zone, region] of zones) {
    void it(`reads zone ${JSON.stringify(zone)} as region ${String(region)}`, () => {
      assert.equal(regionOfZone(zone), region);
    });
  }

  const cases: Array<[string, string, Record<string, unknown>[], RegExp[]]> = [
    [
      "a us-east-1 zone checked against eu-west-1",
      "eu-west-1",
      [requirement(ZONE, "In", ["us-east-1a"])],
      [/^zone us-east-1a is in region us-east-1, but kerf checks against region eu-west-1 \(eu-west-1's zones are /],
    ],
    [
      "one foreign zone among own ones",
      "us-east-1",
      [requirement(ZONE, "In", ["us-east-1a", "eu-west-1b"])],
      [/^zone eu-west-1b is in region eu-west-1/],
    ],
    [
      "the beta zone key",
      "eu-west-1",
      [requirement("failure-domain.beta.kubernetes.io/zone", "In", ["us-west-2a"])],
      [/zone us-west-2a is in region us-west-2/],
    ],
    ["own zones only", "eu-west-1", [requirement(ZONE, "In", ["eu-west-1a", "eu-west-1c"])], []],
    ["a foreign zone under NotIn (harmless)", "eu-west-1", [requirement(ZONE, "NotIn", ["us-east-1a"])], []],
    [
      "an unknown zone of the region itself (requirements-satisfiable's concern)",
      "eu-west-1",
      [requirement(ZONE, "In", ["eu-west-1z"])],
      [],
    ],
    [
      "a zone ID of another region",
      "eu-west-1",
      [requirement("topology.k8s.aws/zone-id", "In", ["use1-az1"])],
      [/^zone ID use1-az1 is not of region eu-west-1, whose zone IDs start with euw1-/],
    ],
    ["an own zone ID", "eu-west-1", [requirement("topology.k8s.aws/zone-id", "In", ["euw1-az2"])], []],
    [
      "another region",
      "eu-west-1",
      [requirement("topology.kubernetes.io/region", "In", ["us-east-1"])],
      [/^region us-east-1 is not the cluster's region: kerf checks against region eu-west-1/],
    ],
    [
      "a region list including the checked one",
      "eu-west-1",
      [requirement("topology.kubernetes.io/region", "In", ["us-east-1", "eu-west-1"])],
      [],
    ],
    ["requirements that are not a list", "eu-west-1", [], []],
  ];
  for (const [what, region, requirements, expected] of cases) {
    void it(`reports ${expected.length === 0 ? "nothing" : expected.length} for ${what}`, () => {
      const found = foreignLocations(requirements, builtinCatalog(region));
      assert.equal(found.length, expected.length, JSON.stringify(found));
      found.forEach((f, i) => assert.match(f.message, expected[i] ?? /^$/));
    });
  }

  void it("points at the offending value", () => {
    const requirements = [
      requirement("kubernetes.io/arch", "In", ["amd64"]),
      requirement(ZONE, "In", ["eu-west-1a", "us-east-1b"]),
    ];
    const found = foreignLocations(requirements, builtinCatalog("eu-west-1"));
    assert.deepEqual(
      found.map((f) => f.path),
      ["spec.template.spec.requirements[1].values[1]"],
    );
  });

  void it("denies such a NodePool through the engine, naming the policy", () => {
    const nodePool = {
      apiVersion: "karpenter.sh/v1",
      kind: "NodePool",
      metadata: { name: "copied" },
      spec: {
        limits: { cpu: "100", memory: "400Gi" },
        template: {
          spec: {
            nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "d" },
            requirements: [requirement(ZONE, "In", ["eu-west-1a", "us-east-1a"])],
          },
        },
      },
    };
    const verdict = (region: string): ReturnType<typeof evaluate> =>
      evaluate({
        kind: "NodePool",
        operation: "CREATE",
        object: nodePool,
        context: { catalog: builtinCatalog(region), config: defaultPolicyConfig() },
      });
    const inEu = verdict("eu-west-1");
    assert.equal(inEu.allowed, false);
    const zoneRegion = (v: ReturnType<typeof evaluate>): string[][] =>
      v.findings.filter((f) => f.policy === "zone-region").map((f) => [f.severity, f.path]);
    assert.deepEqual(zoneRegion(inEu), [["deny", "spec.template.spec.requirements[0].values[1]"]]);
    const inUs = verdict("us-east-1");
    assert.deepEqual(zoneRegion(inUs), [["deny", "spec.template.spec.requirements[0].values[0]"]]);
  });
});
