import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { computeAllocatable, computeCapacity, eniLimitedPods, kubeReservedCpu } from "./allocatable.ts";

const MI = 2 ** 20;
const GI = 2 ** 30;

describe("the AWS allocatable model", () => {
  // The worked examples of karpenter-behaviour.md §1.14 (AL2023, no overrides, 20Gi root).
  const examples = [
    {
      name: "m5.large",
      spec: { vcpu: 2, memoryMiB: 8192, arch: "amd64", maxENIs: 3, ipv4PerENI: 10 },
      pods: 29,
      cpu: 1930,
      memMiB: 6903,
    },
    {
      name: "m6g.xlarge",
      spec: { vcpu: 4, memoryMiB: 16384, arch: "arm64", maxENIs: 4, ipv4PerENI: 15 },
      pods: 58,
      cpu: 3920,
      memMiB: 14103,
    },
    {
      name: "c5.24xlarge",
      spec: { vcpu: 96, memoryMiB: 196608, arch: "amd64", maxENIs: 15, ipv4PerENI: 50 },
      pods: 737,
      cpu: 95690,
      memMiB: 173400,
    },
  ];
  for (const e of examples) {
    it(`gives ${e.name} ${e.cpu}m CPU, ${e.memMiB} MiB memory, 17Gi storage and ${e.pods} pods`, () => {
      const alloc = computeAllocatable(computeCapacity(e.spec));
      assert.deepEqual(alloc, { cpu: e.cpu, memory: e.memMiB * MI, "ephemeral-storage": 17 * GI, pods: e.pods });
    });
  }
  it("truncates each kube-reserved CPU band", () => {
    assert.deepEqual([500, 1000, 2000, 3000, 4000, 8000].map(kubeReservedCpu), [30, 60, 70, 75, 80, 90]);
  });
  it("yields zero pods when reserved ENIs use every ENI", () =>
    assert.equal(eniLimitedPods({ vcpu: 2, memoryMiB: 1, arch: "amd64", maxENIs: 2, ipv4PerENI: 4 }, 2), 0));
  it("prefers the default-card pod count for multi-card types", () =>
    assert.equal(
      eniLimitedPods({ vcpu: 128, memoryMiB: 1, arch: "amd64", maxENIs: 16, ipv4PerENI: 50, defaultCardMaxPods: 394 }),
      394,
    ));
  it("applies maxPods, podsPerCore and kubelet reservations", () => {
    const spec = { vcpu: 2, memoryMiB: 8192, arch: "amd64", maxENIs: 3, ipv4PerENI: 10 };
    const kubelet = {
      maxPods: 110,
      podsPerCore: 10,
      kubeReserved: { cpu: "200m" },
      systemReserved: { memory: "100Mi" },
      evictionHard: { "memory.available": "5%" },
    };
    const cap = computeCapacity(spec, { kubelet });
    assert.equal(cap["pods"], 20);
    const alloc = computeAllocatable(cap, kubelet);
    assert.equal(alloc["cpu"], 1800);
    const memCap = 7577 * MI;
    assert.equal(alloc["memory"], memCap - (11 * 20 + 255) * MI - 100 * MI - Math.ceil(memCap * 0.05));
  });
  it("uses 110 pods for AMI families that are not ENI-limited", () => {
    assert.equal(
      computeCapacity(
        { vcpu: 2, memoryMiB: 8192, arch: "amd64", maxENIs: 3, ipv4PerENI: 10 },
        { eniLimitedPods: false },
      )["pods"],
      110,
    );
  });
});
