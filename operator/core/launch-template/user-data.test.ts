import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parse } from "yaml";
import { clusterDNSFromCIDR, userParts, type BootstrapOptions } from "./bootstrap.ts";
import { DEFAULT_SERVICE_CIDR } from "./nodeadm.ts";
import { userDataFor } from "./user-data.ts";

const ENDPOINT = "https://ABC.gr7.us-east-1.eks.amazonaws.com";
const CA = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t";

function options(overrides: Partial<BootstrapOptions> = {}): BootstrapOptions {
  return {
    clusterName: "demo",
    clusterEndpoint: ENDPOINT,
    caBundle: CA,
    clusterCIDR: "172.20.0.0/16",
    kubelet: {},
    labels: { "karpenter.sh/nodepool": "default" },
    taints: [],
    ...overrides,
  };
}

function nodeadmCluster(userData: string): Record<string, unknown> {
  const part = userParts(userData, "").find((p) => p.contentType === "application/node.eks.aws");
  assert.ok(part !== undefined, "a nodeadm part");
  return (parse(part.body) as { spec: { cluster: Record<string, unknown> } }).spec.cluster;
}

void describe("the cluster endpoint, CA and service CIDR in each AMI family's user data", () => {
  void it("should give AL2023's nodeadm NodeConfig the endpoint, CA and discovered service CIDR", () => {
    assert.deepEqual(nodeadmCluster(userDataFor("AL2023", options())), {
      name: "demo",
      apiServerEndpoint: ENDPOINT,
      certificateAuthority: CA,
      cidr: "172.20.0.0/16",
    });
  });

  void it("should give AL2023 EKS's default service CIDR when none was discovered, since nodeadm requires one", () => {
    assert.equal(
      nodeadmCluster(userDataFor("AL2023", options({ clusterCIDR: undefined })))["cidr"],
      DEFAULT_SERVICE_CIDR,
    );
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
    assert.match(
      userDataFor("AL2", options({ kubelet: { clusterDNS: ["169.254.20.10"] } })),
      /--dns-cluster-ip '169\.254\.20\.10'/,
    );
  });

  void it("should write Bottlerocket's api-server, cluster-certificate and the cluster DNS of the service CIDR", () => {
    const userData = userDataFor("Bottlerocket", options());
    assert.match(userData, /^api-server = "https:\/\/ABC\.gr7\.us-east-1\.eks\.amazonaws\.com"$/m);
    assert.match(userData, new RegExp(`^cluster-certificate = "${CA}"$`, "m"));
    assert.match(userData, /^cluster-dns-ip = "172\.20\.0\.10"$/m);
    assert.doesNotMatch(userDataFor("Bottlerocket", options({ clusterCIDR: undefined })), /cluster-dns-ip/);
    assert.match(
      userDataFor("Bottlerocket", options({ kubelet: { clusterDNS: ["10.0.0.53"] } })),
      /^cluster-dns-ip = "10\.0\.0\.53"$/m,
    );
  });

  void it("should derive the cluster DNS address as bootstrap.sh and nodeadm do: the tenth address of the service CIDR", () => {
    assert.equal(clusterDNSFromCIDR("10.100.0.0/16"), "10.100.0.10");
    assert.equal(clusterDNSFromCIDR("172.20.0.0/16"), "172.20.0.10");
    assert.equal(clusterDNSFromCIDR("192.168.128.0/17"), "192.168.128.10");
    assert.equal(clusterDNSFromCIDR("fd30:1c53:5f8a::/108"), "fd30:1c53:5f8a::a");
    for (const odd of [undefined, "", "10.100.0.0", "10.100.0.0/30", "300.1.1.0/16", "fd30::1/108"])
      assert.equal(clusterDNSFromCIDR(odd), undefined, String(odd));
  });
});

// Karpenter's testdata/al2_userdata_{unmerged,merged}.golden with the node class and node pool filled in.
const AL2_LABELS = {
  "karpenter.k8s.aws/ec2nodeclass": "default",
  "karpenter.sh/capacity-type": "on-demand",
  "karpenter.sh/do-not-sync-taints": "true",
  "karpenter.sh/nodepool": "default",
  "testing/cluster": "unspecified",
};
const AL2_SCRIPT = [
  "#!/bin/bash -xe",
  "exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1",
  "/etc/eks/bootstrap.sh 'test-cluster' --apiserver-endpoint 'https://test-cluster' --b64-cluster-ca " +
    "'Y2EtYnVuZGxlCg==' \\",
  "--dns-cluster-ip '10.0.100.10' \\",
  "--use-max-pods false \\",
  "--kubelet-extra-args '--node-labels=\"karpenter.k8s.aws/ec2nodeclass=default,karpenter.sh/capacity-type=on-demand," +
    'karpenter.sh/do-not-sync-taints=true,karpenter.sh/nodepool=default,testing/cluster=unspecified"' +
    ' --register-with-taints="karpenter.sh/unregistered:NoExecute" --max-pods=110\'',
].join("\n");
const SHELL = 'Content-Type: text/x-shellscript; charset="us-ascii"';

function al2(overrides: Partial<BootstrapOptions> = {}): BootstrapOptions {
  return {
    clusterName: "test-cluster",
    clusterEndpoint: "https://test-cluster",
    caBundle: "Y2EtYnVuZGxlCg==",
    clusterCIDR: "10.100.0.0/16",
    kubelet: { maxPods: 110, clusterDNS: ["10.0.100.10"] },
    labels: AL2_LABELS,
    taints: [{ key: "karpenter.sh/unregistered", effect: "NoExecute" }],
    ...overrides,
  };
}

function kubeletArgs(userData: string): string {
  return /--kubelet-extra-args '([^']*)'/.exec(userData)?.[1] ?? "";
}

void describe("AL2 user data", () => {
  void it("should write Karpenter's bootstrap.sh part when custom user data is empty", () => {
    const head = 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="//"\n\n';
    assert.equal(userDataFor("AL2", al2()), `${head}--//\n${SHELL}\n\n${AL2_SCRIPT}\n--//--\n`);
  });

  void it("should put the custom shell script in its own part before the bootstrap part", () => {
    const custom = '#!/bin/bash\necho "Running custom user data script"\n';
    const parts = userParts(userDataFor("AL2", al2({ customUserData: custom })), "");
    assert.deepEqual(
      parts.map((p) => p.body),
      ['#!/bin/bash\necho "Running custom user data script"', AL2_SCRIPT],
    );
  });

  const flags: { name: string; kubelet: BootstrapOptions["kubelet"]; expected: string }[] = [
    { name: "pods per core", kubelet: { podsPerCore: 2 }, expected: "--pods-per-core=2" },
    {
      name: "system reserved, keys sorted",
      kubelet: { systemReserved: { memory: "3Gi", cpu: "2", "ephemeral-storage": "10Gi" } },
      expected: '--system-reserved="cpu=2,ephemeral-storage=10Gi,memory=3Gi"',
    },
    { name: "kube reserved", kubelet: { kubeReserved: { cpu: "100m" } }, expected: '--kube-reserved="cpu=100m"' },
    {
      name: "hard eviction thresholds with <",
      kubelet: { evictionHard: { "memory.available": "10%", "nodefs.available": "15%" } },
      expected: '--eviction-hard="memory.available<10%,nodefs.available<15%"',
    },
    {
      name: "soft eviction thresholds with <",
      kubelet: { evictionSoft: { "memory.available": "500Mi" } },
      expected: '--eviction-soft="memory.available<500Mi"',
    },
    {
      name: "soft eviction grace periods as Go prints durations",
      kubelet: { evictionSoftGracePeriod: { "memory.available": "90s" } },
      expected: '--eviction-soft-grace-period="memory.available=1m30s"',
    },
    {
      name: "the pod grace period cap",
      kubelet: { evictionMaxPodGracePeriod: 10 },
      expected: "--eviction-max-pod-grace-period=10",
    },
    {
      name: "image GC thresholds",
      kubelet: { imageGCHighThresholdPercent: 50, imageGCLowThresholdPercent: 20 },
      expected: "--image-gc-high-threshold=50 --image-gc-low-threshold=20",
    },
    { name: "the CPU CFS quota", kubelet: { cpuCFSQuota: false }, expected: "--cpu-cfs-quota=false" },
  ];
  for (const f of flags) {
    void it(`should pass ${f.name} as kubelet flags after labels and taints`, () => {
      const args = kubeletArgs(userDataFor("AL2", al2({ kubelet: f.kubelet, labels: {}, taints: [] })));
      assert.equal(args, `--register-with-taints="" ${f.expected}`);
    });
  }

  void it("should write every flag in Karpenter's order", () => {
    const kubelet = {
      maxPods: 20,
      podsPerCore: 2,
      systemReserved: { cpu: "1" },
      kubeReserved: { cpu: "2" },
      evictionHard: { "memory.available": "1%" },
      evictionSoft: { "memory.available": "2%" },
      evictionSoftGracePeriod: { "memory.available": "1m" },
      evictionMaxPodGracePeriod: 5,
      imageGCHighThresholdPercent: 80,
      imageGCLowThresholdPercent: 70,
      cpuCFSQuota: true,
    };
    const names = kubeletArgs(userDataFor("AL2", al2({ kubelet })))
      .split(" ")
      .map((a) => a.split("=")[0]);
    assert.deepEqual(names, [
      "--node-labels",
      "--register-with-taints",
      "--max-pods",
      "--pods-per-core",
      "--system-reserved",
      "--kube-reserved",
      "--eviction-hard",
      "--eviction-soft",
      "--eviction-soft-grace-period",
      "--eviction-max-pod-grace-period",
      "--image-gc-high-threshold",
      "--image-gc-low-threshold",
      "--cpu-cfs-quota",
    ]);
  });

  void it("should assemble the instance-store disks with --local-disks raid0 as the last argument for RAID0", () => {
    assert.match(
      userDataFor("AL2", al2({ instanceStorePolicy: "RAID0" })),
      /--max-pods=110' \\\n--local-disks raid0\n--\/\/--/,
    );
    assert.doesNotMatch(userDataFor("AL2", al2()), /--local-disks/);
  });

  void it("should select the IPv6 family when the cluster DNS is an IPv6 address", () => {
    const userData = userDataFor(
      "AL2",
      al2({ kubelet: { clusterDNS: ["fd00:10:96::a"] }, clusterCIDR: "fd00:10:96::/108" }),
    );
    assert.match(
      userData,
      new RegExp(
        "--b64-cluster-ca 'Y2EtYnVuZGxlCg==' \\\\\\n--ip-family ipv6 \\\\\\n" +
          "--dns-cluster-ip 'fd00:10:96::a' \\\\\\n--kubelet-extra-args",
      ),
    );
  });
});
