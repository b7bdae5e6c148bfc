import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fnv1Hash64 } from "./hash.ts";
import {
  instanceProfilePath,
  instanceProfileTags,
  launchInstanceProfile,
  managedInstanceProfileName,
  roleNameOf,
} from "./instance-profile.ts";
import { buildLaunchTemplate, type LaunchOptions } from "./template.ts";
import type { EC2NodeClassSpec } from "./node-class.ts";

const scope = { clusterName: "demo", region: "us-west-2", nodeClassName: "default" };

const roleSpec: EC2NodeClassSpec = {
  amiSelectorTerms: [{ alias: "al2023@latest" }],
  subnetSelectorTerms: [{ id: "subnet-1" }],
  securityGroupSelectorTerms: [{ id: "sg-1" }],
  role: "KarpenterNodeRole-demo",
};

void describe("managed instance profile naming", () => {
  void it("should hash with FNV-1 64 (multiply, then xor), matching Go's hash/fnv New64", () => {
    assert.equal(fnv1Hash64(""), "14695981039346656037");
    assert.equal(fnv1Hash64("a"), BigInt("0xaf63bd4c8601b7be").toString(10));
    assert.equal(fnv1Hash64("foobar"), BigInt("0x340d8765a4dda9c2").toString(10));
  });

  void it("should name the profile <cluster>_<hash of region + node class name> as Karpenter does", () => {
    // Reference value from Go: fnv.New64() over "us-west-2default" (hashstructure v2 of that string).
    assert.equal(managedInstanceProfileName(scope), "demo_4067990795380418201");
    assert.equal(managedInstanceProfileName({ ...scope, region: "us-east-1" }), "demo_15843455441266977890");
  });

  void it("should give a different name per region, node class and cluster and the same name every time", () => {
    const name = managedInstanceProfileName(scope);
    assert.equal(managedInstanceProfileName({ ...scope }), name);
    for (const other of [
      { ...scope, region: "eu-west-1" },
      { ...scope, nodeClassName: "gpu" },
      { ...scope, clusterName: "prod" },
    ]) {
      assert.notEqual(managedInstanceProfileName(other), name, JSON.stringify(other));
    }
  });

  void it("should tag the profile with the cluster, node class and region, over the user's tags", () => {
    const tags = instanceProfileTags(scope, { team: "platform", "karpenter.sh/managed-by": "someone-else" });
    assert.deepEqual(tags, {
      team: "platform",
      "kubernetes.io/cluster/demo": "owned",
      "eks:eks-cluster-name": "demo",
      "karpenter.sh/managed-by": "demo",
      "karpenter.k8s.aws/ec2nodeclass": "default",
      "topology.kubernetes.io/region": "us-west-2",
    });
  });

  void it("should place the profile under /karpenter/<region>/<cluster>/<uid>/", () => {
    assert.equal(instanceProfilePath(scope, "0b1c"), "/karpenter/us-west-2/demo/0b1c/");
    assert.equal(instanceProfilePath(scope), "/karpenter/us-west-2/demo/");
  });

  void it("should strip an ARN prefix or IAM path from the role", () => {
    assert.equal(roleNameOf("KarpenterNodeRole-demo"), "KarpenterNodeRole-demo");
    assert.equal(roleNameOf("arn:aws:iam::123456789012:role/nodes/KarpenterNodeRole-demo"), "KarpenterNodeRole-demo");
  });

  void it("should launch with the given profile, else the managed one for a role, else none", () => {
    assert.equal(launchInstanceProfile({ ...roleSpec, role: undefined, instanceProfile: "given" }, "demo_1"), "given");
    assert.equal(launchInstanceProfile(roleSpec, "demo_1"), "demo_1");
    assert.equal(launchInstanceProfile({ ...roleSpec, role: undefined }, "demo_1"), undefined);
  });
});

void describe("launch templates of a role node class", () => {
  const options = (instanceProfile: string | undefined): LaunchOptions => ({
    clusterName: "demo",
    clusterEndpoint: "https://demo.example:6443",
    nodeClass: roleSpec,
    imageId: "ami-1",
    securityGroupIds: ["sg-1"],
    labels: {},
    taints: [],
    instanceProfile,
  });

  void it("should carry the resolved profile and hash it into the template name", () => {
    const a = buildLaunchTemplate(options("demo_1"));
    const b = buildLaunchTemplate(options("demo_2"));
    assert.equal(a.instanceProfile, "demo_1");
    assert.notEqual(a.name, b.name);
    assert.equal(buildLaunchTemplate(options(undefined)).instanceProfile, undefined);
  });
});
