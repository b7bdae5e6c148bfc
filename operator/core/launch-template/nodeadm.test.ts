import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { BootstrapOptions } from "./bootstrap.ts";
import { nodeConfig } from "./nodeadm.ts";

function options(overrides: Partial<BootstrapOptions> = {}): BootstrapOptions {
  return {
    clusterName: "test-cluster",
    clusterEndpoint: "https://test-cluster",
    caBundle: "Y2EtYnVuZGxlCg==",
    clusterCIDR: "10.100.0.0/16",
    kubelet: { maxPods: 110, clusterDNS: ["10.0.100.10"] },
    labels: { "karpenter.sh/nodepool": "default", "testing/cluster": "unspecified" },
    taints: [{ key: "karpenter.sh/unregistered", effect: "NoExecute" }],
    ...overrides,
  };
}

interface Spec {
  instance?: unknown;
  kubelet: { config: Record<string, unknown>; flags: string[] };
}

void describe("AL2023 nodeadm NodeConfig", () => {
  void it("should write Karpenter's kubelet config and quoted node-labels flag (al2023_userdata_unmerged.golden)", () => {
    const spec = nodeConfig(options())["spec"] as Spec;
    assert.deepEqual(spec.kubelet, {
      config: {
        maxPods: 110,
        clusterDNS: ["10.0.100.10"],
        registerWithTaints: [{ key: "karpenter.sh/unregistered", effect: "NoExecute" }],
      },
      flags: ['--node-labels="karpenter.sh/nodepool=default,testing/cluster=unspecified"'],
    });
    assert.equal(spec.instance, undefined);
  });

  void it("should pass v1.15's free-form kubelet fields through to the NodeConfig as written", () => {
    const kubelet = {
      maxPods: 58,
      shutdownGracePeriod: "30s",
      featureGates: { InPlacePodVerticalScaling: true },
      containerLogMaxSize: "50Mi",
    } as unknown as BootstrapOptions["kubelet"];
    const config = (nodeConfig(options({ kubelet, taints: [] }))["spec"] as Spec).kubelet.config;
    assert.deepEqual(config, {
      maxPods: 58,
      shutdownGracePeriod: "30s",
      featureGates: { InPlacePodVerticalScaling: true },
      containerLogMaxSize: "50Mi",
    });
  });

  void it("should ask nodeadm for a RAID-0 local storage array for instanceStorePolicy RAID0", () => {
    assert.deepEqual((nodeConfig(options({ instanceStorePolicy: "RAID0" }))["spec"] as Spec).instance, {
      localStorage: { strategy: "RAID0" },
    });
  });

  void it("should copy every kubelet setting into the kubelet config as KubeletConfiguration spells it", () => {
    const kubelet = {
      podsPerCore: 2,
      systemReserved: { cpu: "1" },
      kubeReserved: { memory: "1Gi" },
      evictionHard: { "memory.available": "5%" },
      evictionSoft: { "memory.available": "10%" },
      evictionSoftGracePeriod: { "memory.available": "1m" },
      evictionMaxPodGracePeriod: 30,
      imageGCHighThresholdPercent: 85,
      imageGCLowThresholdPercent: 80,
      cpuCFSQuota: false,
    };
    const config = (nodeConfig(options({ kubelet, taints: [] }))["spec"] as Spec).kubelet.config;
    assert.deepEqual(config, kubelet);
  });
});
