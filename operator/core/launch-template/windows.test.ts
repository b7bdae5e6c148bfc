import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { BootstrapOptions } from "./bootstrap.ts";
import { userDataFor } from "./user-data.ts";

// Karpenter's testdata/windows_userdata_{unmerged,merged}.golden, with the node class and node pool filled in.
const LABELS = {
  "karpenter.k8s.aws/ec2nodeclass": "default",
  "karpenter.sh/capacity-type": "spot",
  "karpenter.sh/do-not-sync-taints": "true",
  "karpenter.sh/nodepool": "default",
  "testing/cluster": "unspecified",
};
const BOOTSTRAP = [
  '[string]$EKSBootstrapScriptFile = "$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1"',
  "& $EKSBootstrapScriptFile -EKSClusterName 'test-cluster' -APIServerEndpoint 'https://test-cluster' " +
    "-Base64ClusterCA 'Y2EtYnVuZGxlCg=='" +
    " -KubeletExtraArgs '--node-labels=\"karpenter.k8s.aws/ec2nodeclass=default,karpenter.sh/capacity-type=spot," +
    'karpenter.sh/do-not-sync-taints=true,karpenter.sh/nodepool=default,testing/cluster=unspecified"' +
    " --register-with-taints=\"karpenter.sh/unregistered:NoExecute\" --max-pods=110' -DNSClusterIP '10.0.100.10'",
].join("\n");

function options(overrides: Partial<BootstrapOptions> = {}): BootstrapOptions {
  return {
    clusterName: "test-cluster",
    clusterEndpoint: "https://test-cluster",
    caBundle: "Y2EtYnVuZGxlCg==",
    clusterCIDR: "10.100.0.0/16",
    kubelet: { maxPods: 110, clusterDNS: ["10.0.100.10"] },
    labels: LABELS,
    taints: [{ key: "karpenter.sh/unregistered", effect: "NoExecute" }],
    ...overrides,
  };
}

void describe("Windows user data", () => {
  const custom = 'Write-Host "Running custom user data script"\nWrite-Host "Finished running custom user data script"';
  const cases: { name: string; family: string; options: Partial<BootstrapOptions>; expected: string }[] = [
    {
      name: "should bootstrap with Start-EKSBootstrap.ps1 when custom user data is empty",
      family: "Windows2022",
      options: {},
      expected: `<powershell>\n${BOOTSTRAP}\n</powershell>`,
    },
    {
      name: "should put the custom user data before the bootstrap call in one powershell block",
      family: "Windows2019",
      options: { customUserData: custom },
      expected: `<powershell>\n${custom}\n${BOOTSTRAP}\n</powershell>`,
    },
    {
      name: "should bootstrap Windows 2025 the same way",
      family: "Windows2025",
      options: {},
      expected: `<powershell>\n${BOOTSTRAP}\n</powershell>`,
    },
  ];
  for (const c of cases) void it(c.name, () => assert.equal(userDataFor(c.family, options(c.options)), c.expected));

  void it("should leave out the CA and DNS arguments when they are unknown, and ignore the instance store policy", () => {
    const userData = userDataFor(
      "Windows2022",
      options({ caBundle: undefined, kubelet: {}, instanceStorePolicy: "RAID0" }),
    );
    assert.doesNotMatch(userData, /-Base64ClusterCA|-DNSClusterIP|--max-pods|raid0/i);
    assert.match(
      userData,
      /-KubeletExtraArgs '--node-labels="[^"]+" --register-with-taints="karpenter\.sh\/unregistered:NoExecute"'\n/,
    );
  });

  void it("should pass every kubelet setting Karpenter turns into a flag", () => {
    const userData = userDataFor(
      "Windows2022",
      options({
        labels: {},
        taints: [],
        kubelet: {
          podsPerCore: 4,
          systemReserved: { memory: "1Gi", cpu: "100m" },
          evictionMaxPodGracePeriod: 30,
          cpuCFSQuota: false,
        },
      }),
    );
    const expected =
      '-KubeletExtraArgs \'--register-with-taints="" --pods-per-core=4 --system-reserved="cpu=100m,memory=1Gi"' +
      " --eviction-max-pod-grace-period=30 --cpu-cfs-quota=false'";
    assert.ok(userData.includes(expected), userData);
  });

  void it("should double a single quote inside a PowerShell string", () => {
    assert.match(userDataFor("Windows2022", options({ clusterName: "it's" })), /-EKSClusterName 'it''s'/);
  });
});
