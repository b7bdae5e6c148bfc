import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { runCheck } from "./check.ts";
import { capture } from "./captured-io.ts";

interface Result {
  line: number;
  kind: string;
  name: string;
  allowed: boolean;
  violations: { path: string; message: string; line: number; column: number }[];
}

const overlay = (spec: string): string => `apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata:
  name: overlay
spec:
${spec}`;

async function check(yaml: string, ...args: string[]): Promise<{ code: number; result: Result | undefined }> {
  const c = capture({ stdin: yaml });
  const code = await runCheck(["-", "--format", "json", ...args], c.io);
  return { code, result: (JSON.parse(c.out()) as { results: Result[] }).results[0] };
}

describe("kerf check on a NodeOverlay (karpenter.sh/v1alpha1)", () => {
  it("admits a valid overlay", async () => {
    const { code, result } = await check(
      overlay(`  weight: 10
  requirements:
    - key: node.kubernetes.io/instance-type
      operator: In
      values: ["m5.large"]
  priceAdjustment: "-10%"
  capacity:
    example.com/device: "1"
`),
    );
    assert.deepEqual([code, result?.kind, result?.allowed], [0, "NodeOverlay", true]);
  });

  const cases: { name: string; spec: string; path: string; message: RegExp; line: number }[] = [
    {
      name: "a weight above 10000",
      spec: "  requirements: []\n  weight: 20000\n",
      path: "spec.weight",
      message: /from 1 to 10000/,
      line: 7,
    },
    {
      name: "a price adjustment of -150%",
      spec: '  requirements: []\n  priceAdjustment: "-150%"\n',
      path: "spec.priceAdjustment",
      message: /should match/,
      line: 7,
    },
    {
      name: "both price and priceAdjustment",
      spec: '  requirements: []\n  price: "1"\n  priceAdjustment: "+1"\n',
      path: "spec",
      message: /cannot set both 'price' and 'priceAdjustment'/,
      line: 5,
    },
    {
      name: "cpu in capacity",
      spec: '  requirements: []\n  capacity:\n    cpu: "4"\n',
      path: "spec.capacity",
      message: /invalid resource restricted/,
      line: 7,
    },
    {
      name: "In without values",
      spec: "  requirements:\n    - key: node.kubernetes.io/instance-type\n      operator: In\n",
      path: "spec.requirements",
      message: /operator 'In' must have a value defined/,
      line: 6,
    },
    {
      name: "a karpenter.sh label",
      spec: "  requirements:\n    - key: karpenter.sh/unknown\n      operator: Exists\n",
      path: "spec.requirements[0].key",
      message: /label domain "karpenter.sh" is restricted/,
      line: 7,
    },
    { name: "no requirements", spec: '  price: "1"\n', path: "spec.requirements", message: /Required value/, line: 5 },
  ];
  for (const c of cases) {
    it(`denies ${c.name}, naming ${c.path} and its line`, async () => {
      const { code, result } = await check(overlay(c.spec));
      assert.equal(code, 1);
      const v = result?.violations.find((x) => x.path === c.path);
      assert.ok(v !== undefined, JSON.stringify(result?.violations));
      assert.match(v.message, c.message);
      assert.equal(v.line, c.line);
    });
  }

  it("denies a NodeOverlay when judged against Karpenter 1.0, which does not serve it", async () => {
    const { code, result } = await check(overlay("  requirements: []\n"), "--karpenter-version", "1.0");
    assert.equal(code, 1);
    assert.match(
      result?.violations[0]?.message ?? "",
      /Karpenter 1\.0\.8 does not serve karpenter.sh\/v1alpha1 NodeOverlay \(Karpenter v1\.7\+\)/,
    );
  });
});
