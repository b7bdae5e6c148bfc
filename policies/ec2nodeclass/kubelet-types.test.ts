import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { kubeletTypeProblems } from "./kubelet-types.ts";

void describe("the types of the kubelet fields kerf writes into user data", () => {
  const cases: [string, Record<string, unknown> | undefined, RegExp[]][] = [
    ["accepts a class without kubelet", undefined, []],
    [
      "accepts well-typed fields and any field kerf ignores",
      { maxPods: 110, cpuCFSQuota: true, shutdownGracePeriod: "30s", evictionHard: { "memory.available": "5%" } },
      [],
    ],
    ["refuses a maxPods that is not an integer", { maxPods: "many" }, [/^spec\.kubelet\.maxPods: /]],
    [
      "refuses a percentage above 100",
      { imageGCHighThresholdPercent: 120 },
      [/^spec\.kubelet\.imageGCHighThresholdPercent: .*100/],
    ],
    [
      "refuses clusterDNS that is not a list, and a bad reserved quantity",
      { clusterDNS: "10.0.0.10", kubeReserved: { cpu: "lots" } },
      [/^spec\.kubelet\.clusterDNS: /, /^spec\.kubelet\.kubeReserved\.cpu: /],
    ],
  ];
  for (const [title, kubelet, want] of cases) {
    void it(title, () => {
      const got = kubeletTypeProblems({ spec: { role: "r", ...(kubelet === undefined ? {} : { kubelet }) } });
      assert.equal(got.length, want.length, got.join("; "));
      want.forEach((w, i) => assert.match(got[i] ?? "", w));
    });
  }
});
