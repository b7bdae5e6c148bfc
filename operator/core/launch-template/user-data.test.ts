import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parse } from "yaml";
import { clusterDNSFromCIDR, userParts, type BootstrapOptions } from "./bootstrap.ts";
import { DEFAULT_SERVICE_CIDR } from "./nodeadm.ts";
import { userDataFor } from "./user-data.ts";

const ENDPOINT = "https://ABC.gr7.us-east-1.eks.amazonaws.com";
const CA = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t";

function options(overrides: Partial<BootstrapOptions> = {}): BootstrapOptions {
  return { clusterName: "demo", clusterEndpoint: ENDPOINT, caBundle: CA, clusterCIDR: "172.20.0.0/16", kubelet: {}, labels: { "karpenter.sh/nodepool": "default" }, taints: [], ...overrides };
}

function nodeadmCluster(userData: string): Record<string, unknown> {
  const part = userParts(userData, "").find((p) => p.contentType === "application/node.eks.aws");
  assert.ok(part !== undefined, "a nodeadm part");
  return (parse(part.body) as { spec: { cluster: Record<string, unknown> } }).spec.cluster;
}

void describe("the cluster endpoint, CA and service CIDR in each AMI family's user data", () => {
  void it("should give AL2023's nodeadm NodeConfig the endpoint, CA and discovered service CIDR", () => {
    assert.deepEqual(nodeadmCluster(userDataFor("AL2023", options())), { name: "demo", apiServerEndpoint: ENDPOINT, certificateAuthority: CA, cidr: "172.20.0.0/16" });
  });

  void it("should give AL2023 EKS's default service CIDR when none was discovered, since nodeadm requires one", () => {
    assert.equal(nodeadmCluster(userDataFor("AL2023", options({ clusterCIDR: undefined })))["cidr"], DEFAULT_SERVICE_CIDR);
    assert.equal(DEFAULT_SERVICE_CIDR, "10.100.0.0/16");
  });

  void it("should run AL2's bootstrap.sh with the endpoint, CA and the cluster DNS of the service CIDR", () => {
    const userData = userDataFor("AL2", options());
    assert.match(userData, /--apiserver-endpoint 'https:\/\/ABC\.gr7\.us-east-1\.eks\.amazonaws\.com'/);
    assert.match(userData, new RegExp(`--b64-cluster-ca '${CA}'`));
    assert.match(userData, /--dns-cluster-ip '172\.20\.0\.10'/);
    assert.doesNotMatch(userData, /--ip-family/);
  });

  void it("should pass AL2 an IPv6 service CIDR with the IPv6 family, for bootstrap.sh to derive the DNS address", () => {
    const userData = userDataFor("AL2", options({ clusterCIDR: "fd30:1c53:5f8a::/108" }));
    assert.match(userData, /--ip-family ipv6 \\\n--service-ipv6-cidr 'fd30:1c53:5f8a::\/108'/);
    assert.doesNotMatch(userData, /--dns-cluster-ip/);
  });

  void it("should leave AL2's DNS address to bootstrap.sh when no service CIDR was discovered, and prefer spec.kubelet.clusterDNS", () => {
    assert.doesNotMatch(userDataFor("AL2", options({ clusterCIDR: undefined })), /--dns-cluster-ip/);
    assert.match(userDataFor("AL2", options({ kubelet: { clusterDNS: ["169.254.20.10"] } })), /--dns-cluster-ip '169\.254\.20\.10'/);
  });

  void it("should write Bottlerocket's api-server, cluster-certificate and the cluster DNS of the service CIDR", () => {
    const userData = userDataFor("Bottlerocket", options());
    assert.match(userData, /^api-server = "https:\/\/ABC\.gr7\.us-east-1\.eks\.amazonaws\.com"$/m);
    assert.match(userData, new RegExp(`^cluster-certificate = "${CA}"$`, "m"));
    assert.match(userData, /^cluster-dns-ip = \["172\.20\.0\.10"\]$/m);
    assert.doesNotMatch(userDataFor("Bottlerocket", options({ clusterCIDR: undefined })), /cluster-dns-ip/);
    assert.match(userDataFor("Bottlerocket", options({ kubelet: { clusterDNS: ["10.0.0.53"] } })), /^cluster-dns-ip = \["10\.0\.0\.53"\]$/m);
  });

  void it("should derive the cluster DNS address as bootstrap.sh and nodeadm do: the tenth address of the service CIDR", () => {
    assert.equal(clusterDNSFromCIDR("10.100.0.0/16"), "10.100.0.10");
    assert.equal(clusterDNSFromCIDR("172.20.0.0/16"), "172.20.0.10");
    assert.equal(clusterDNSFromCIDR("192.168.128.0/17"), "192.168.128.10");
    assert.equal(clusterDNSFromCIDR("fd30:1c53:5f8a::/108"), "fd30:1c53:5f8a::a");
    for (const odd of [undefined, "", "10.100.0.0", "10.100.0.0/30", "300.1.1.0/16", "fd30::1/108"]) assert.equal(clusterDNSFromCIDR(odd), undefined, String(odd));
  });
});
