import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  ClusterDiscoveryError,
  clusterDnsAddress,
  describeClusterRequired,
  kubernetesMinor,
  resolveClusterInfo,
  type ClusterSettings,
} from "./cluster-info.ts";

const unset: ClusterSettings = { name: "demo", endpoint: "", caBundle: "" };
const eks = {
  endpoint: "https://ABC.gr7.us-east-1.eks.amazonaws.com",
  caBundle: "RUtTLUNB",
  serviceCIDR: "172.20.0.0/16",
};
const kubeconfig = (): string => "S1VCRUNPTkZJRw==";
const never = (): string => assert.fail("the kubeconfig CA is read only when no other source has one");

void describe("which cluster facts node user data carries", () => {
  void it("should take the endpoint, CA and service CIDR from DescribeCluster when nothing is configured", () => {
    assert.deepEqual(resolveClusterInfo(unset, eks, never), {
      name: "demo",
      endpoint: eks.endpoint,
      caBundle: "RUtTLUNB",
      serviceCIDR: "172.20.0.0/16",
    });
  });

  void it("should let a configured endpoint win, with the kubeconfig's CA and DescribeCluster's service CIDR", () => {
    const info = resolveClusterInfo({ ...unset, endpoint: "https://api.internal:6443" }, eks, kubeconfig);
    assert.deepEqual(info, {
      name: "demo",
      endpoint: "https://api.internal:6443",
      caBundle: "S1VCRUNPTkZJRw==",
      serviceCIDR: "172.20.0.0/16",
    });
  });

  void it("should let a configured CA bundle win over DescribeCluster's and the kubeconfig's", () => {
    assert.equal(resolveClusterInfo({ ...unset, caBundle: "Q09ORklH" }, eks, never).caBundle, "Q09ORklH");
    assert.equal(
      resolveClusterInfo({ ...unset, endpoint: "https://api.internal", caBundle: "Q09ORklH" }, undefined, never)
        .caBundle,
      "Q09ORklH",
    );
  });

  void it("should fall back on the kubeconfig's CA when DescribeCluster reports none", () => {
    assert.equal(resolveClusterInfo(unset, { endpoint: eks.endpoint }, kubeconfig).caBundle, "S1VCRUNPTkZJRw==");
  });

  void it("should leave the service CIDR undiscovered without a DescribeCluster answer", () => {
    const info = resolveClusterInfo({ ...unset, endpoint: "https://api.internal" }, undefined, kubeconfig);
    assert.equal(info.serviceCIDR, undefined);
  });

  void it("should refuse to resolve without any endpoint, naming the setting", () => {
    assert.throws(
      () => resolveClusterInfo(unset, { caBundle: "RUtTLUNB" }, kubeconfig),
      (e: unknown) =>
        e instanceof ClusterDiscoveryError && /--cluster-endpoint \(CLUSTER_ENDPOINT\) is empty/.test(e.message),
    );
  });

  void it("should require DescribeCluster only when the endpoint is not configured", () => {
    assert.equal(describeClusterRequired(unset), true);
    assert.equal(describeClusterRequired({ ...unset, endpoint: "https://api.internal" }), false);
  });

  void it("should carry the kube-dns address as the cluster DNS when there is one", () => {
    const info = resolveClusterInfo({ ...unset, endpoint: "https://api.internal" }, undefined, kubeconfig, "10.0.0.10");
    assert.equal(info.dnsIP, "10.0.0.10");
    assert.equal(info.serviceCIDR, undefined);
    assert.equal("dnsIP" in resolveClusterInfo(unset, eks, never), false);
  });

  void it("should take an IPv4 or IPv6 clusterIP as the cluster DNS address, and nothing else", () => {
    const cases: [string | undefined, string | undefined][] = [
      ["10.0.0.10", "10.0.0.10"],
      ["172.20.0.10", "172.20.0.10"],
      ["fd30:1c53:5f8a::a", "fd30:1c53:5f8a::a"],
      ["None", undefined],
      ["", undefined],
      [undefined, undefined],
      ["10.0.0.300", undefined],
      ["kube-dns", undefined],
    ];
    for (const [clusterIP, want] of cases) assert.equal(clusterDnsAddress(clusterIP), want, String(clusterIP));
  });

  void it("should read the minor version AMI aliases use from the apiserver's version, suffixes dropped", () => {
    const cases: [{ major?: string; minor?: string }, string | undefined][] = [
      [{ major: "1", minor: "36" }, "1.36"],
      [{ major: "1", minor: "35+" }, "1.35"],
      [{ major: "1+", minor: "34" }, "1.34"],
      [{ major: "1", minor: "" }, undefined],
      [{ major: "", minor: "36" }, undefined],
      [{}, undefined],
      [{ major: "v1", minor: "36" }, undefined],
    ];
    for (const [version, want] of cases) assert.equal(kubernetesMinor(version), want, JSON.stringify(version));
  });
});
