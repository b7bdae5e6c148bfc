/**
 * Launch fidelity per AMI family (issue 23 item 5): what moto receives in the launch template for each
 * family — Windows' PowerShell bootstrap, Bottlerocket's TOML merged with the user's, AL2's kubelet flags
 * and RAID0, AL2023's NodeConfig — read back with DescribeLaunchTemplateVersions, as a node would read it.
 */
import { beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  DescribeLaunchTemplatesCommand,
  DescribeLaunchTemplateVersionsCommand,
  RegisterImageCommand,
} from "@aws-sdk/client-ec2";
import { parse } from "yaml";
import { parseQuantity } from "../../policies/domain/quantity.ts";
import { userParts } from "../../operator/core/launch-template/bootstrap.ts";
import type { EC2NodeClassLike, EC2NodeClassSpec } from "../../operator/core/launch-template/node-class.ts";
import { tomlSections } from "../../policies/ec2nodeclass/toml-sections.ts";
import { CLUSTER, clients, nodeClaim, nodeClass, providers, testClock } from "./aws-fixtures.ts";
import { useMotoSuite } from "./aws-moto-suite.ts";

const M5 = [
  { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large"] },
  { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
];

interface TemplateData {
  readonly userData: string;
  readonly devices: { name: string; sizeGiB: number | undefined }[];
}

void describe("launch templates per AMI family, as moto receives them", () => {
  const moto = useMotoSuite({ zones: ["us-east-1a", "us-east-1b"] });
  let imageId: string;

  beforeEach(async () => {
    const { ec2 } = clients(moto.aws());
    const image = await ec2.send(
      new RegisterImageCommand({
        Name: "fidelity-x86_64",
        Architecture: "x86_64",
        RootDeviceName: "/dev/xvda",
        BlockDeviceMappings: [{ DeviceName: "/dev/xvda", Ebs: { VolumeSize: 20 } }],
      }),
    );
    imageId = image.ImageId ?? "";
  });

  /** Launches one m5.large with a node class of the family (the AMI by id), returns the cluster's templates. */
  async function launch(spec: Partial<EC2NodeClassSpec>): Promise<TemplateData[]> {
    const classes = new Map<string, EC2NodeClassLike>([
      ["default", nodeClass("default", { amiSelectorTerms: [{ id: imageId }], ...spec })],
    ]);
    await providers(moto.aws(), testClock(), classes).cloudProvider.create(nodeClaim("claim-fidelity", M5));
    return templates();
  }

  async function templates(): Promise<TemplateData[]> {
    const { ec2 } = clients(moto.aws());
    const filter = { Name: "tag:karpenter.k8s.aws/cluster", Values: [CLUSTER] };
    const listed = (await ec2.send(new DescribeLaunchTemplatesCommand({ Filters: [filter] }))).LaunchTemplates ?? [];
    const out: TemplateData[] = [];
    for (const t of listed) {
      const versions = await ec2.send(
        new DescribeLaunchTemplateVersionsCommand({ LaunchTemplateId: t.LaunchTemplateId, Versions: ["$Latest"] }),
      );
      const data = versions.LaunchTemplateVersions?.[0]?.LaunchTemplateData;
      out.push({
        userData: Buffer.from(data?.UserData ?? "", "base64").toString("utf8"),
        devices: (data?.BlockDeviceMappings ?? []).map((d) => ({
          name: d.DeviceName ?? "",
          sizeGiB: d.Ebs?.VolumeSize,
        })),
      });
    }
    return out;
  }

  void it("should bootstrap Windows with Start-EKSBootstrap.ps1 after the custom script, in one powershell block", async () => {
    const custom = 'Write-Host "Running custom user data script"';
    const [lt, ...rest] = await launch({
      amiFamily: "Windows2022",
      userData: custom,
      kubelet: { maxPods: 110, clusterDNS: ["10.0.100.10"] },
    });
    assert.equal(rest.length, 0);
    const lines = lt?.userData.split("\n") ?? [];
    assert.equal(lines[0], "<powershell>");
    assert.equal(lines[1], custom);
    assert.equal(
      lines[2],
      '[string]$EKSBootstrapScriptFile = "$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1"',
    );
    assert.match(
      lines[3] ?? "",
      new RegExp(
        "^& \\$EKSBootstrapScriptFile -EKSClusterName 'kerf-test' " +
          "-APIServerEndpoint 'https://kerf-test\\.example:6443' -Base64ClusterCA 'Q0E='" +
          ' -KubeletExtraArgs \'--node-labels="[^"]*karpenter\\.sh/capacity-type=on-demand,' +
          'karpenter\\.sh/do-not-sync-taints=true,karpenter\\.sh/nodepool=default[^"]*"' +
          ' --register-with-taints="karpenter\\.sh/unregistered:NoExecute" --max-pods=110\'' +
          " -DNSClusterIP '10\\.0\\.100\\.10'$",
      ),
    );
    assert.equal(lines[4], "</powershell>");
    assert.deepEqual(lt?.devices, [{ name: "/dev/sda1", sizeGiB: 50 }]);
  });

  void it("should merge Bottlerocket settings into the custom TOML with each table once and kerf's keys winning", async () => {
    const userData = [
      "[settings.kubernetes]",
      "api-server = 'replaceme'",
      "cloud-provider = 'external'",
      "",
      "[settings.kubernetes.node-labels]",
      '"custom-node-label" = "custom"',
      '"karpenter.sh/nodepool" = "overridden"',
      "",
      "[settings.kubernetes.node-taints]",
      '"replace" = ["me:NoSchedule"]',
      "",
      "[settings.network]",
      'hosts = [["10.0.0.0", ["test.example.com"]]]',
      "",
    ].join("\n");
    const [lt] = await launch({
      amiFamily: "Bottlerocket",
      userData,
      instanceStorePolicy: "RAID0",
      kubelet: { evictionMaxPodGracePeriod: 10 },
    });
    const sections = tomlSections(lt?.userData ?? "");
    const paths = sections.map((s) => s.path).filter((p) => p !== "");
    assert.deepEqual(paths, [...new Set(paths)], "no table twice");
    const table = (path: string): Record<string, string> =>
      Object.fromEntries(
        (sections.find((s) => s.path === path)?.entries ?? []).map((e) => [
          e.key,
          e.text.slice(e.text.indexOf("=") + 1).trim(),
        ]),
      );
    const k8s = table("settings.kubernetes");
    assert.equal(k8s["api-server"], '"https://kerf-test.example:6443"');
    assert.equal(k8s["cloud-provider"], "'external'");
    assert.equal(k8s["eviction-max-pod-grace-period"], "10");
    const labels = table("settings.kubernetes.node-labels");
    assert.equal(labels["custom-node-label"], '"custom"');
    assert.equal(labels["karpenter.sh/nodepool"], '"default"');
    assert.deepEqual(table("settings.kubernetes.node-taints"), { "karpenter.sh/unregistered": '[":NoExecute"]' });
    assert.equal(table("settings.network")["hosts"], '[["10.0.0.0", ["test.example.com"]]]');
    assert.equal(table("settings.bootstrap-commands.000-mount-instance-storage")["mode"], '"always"');
    assert.deepEqual(lt?.devices, [
      { name: "/dev/xvda", sizeGiB: 4 },
      { name: "/dev/xvdb", sizeGiB: 20 },
    ]);
  });

  void it("should pass AL2's kubelet settings as bootstrap.sh kubelet flags and assemble RAID0 with --local-disks", async () => {
    const kubelet = {
      maxPods: 42,
      systemReserved: { cpu: "100m", memory: "200Mi" },
      kubeReserved: { cpu: "50m" },
      evictionHard: { "memory.available": "5%" },
      evictionSoft: { "memory.available": "10%" },
      evictionSoftGracePeriod: { "memory.available": "90s" },
      evictionMaxPodGracePeriod: 60,
      imageGCHighThresholdPercent: 85,
      imageGCLowThresholdPercent: 80,
      cpuCFSQuota: false,
      podsPerCore: 4,
    };
    const [lt] = await launch({ amiFamily: "AL2", kubelet, instanceStorePolicy: "RAID0" });
    const script = userParts(lt?.userData, "").at(-1)?.body ?? "";
    const args = /--kubelet-extra-args '([^']*)'/.exec(script)?.[1] ?? "";
    assert.equal(
      args.replace(/^--node-labels="[^"]*" /, ""),
      [
        '--register-with-taints="karpenter.sh/unregistered:NoExecute"',
        "--max-pods=42",
        "--pods-per-core=4",
        '--system-reserved="cpu=100m,memory=200Mi"',
        '--kube-reserved="cpu=50m"',
        '--eviction-hard="memory.available<5%"',
        '--eviction-soft="memory.available<10%"',
        '--eviction-soft-grace-period="memory.available=1m30s"',
        "--eviction-max-pod-grace-period=60",
        "--image-gc-high-threshold=85",
        "--image-gc-low-threshold=80",
        "--cpu-cfs-quota=false",
      ].join(" "),
    );
    assert.match(script, /--use-max-pods false \\\n--kubelet-extra-args '[^']*' \\\n--local-disks raid0$/);
  });

  void it("should give AL2023's NodeConfig the kubelet config and a RAID0 local storage strategy", async () => {
    const [lt] = await launch({
      amiFamily: "AL2023",
      instanceStorePolicy: "RAID0",
      kubelet: { podsPerCore: 2, cpuCFSQuota: false },
    });
    const part = userParts(lt?.userData, "").find((p) => p.contentType === "application/node.eks.aws");
    const config = parse(part?.body ?? "") as {
      spec: { instance?: unknown; kubelet: { config: Record<string, unknown>; flags: string[] } };
    };
    assert.deepEqual(config.spec.instance, { localStorage: { strategy: "RAID0" } });
    assert.equal(config.spec.kubelet.config["podsPerCore"], 2);
    assert.equal(config.spec.kubelet.config["cpuCFSQuota"], false);
    assert.match(config.spec.kubelet.flags[0] ?? "", /^--node-labels="[^"]*karpenter\.sh\/do-not-sync-taints=true/);
  });

  void it("should size a RAID0 node's ephemeral storage by its instance store, and others by the family's volume", async () => {
    const create = async (spec: Partial<EC2NodeClassSpec>, type: string): Promise<number> => {
      const classes = new Map([["default", nodeClass("default", { amiSelectorTerms: [{ id: imageId }], ...spec })]]);
      const requirements = [
        { key: "node.kubernetes.io/instance-type", operator: "In", values: [type] },
        { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
      ];
      const graph = providers(moto.aws(), testClock(), classes);
      const launched = await graph.cloudProvider.create(nodeClaim(`claim-${type}`, requirements));
      return parseQuantity(launched.capacity["ephemeral-storage"] ?? "0");
    };
    assert.equal(await create({ amiFamily: "AL2023", instanceStorePolicy: "RAID0" }, "m5d.large"), 75e9);
    assert.equal(await create({ amiFamily: "Windows2022" }, "m5.large"), 50 * 2 ** 30);
  });

  /** The network interfaces of the cluster's only launch template, as moto stored them. */
  async function interfaces(): Promise<Record<string, unknown>[]> {
    const { ec2 } = clients(moto.aws());
    const filter = { Name: "tag:karpenter.k8s.aws/cluster", Values: [CLUSTER] };
    const [t, ...rest] =
      (await ec2.send(new DescribeLaunchTemplatesCommand({ Filters: [filter] }))).LaunchTemplates ?? [];
    assert.equal(rest.length, 0);
    const versions = await ec2.send(
      new DescribeLaunchTemplateVersionsCommand({ LaunchTemplateId: t?.LaunchTemplateId, Versions: ["$Latest"] }),
    );
    return (versions.LaunchTemplateVersions?.[0]?.LaunchTemplateData?.NetworkInterfaces ?? []) as Record<
      string,
      unknown
    >[];
  }

  void it("should attach one EFA interface per card to an EFA type when the NodeClaim requests vpc.amazonaws.com/efa", async () => {
    const classes = new Map([["default", nodeClass("default", { amiSelectorTerms: [{ id: imageId }] })]]);
    const claim = nodeClaim("claim-efa", [
      { key: "node.kubernetes.io/instance-type", operator: "In", values: ["c6in.32xlarge"] },
      { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
    ]);
    const launched = await providers(moto.aws(), testClock(), classes).cloudProvider.create({
      ...claim,
      spec: { ...claim.spec, resources: { requests: { "vpc.amazonaws.com/efa": "1" } } },
    });
    assert.equal(launched.capacity["vpc.amazonaws.com/efa"], "2");
    const nics = (await interfaces()).map((n) => [n["NetworkCardIndex"], n["DeviceIndex"], n["InterfaceType"]]);
    assert.deepEqual(nics, [
      [0, 0, "efa"],
      [1, 1, "efa"],
    ]);
  });

  void it("should declare no interface for the same type when EFA is not requested", async () => {
    const classes = new Map([["default", nodeClass("default", { amiSelectorTerms: [{ id: imageId }] })]]);
    await providers(moto.aws(), testClock(), classes).cloudProvider.create(
      nodeClaim("claim-no-efa", [
        { key: "node.kubernetes.io/instance-type", operator: "In", values: ["c6in.32xlarge"] },
        { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
      ]),
    );
    assert.deepEqual(await interfaces(), []);
  });

  void it("should give an IPv6 cluster's nodes a primary IPv6 address and the IPv6 cluster DNS", async () => {
    const classes = new Map([
      ["default", nodeClass("default", { amiSelectorTerms: [{ id: imageId }], amiFamily: "AL2" })],
    ]);
    const ipv6 = { serviceCIDR: "fd00:10:96::/108", dnsIP: "fd00:10:96::a" };
    const graph = providers(moto.aws(), testClock(), classes, ipv6);
    await graph.cloudProvider.create(nodeClaim("claim-ipv6", M5));
    const [nic] = await interfaces();
    assert.equal(nic?.["PrimaryIpv6"], true);
    assert.equal(nic?.["Ipv6AddressCount"], 1);
    assert.equal(nic?.["DeviceIndex"], 0);
    const [lt] = await templates();
    assert.match(lt?.userData ?? "", /--ip-family ipv6 \\\n--dns-cluster-ip 'fd00:10:96::a'/);
  });

  void it("should refuse Bottlerocket user data that is not TOML, naming spec.userData, without creating a template", async () => {
    await assert.rejects(
      launch({ amiFamily: "Bottlerocket", userData: "[settings.ntp]\ntime-servers = [\n" }),
      /spec\.userData \(Bottlerocket\)/,
    );
    assert.deepEqual(await templates(), []);
  });
});
