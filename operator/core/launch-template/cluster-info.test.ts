import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ClusterDiscoveryError, describeClusterRequired, resolveClusterInfo, shouldDescribeCluster, type ClusterSettings } from "./cluster-info.ts";

const unset: ClusterSettings = { name: "demo", endpoint: "", caBundle: "", isolatedVPC: false };
const eks = { endpoint: "https://ABC.gr7.us-east-1.eks.amazonaws.com", caBundle: "RUtTLUNB", serviceCIDR: "172.20.0.0/16" };
const kubeconfig = (): string => "S1VCRUNPTkZJRw==";
const never = (): string => assert.fail("the kubeconfig CA is read only when no other source has one");

void describe("which cluster facts node user data carries", () => {
  void it("should take the endpoint, CA and service CIDR from DescribeCluster when nothing is configured", () => {
    assert.deepEqual(resolveClusterInfo(unset, eks, never), { name: "demo", endpoint: eks.endpoint, caBundle: "RUtTLUNB", serviceCIDR: "172.20.0.0/16" });
  });

  void it("should let a configured endpoint win, with the kubeconfig's CA and DescribeCluster's service CIDR", () => {
    const info = resolveClusterInfo({ ...unset, endpoint: "https://api.internal:6443" }, eks, kubeconfig);
    assert.deepEqual(info, { name: "demo", endpoint: "https://api.internal:6443", caBundle: "S1VCRUNPTkZJRw==", serviceCIDR: "172.20.0.0/16" });
  });

  void it("should let a configured CA bundle win over DescribeCluster's and the kubeconfig's", () => {
    assert.equal(resolveClusterInfo({ ...unset, caBundle: "Q09ORklH" }, eks, never).caBundle, "Q09ORklH");
    assert.equal(resolveClusterInfo({ ...unset, endpoint: "https://api.internal", caBundle: "Q09ORklH" }, undefined, never).caBundle, "Q09ORklH");
  });

  void it("should fall back on the kubeconfig's CA when DescribeCluster reports none", () => {
    assert.equal(resolveClusterInfo(unset, { endpoint: eks.endpoint }, kubeconfig).caBundle, "S1VCRUNPTkZJRw==");
  });

  void it("should leave the service CIDR undiscovered without a DescribeCluster answer", () => {
    assert.equal(resolveClusterInfo({ ...unset, endpoint: "https://api.internal", isolatedVPC: true }, undefined, kubeconfig).serviceCIDR, undefined);
  });

  void it("should refuse to resolve without any endpoint, naming the setting", () => {
    assert.throws(() => resolveClusterInfo(unset, { caBundle: "RUtTLUNB" }, kubeconfig), (e: unknown) => e instanceof ClusterDiscoveryError && /--cluster-endpoint \(CLUSTER_ENDPOINT\) is empty/.test(e.message));
  });

  void it("should call DescribeCluster outside isolated VPCs and require it only when the endpoint is not configured", () => {
    assert.equal(shouldDescribeCluster(unset), true);
    assert.equal(shouldDescribeCluster({ ...unset, endpoint: "https://api.internal" }), true, "for the service CIDR, as Karpenter does");
    assert.equal(shouldDescribeCluster({ ...unset, endpoint: "https://api.internal", isolatedVPC: true }), false);
    assert.equal(describeClusterRequired(unset), true);
    assert.equal(describeClusterRequired({ ...unset, endpoint: "https://api.internal" }), false);
  });
});
