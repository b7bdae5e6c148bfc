import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { DescribeClusterCommandInput, DescribeClusterCommandOutput } from "@aws-sdk/client-eks";
import { ClusterDiscoveryError, type ClusterSettings } from "../../core/launch-template/cluster-info.ts";
import { discoverCluster, type ClusterDiscoveryDeps } from "./cluster-discovery.ts";
import type { EksApi } from "./sdk.ts";

const settings: ClusterSettings = { name: "demo", endpoint: "", caBundle: "", isolatedVPC: false };

function notFound(): Error {
  return Object.assign(new Error("No cluster found for name: demo."), { name: "ResourceNotFoundException" });
}

/** An EksApi answering `answer` (or throwing it), recording the clusters asked for. */
function fakeEks(answer: DescribeClusterCommandOutput["cluster"] | Error): EksApi & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    describeCluster: async (input: DescribeClusterCommandInput) => {
      asked.push(input.name ?? "");
      if (answer instanceof Error) throw answer;
      return { cluster: answer, $metadata: {} };
    },
  };
}

function deps(eks: EksApi, warnings: string[] = []): ClusterDiscoveryDeps {
  return { eks, kubeconfigCA: () => "S1VCRUNPTkZJRw==", logger: { warn: ((_: unknown, message: string) => { warnings.push(message); }) as ClusterDiscoveryDeps["logger"]["warn"] } };
}

const described = { endpoint: "https://ABC.gr7.us-east-1.eks.amazonaws.com", certificateAuthority: { data: "RUtTLUNB" }, kubernetesNetworkConfig: { serviceIpv4Cidr: "172.20.0.0/16" } };

void describe("cluster discovery at operator start", () => {
  void it("should read the endpoint, CA and IPv4 service CIDR from DescribeCluster of the configured cluster", async () => {
    const eks = fakeEks(described);
    assert.deepEqual(await discoverCluster(settings, deps(eks)), { name: "demo", endpoint: described.endpoint, caBundle: "RUtTLUNB", serviceCIDR: "172.20.0.0/16" });
    assert.deepEqual(eks.asked, ["demo"]);
  });

  void it("should read the IPv6 service CIDR of an IPv6 cluster", async () => {
    const info = await discoverCluster(settings, deps(fakeEks({ ...described, kubernetesNetworkConfig: { serviceIpv6Cidr: "fd30:1c53:5f8a::/108", ipFamily: "ipv6" } })));
    assert.equal(info.serviceCIDR, "fd30:1c53:5f8a::/108");
  });

  void it("should stop the operator with an error naming the endpoint setting and the EKS cause when DescribeCluster fails and no endpoint is configured", async () => {
    await assert.rejects(discoverCluster(settings, deps(fakeEks(notFound()))), (e: unknown) => {
      assert.ok(e instanceof ClusterDiscoveryError);
      assert.match(e.message, /^discovering the cluster for node user data: --cluster-endpoint \(CLUSTER_ENDPOINT\) is empty and EKS could not tell the endpoint: describing EKS cluster demo: ResourceNotFoundException: No cluster found for name: demo\.$/);
      return true;
    });
  });

  void it("should warn and go on with the configured endpoint when DescribeCluster fails", async () => {
    const warnings: string[] = [];
    const info = await discoverCluster({ ...settings, endpoint: "https://api.internal:6443" }, deps(fakeEks(notFound()), warnings));
    assert.deepEqual(info, { name: "demo", endpoint: "https://api.internal:6443", caBundle: "S1VCRUNPTkZJRw==", serviceCIDR: undefined });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? "", /describing EKS cluster demo: ResourceNotFoundException/);
  });

  void it("should make no EKS call in an isolated VPC", async () => {
    const eks = fakeEks(described);
    const info = await discoverCluster({ ...settings, endpoint: "https://api.internal:6443", isolatedVPC: true }, deps(eks));
    assert.deepEqual(eks.asked, []);
    assert.equal(info.endpoint, "https://api.internal:6443");
    assert.equal(info.serviceCIDR, undefined);
  });
});
