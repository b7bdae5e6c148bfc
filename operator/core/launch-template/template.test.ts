import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parse } from "yaml";
import { canonicalJson, contentHash, fnv64 } from "./hash.ts";
import { buildLaunchTemplate, type LaunchOptions } from "./template.ts";
import { userParts } from "./bootstrap.ts";
import type { EC2NodeClassSpec } from "./node-class.ts";

const spec: EC2NodeClassSpec = {
  amiSelectorTerms: [{ alias: "al2023@latest" }],
  subnetSelectorTerms: [{ tags: { "karpenter.sh/discovery": "demo" } }],
  securityGroupSelectorTerms: [{ tags: { "karpenter.sh/discovery": "demo" } }],
  role: "KarpenterNodeRole-demo",
  kubelet: { maxPods: 58, clusterDNS: ["10.100.0.10"], evictionHard: { "memory.available": "5%" } },
};

function options(overrides: Partial<LaunchOptions> = {}): LaunchOptions {
  return {
    clusterName: "demo",
    clusterEndpoint: "https://demo.example:6443",
    caBundle: "Q0E=",
    clusterCIDR: "10.100.0.0/16",
    nodeClass: spec,
    imageId: "ami-0123",
    securityGroupIds: ["sg-2", "sg-1"],
    labels: { "karpenter.sh/nodepool": "default", "karpenter.sh/capacity-type": "spot" },
    taints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }],
    ...overrides,
  };
}

function nodeConfigOf(userData: string): {
  spec: { cluster: Record<string, unknown>; kubelet: { config: Record<string, unknown>; flags: string[] } };
} {
  const parts = userParts(userData, "");
  const nodeadm = parts.filter((p) => p.contentType === "application/node.eks.aws").at(-1);
  assert.ok(nodeadm !== undefined, "a nodeadm part exists");
  return parse(nodeadm.body) as ReturnType<typeof nodeConfigOf>;
}

void describe("content hashing", () => {
  void it("should serialise objects with sorted keys regardless of insertion order", () => {
    assert.equal(canonicalJson({ b: 1, a: [{ d: 2, c: undefined }] }), canonicalJson({ a: [{ d: 2 }], b: 1 }));
  });

  void it("should compute the FNV-1a 64 reference values", () => {
    assert.equal(fnv64(""), "14695981039346656037");
    assert.equal(fnv64("a"), BigInt("0xaf63dc4c8601ec8c").toString(10));
  });

  void it("should give different content different hashes", () => {
    assert.notEqual(contentHash({ a: 1 }), contentHash({ a: 2 }));
  });
});

void describe("buildLaunchTemplate", () => {
  void it("should name equal content identically and any change differently", () => {
    const a = buildLaunchTemplate(options());
    assert.equal(a.name, buildLaunchTemplate(options({ securityGroupIds: ["sg-1", "sg-2"] })).name);
    assert.match(a.name, /^karpenter\.k8s\.aws\/\d+$/);
    const variants: Partial<LaunchOptions>[] = [
      { imageId: "ami-0456" },
      { securityGroupIds: ["sg-1"] },
      { labels: { "karpenter.sh/nodepool": "other" } },
      { taints: [] },
      { nodeClass: { ...spec, kubelet: { maxPods: 10 } } },
      { nodeClass: { ...spec, metadataOptions: { httpTokens: "optional" } } },
    ];
    for (const v of variants) assert.notEqual(buildLaunchTemplate(options(v)).name, a.name, JSON.stringify(v));
  });

  void it("should default block devices, IMDS and monitoring as Karpenter does for AL2023", () => {
    const lt = buildLaunchTemplate(options());
    assert.deepEqual(lt.blockDeviceMappings, [
      {
        deviceName: "/dev/xvda",
        ebs: {
          volumeSizeGiB: 20,
          volumeType: "gp3",
          encrypted: true,
          deleteOnTermination: true,
          iops: undefined,
          throughput: undefined,
          kmsKeyId: undefined,
          snapshotId: undefined,
        },
      },
    ]);
    assert.deepEqual(lt.metadataOptions, {
      httpEndpoint: "enabled",
      httpProtocolIPv6: "disabled",
      httpPutResponseHopLimit: 1,
      httpTokens: "required",
    });
    assert.equal(lt.detailedMonitoring, false);
    assert.deepEqual(lt.securityGroupIds, ["sg-1", "sg-2"]);
  });

  void it("should use the node class block devices and convert sizes to GiB", () => {
    const lt = buildLaunchTemplate(
      options({
        nodeClass: {
          ...spec,
          blockDeviceMappings: [
            { deviceName: "/dev/xvda", rootVolume: true, ebs: { volumeSize: "100Gi", volumeType: "gp2", iops: 3000 } },
          ],
        },
      }),
    );
    assert.equal(lt.blockDeviceMappings[0]?.ebs.volumeSizeGiB, 100);
    assert.equal(lt.blockDeviceMappings[0]?.ebs.volumeType, "gp2");
    assert.equal(lt.blockDeviceMappings[0]?.ebs.iops, 3000);
  });

  void it("should write an AL2023 nodeadm NodeConfig with the kubelet settings, labels and taints", () => {
    const cfg = nodeConfigOf(buildLaunchTemplate(options()).userData);
    assert.deepEqual(cfg.spec.cluster, {
      name: "demo",
      apiServerEndpoint: "https://demo.example:6443",
      certificateAuthority: "Q0E=",
      cidr: "10.100.0.0/16",
    });
    assert.equal(cfg.spec.kubelet.config["maxPods"], 58);
    assert.deepEqual(cfg.spec.kubelet.config["clusterDNS"], ["10.100.0.10"]);
    assert.deepEqual(cfg.spec.kubelet.config["evictionHard"], { "memory.available": "5%" });
    assert.deepEqual(cfg.spec.kubelet.config["registerWithTaints"], [
      { key: "dedicated", value: "gpu", effect: "NoSchedule" },
      { key: "karpenter.sh/unregistered", effect: "NoExecute" },
    ]);
    assert.deepEqual(cfg.spec.kubelet.flags, [
      '--node-labels="karpenter.sh/capacity-type=spot,karpenter.sh/do-not-sync-taints=true,' +
        'karpenter.sh/nodepool=default"',
    ]);
  });

  void it("should keep the user's MIME parts before kerf's NodeConfig", () => {
    const userData = [
      "MIME-Version: 1.0",
      'Content-Type: multipart/mixed; boundary="BOUNDARY"',
      "",
      "--BOUNDARY",
      "Content-Type: text/x-shellscript",
      "",
      "#!/bin/bash",
      "echo hi",
      "--BOUNDARY--",
      "",
    ].join("\n");
    const lt = buildLaunchTemplate(options({ nodeClass: { ...spec, userData } }));
    const parts = userParts(lt.userData, "");
    assert.deepEqual(
      parts.map((p) => p.contentType),
      ["text/x-shellscript", "application/node.eks.aws"],
    );
    assert.equal(parts[0]?.body, "#!/bin/bash\necho hi");
  });

  void it("should write Bottlerocket TOML settings with labels and taints", () => {
    const lt = buildLaunchTemplate(
      options({ nodeClass: { ...spec, amiSelectorTerms: [{ alias: "bottlerocket@latest" }] } }),
    );
    assert.match(
      lt.userData,
      /^\[settings\.kubernetes\]\napi-server = "https:\/\/demo\.example:6443"\ncluster-name = "demo"/,
    );
    assert.match(lt.userData, /max-pods = 58/);
    assert.match(
      lt.userData,
      new RegExp(
        '\\[settings\\.kubernetes\\.node-labels\\]\\n"karpenter\\.sh\\/capacity-type" = "spot"\\n' +
          '"karpenter\\.sh\\/do-not-sync-taints" = "true"\\n"karpenter\\.sh\\/nodepool" = "default"',
      ),
    );
    assert.match(lt.userData, /"karpenter\.sh\/unregistered" = \[":NoExecute"\]/);
    assert.equal(lt.blockDeviceMappings.length, 2);
  });

  void it("should pass user data through unchanged for the Custom family", () => {
    const lt = buildLaunchTemplate(
      options({
        nodeClass: {
          ...spec,
          amiFamily: "Custom",
          amiSelectorTerms: [{ id: "ami-1" }],
          userData: "#!/bin/sh\necho custom\n",
        },
      }),
    );
    assert.equal(lt.userData, "#!/bin/sh\necho custom\n");
    assert.doesNotMatch(lt.userData, /do-not-sync-taints/);
  });

  void it("should run bootstrap.sh with labels and taints for AL2", () => {
    const lt = buildLaunchTemplate(options({ nodeClass: { ...spec, amiSelectorTerms: [{ alias: "al2@latest" }] } }));
    assert.match(lt.userData, /\/etc\/eks\/bootstrap\.sh 'demo'/);
    assert.match(
      lt.userData,
      /--register-with-taints="dedicated=gpu:NoSchedule,karpenter\.sh\/unregistered:NoExecute"/,
    );
  });
});

void describe("buildLaunchTemplate network interfaces", () => {
  void it("should keep an IPv4 template without EFA free of declared interfaces, so its name does not change", () => {
    assert.equal(buildLaunchTemplate(options()).networkInterfaces, undefined);
  });

  void it("should make EFA and IPv6 part of the content, so each count and family gets its own template", () => {
    const efa = buildLaunchTemplate(options({ efaCount: 4 }));
    assert.equal(efa.networkInterfaces?.length, 4);
    assert.notEqual(efa.name, buildLaunchTemplate(options()).name);
    const ipv6 = buildLaunchTemplate(options({ clusterDNS: "fd00:10:96::a" }));
    assert.deepEqual(
      ipv6.networkInterfaces?.map((n) => [n.deviceIndex, n.primaryIpv6, n.ipv6AddressCount]),
      [[0, true, 1]],
    );
  });
});
