import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { DescribeClusterCommandInput, DescribeClusterCommandOutput } from "@aws-sdk/client-eks";
import { ClusterDiscoveryError, type ClusterSettings } from "../../core/launch-template/cluster-info.ts";
import { discoverCluster, type ClusterDiscoveryDeps } from "./cluster-discovery.ts";
import type { EksApi } from "./sdk.ts";

const settings: ClusterSettings = { name: "demo", endpoint: "", caBundle: "" };

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

function deps(eks: EksApi, warnings: string[] = [], extra: Partial<ClusterDiscoveryDeps> = {}): ClusterDiscoveryDeps {
  const record = ((_: unknown, message: string) => {
    warnings.push(message);
  }) as ClusterDiscoveryDeps["logger"]["warn"];
  return { eks, kubeconfigCA: () => "S1VCRUNPTkZJRw==", logger: { warn: record, info: record }, ...extra };
}

/** An EksApi that never answers. */
const silentEks: EksApi = { describeCluster: () => new Promise(() => undefined) };

const described = {
  endpoint: "https://ABC.gr7.us-east-1.eks.amazonaws.com",
  certificateAuthority: { data: "RUtTLUNB" },
  kubernetesNetworkConfig: { serviceIpv4Cidr: "172.20.0.0/16" },
};

void describe("cluster discovery at operator start", () => {
  void it("should read the endpoint, CA and IPv4 service CIDR from DescribeCluster of the configured cluster", async () => {
    const eks = fakeEks(described);
    assert.deepEqual(await discoverCluster(settings, deps(eks)), {
      name: "demo",
      endpoint: described.endpoint,
      caBundle: "RUtTLUNB",
      serviceCIDR: "172.20.0.0/16",
    });
    assert.deepEqual(eks.asked, ["demo"]);
  });

  void it("should read the IPv6 service CIDR of an IPv6 cluster", async () => {
    const info = await discoverCluster(
      settings,
      deps(
        fakeEks({
          ...described,
          kubernetesNetworkConfig: { serviceIpv6Cidr: "fd30:1c53:5f8a::/108", ipFamily: "ipv6" },
        }),
      ),
    );
    assert.equal(info.serviceCIDR, "fd30:1c53:5f8a::/108");
  });

  void it("should stop the operator with an error naming the endpoint setting and the EKS cause when DescribeCluster fails and no endpoint is configured", async () => {
    await assert.rejects(discoverCluster(settings, deps(fakeEks(notFound()))), (e: unknown) => {
      assert.ok(e instanceof ClusterDiscoveryError);
      assert.match(
        e.message,
        new RegExp(
          "^discovering the cluster for node user data: " +
            "--cluster-endpoint \\(CLUSTER_ENDPOINT\\) is empty and EKS could not tell the endpoint: " +
            "describing EKS cluster demo: ResourceNotFoundException: No cluster found for name: demo\\.$",
        ),
      );
      return true;
    });
  });

  void it("should warn and go on with the configured endpoint when DescribeCluster fails", async () => {
    const warnings: string[] = [];
    const info = await discoverCluster(
      { ...settings, endpoint: "https://api.internal:6443" },
      deps(fakeEks(notFound()), warnings),
    );
    assert.deepEqual(info, {
      name: "demo",
      endpoint: "https://api.internal:6443",
      caBundle: "S1VCRUNPTkZJRw==",
      serviceCIDR: undefined,
    });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? "", /describing EKS cluster demo: ResourceNotFoundException/);
  });

  void it("should read the service CIDR from DescribeCluster with the endpoint configured (isolated VPCs too)", async () => {
    const eks = fakeEks(described);
    const info = await discoverCluster({ ...settings, endpoint: "https://api.internal:6443" }, deps(eks));
    assert.deepEqual(eks.asked, ["demo"]);
    assert.equal(info.endpoint, "https://api.internal:6443");
    assert.equal(info.serviceCIDR, "172.20.0.0/16");
  });

  void it("should stop waiting for an optional DescribeCluster that does not answer, and warn", async () => {
    const warnings: string[] = [];
    const configured = { ...settings, endpoint: "https://api.internal:6443" };
    const info = await discoverCluster(configured, deps(silentEks, warnings, { optionalDescribeTimeoutMs: 20 }));
    assert.equal(info.serviceCIDR, undefined);
    assert.match(warnings[0] ?? "", /describing EKS cluster demo: DescribeCluster: no answer within 20 ms/);
  });

  void it("should take the kube-dns Service's clusterIP as the cluster DNS address", async () => {
    const kubeDnsClusterIP = async (): Promise<string> => "172.20.0.10";
    const info = await discoverCluster(settings, deps(fakeEks(described), [], { kubeDnsClusterIP }));
    assert.equal(info.dnsIP, "172.20.0.10");
  });

  void it("should go on without a cluster DNS address when kube-dns is absent, headless or unreadable", async () => {
    const forbidden = async (): Promise<string> => {
      throw new Error("reading Service kube-system/kube-dns: HTTP 403 Forbidden");
    };
    for (const read of [async () => undefined, async () => "None", forbidden]) {
      const warnings: string[] = [];
      const info = await discoverCluster(settings, deps(fakeEks(described), warnings, { kubeDnsClusterIP: read }));
      assert.equal(info.dnsIP, undefined);
      assert.equal(info.serviceCIDR, "172.20.0.0/16");
      assert.equal(warnings.length, 1, "said once why");
    }
  });
});
