import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parse } from "yaml";
import { userParts } from "./bootstrap.ts";
import type { EC2NodeClassSpec } from "./node-class.ts";
import { buildLaunchTemplate, type LaunchOptions } from "./template.ts";

const spec: EC2NodeClassSpec = {
  amiSelectorTerms: [{ alias: "al2023@latest" }],
  subnetSelectorTerms: [{ tags: { "karpenter.sh/discovery": "demo" } }],
  securityGroupSelectorTerms: [{ tags: { "karpenter.sh/discovery": "demo" } }],
  role: "KarpenterNodeRole-demo",
};

function options(overrides: Partial<LaunchOptions> = {}): LaunchOptions {
  return {
    clusterName: "demo",
    clusterEndpoint: "https://demo.example:6443",
    caBundle: "Q0E=",
    nodeClass: spec,
    imageId: "ami-0123",
    securityGroupIds: ["sg-1"],
    labels: { "karpenter.sh/nodepool": "default" },
    taints: [],
    ...overrides,
  };
}

/** User data of a launch with the kube-dns address discovered as `dns`. */
function userData(dns: string | undefined, nodeClass: Partial<EC2NodeClassSpec> = {}, cidr?: string): string {
  const extra = {
    ...(dns === undefined ? {} : { clusterDNS: dns }),
    ...(cidr === undefined ? {} : { clusterCIDR: cidr }),
  };
  return buildLaunchTemplate(options({ ...extra, nodeClass: { ...spec, ...nodeClass } })).userData;
}

function kubeletConfig(data: string): Record<string, unknown> {
  const part = userParts(data, "")
    .filter((p) => p.contentType === "application/node.eks.aws")
    .at(-1);
  assert.ok(part !== undefined, "a nodeadm part exists");
  return (parse(part.body) as { spec: { kubelet: { config: Record<string, unknown> } } }).spec.kubelet.config;
}

void describe("the cluster DNS address in node user data", () => {
  void it("should give AL2023 nodes the kube-dns address as clusterDNS, whatever CIDR nodeadm falls back on", () => {
    assert.deepEqual(kubeletConfig(userData("10.0.0.10"))["clusterDNS"], ["10.0.0.10"]);
  });

  void it("should let spec.kubelet.clusterDNS win over the kube-dns address", () => {
    const config = kubeletConfig(userData("10.0.0.10", { kubelet: { clusterDNS: ["169.254.20.10"] } }));
    assert.deepEqual(config["clusterDNS"], ["169.254.20.10"]);
  });

  void it("should leave clusterDNS to nodeadm's derivation when no kube-dns address was discovered", () => {
    assert.equal(kubeletConfig(userData(undefined, {}, "172.20.0.0/16"))["clusterDNS"], undefined);
  });

  void it("should pass the kube-dns address to AL2's bootstrap.sh and Bottlerocket's settings", () => {
    const al2 = userData("10.0.0.10", { amiSelectorTerms: [{ alias: "al2@latest" }] });
    assert.match(al2, /--dns-cluster-ip '10\.0\.0\.10'/);
    const bottlerocket = userData("10.0.0.10", { amiSelectorTerms: [{ alias: "bottlerocket@latest" }] });
    assert.match(bottlerocket, /cluster-dns-ip = "10\.0\.0\.10"/);
  });

  void it("should make a new launch template when the discovered address changes", () => {
    const name = (dns: string): string => buildLaunchTemplate(options({ clusterDNS: dns })).name;
    assert.notEqual(name("10.0.0.10"), name("10.0.1.10"));
  });
});
