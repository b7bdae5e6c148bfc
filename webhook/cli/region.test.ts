// `--region` of kerf check and kerf simulate: the bundled catalog of the cluster's region, its zones and prices.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { run } from "./main.ts";
import { capture } from "./captured-io.ts";

const nodePool = (zones: string[]): string => `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: web}
spec:
  limits: {cpu: "100", memory: 400Gi}
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}
        - {key: topology.kubernetes.io/zone, operator: In, values: [${zones.join(", ")}]}
`;

const scenario = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  role: R
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {a: b}}]
  securityGroupSelectorTerms: [{tags: {a: b}}]
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: 1Gi}}}]
`;

void describe("kerf check --region", () => {
  const cases: Array<[string, string[], string[], number, RegExp | undefined]> = [
    [
      "denies a us-east-1 zone in eu-west-1",
      ["--region", "eu-west-1"],
      ["us-east-1a"],
      1,
      new RegExp(
        "deny NodePool/web spec\\.template\\.spec\\.requirements\\[1\\]\\.values\\[0\\]: " +
          "zone us-east-1a is in region us-east-1, but kerf checks against region eu-west-1.*\\[zone-region\\]",
      ),
    ],
    ["allows eu-west-1 zones in eu-west-1", ["--region", "eu-west-1"], ["eu-west-1a", "eu-west-1b"], 0, undefined],
    [
      "denies eu-west-1 zones without --region (us-east-1)",
      [],
      ["eu-west-1a"],
      1,
      /zone eu-west-1a is in region eu-west-1, but kerf checks against region us-east-1/,
    ],
    ["allows us-east-1 zones without --region", [], ["us-east-1a"], 0, undefined],
  ];
  for (const [what, flags, zones, code, message] of cases) {
    void it(`${what} (exit ${code})`, async () => {
      const c = capture({ stdin: nodePool(zones) });
      assert.equal(await run(["check", "-", ...flags], c.io), code, c.out() + c.err());
      if (message !== undefined) assert.match(c.out(), message);
      else assert.doesNotMatch(c.out(), /zone-region/);
    });
  }

  void it("refuses a region kerf bundles no data for, listing the bundled ones (exit 2)", async () => {
    const c = capture({ stdin: nodePool(["eu-west-1a"]) });
    assert.equal(await run(["check", "-", "--region", "eu-west-9"], c.io), 2);
    assert.match(
      c.err(),
      /^kerf check: --region: no bundled catalog for "eu-west-9" \(bundled: af-south-1, .*eu-west-1, .*us-west-2\)$/m,
    );
  });

  void it("lists the bundled regions in --help", async () => {
    const c = capture();
    assert.equal(await run(["check", "--help"], c.io), 0);
    assert.match(c.out(), /--region REGION/);
    const list = c
      .out()
      .split("\n")
      .filter((l) => /^ +[a-z]{2}-[a-z]+-\d, /.test(l));
    assert.ok(list.length >= 3 && list.every((l) => l.length <= 100), list.join("\n"));
    assert.equal(list.join(" ").match(/[a-z]{2}-[a-z]+-\d/g)?.length, 30);
  });

  void it("--explain prints on-demand only where spot prices are not bundled, and whose prices", async () => {
    const c = capture({ stdin: nodePool(["eu-west-1a"]) });
    assert.equal(await run(["check", "-", "--explain", "--region", "eu-west-1"], c.io), 0, c.err());
    assert.match(c.out(), /^ {2}spot: \d+ types; no spot prices are bundled for eu-west-1, so this prints on-demand/m);
    assert.match(
      c.out(),
      /^explain prices \(region eu-west-1\): on-demand: .*us-east-1 prices are used.*\(us-east-1's prices, not/m,
    );
    assert.match(c.out(), /^explain prices \(region eu-west-1\): spot: none bundled for eu-west-1/m);
    const json = capture({ stdin: nodePool(["eu-west-1a"]) });
    assert.equal(await run(["check", "-", "--explain", "--region", "eu-west-1", "--format", "json"], json.io), 0);
    interface Explained {
      prices: { spot: unknown };
      spot: { instanceTypes: number; cheapest: unknown };
    }
    const explain = (JSON.parse(json.out()) as { results: Array<{ explain: Explained }> }).results[0]?.explain;
    assert.equal(explain?.prices.spot, null);
    assert.ok((explain?.spot.instanceTypes ?? 0) > 0);
    assert.equal(explain?.spot.cheapest, null);
  });

  void it("--explain prices spot in us-east-1, with the feed named", async () => {
    const c = capture({ stdin: nodePool(["us-east-1a"]) });
    assert.equal(await run(["check", "-", "--explain"], c.io), 0, c.err());
    assert.match(c.out(), /^ {2}spot: \d+ types, cheapest /m);
    assert.match(c.out(), /^explain prices \(region us-east-1\): spot: AWS's public spot pricing feed/m);
  });
});

void describe("kerf simulate --region", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "kerf-region-"));
  const file = path.join(dir, "scenario.yaml");
  writeFileSync(file, scenario);

  const regions: Array<[string, RegExp, RegExp]> = [
    [
      "eu-west-1",
      /^ {2}on-demand: Karpenter's generated on-demand price table .*2026-07-20T13:44:30Z\): it has no/m,
      /^ {2}spot: none bundled for eu-west-1/m,
    ],
    [
      "us-east-1",
      /^ {2}on-demand: Karpenter's generated on-demand price table .*us-east-1 map; as of 2026-07-20/m,
      /^ {2}spot: AWS's public spot pricing feed/m,
    ],
  ];
  for (const [region, onDemand, spot] of regions) {
    void it(`plans in ${region}'s zones and states the source and date of the prices`, async () => {
      const c = capture();
      assert.equal(await run(["simulate", "-f", file, "--region", region], c.io), 0, c.err());
      assert.match(c.out(), new RegExp(`m5\\.large on-demand in ${region}[a-f], \\$0\\.0960/h`));
      assert.match(c.out(), new RegExp(`^Prices: kerf's bundled ${region} catalog, built \\d{4}-\\d{2}-\\d{2}$`, "m"));
      assert.match(c.out(), onDemand);
      assert.match(c.out(), spot);
    });
  }

  void it("puts the price sources in the JSON plan", async () => {
    const c = capture();
    assert.equal(await run(["simulate", "-f", file, "--region", "eu-west-1", "--format", "json"], c.io), 0, c.err());
    const plan = JSON.parse(c.out()) as { prices: { region: string; spot: unknown; onDemand: string } };
    assert.equal(plan.prices.region, "eu-west-1");
    assert.equal(plan.prices.spot, null);
    assert.match(plan.prices.onDemand, /us-east-1's prices, not eu-west-1's/);
  });

  void it("refuses an unbundled region (exit 2)", async () => {
    const c = capture();
    assert.equal(await run(["simulate", "-f", file, "--region", "mars-1"], c.io), 2);
    assert.match(c.err(), /--region: no bundled catalog for "mars-1"/);
  });
});
