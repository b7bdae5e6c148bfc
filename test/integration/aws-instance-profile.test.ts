import { after, before, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { DescribeLaunchTemplatesCommand, DescribeLaunchTemplateVersionsCommand } from "@aws-sdk/client-ec2";
import { CreateInstanceProfileCommand, GetInstanceProfileCommand } from "@aws-sdk/client-iam";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { reconcileNodeClass } from "../../operator/controllers/nodeclass/controller.ts";
import { managedInstanceProfileName } from "../../operator/core/launch-template/instance-profile.ts";
import type { AwsProviderGraph } from "../../operator/adapters/aws/factory.ts";
import type { EC2NodeClassLike, EC2NodeClassStatus } from "../../operator/core/launch-template/node-class.ts";
import type { RunningOperator } from "../../operator/main.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import {
  CLUSTER,
  NODE_ROLE,
  clients,
  nodeClaim,
  nodeClass,
  seedAl2023Alias,
  seedNodeRole,
  tagDefaultSubnets,
  testClock,
  type TestClock,
} from "./aws-fixtures.ts";
import { useMotoSuite } from "./aws-moto-suite.ts";
import { installKarpenterCrds, replica } from "./operator-fixtures.ts";

const onDemandM5 = [
  { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large"] },
  { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
  { key: "topology.kubernetes.io/zone", operator: "In", values: ["us-east-1a"] },
];

const NODECLASSES = { group: "karpenter.k8s.aws", version: "v1", plural: "ec2nodeclasses" } as const;
const NODECLAIMS = { group: "karpenter.sh", version: "v1", plural: "nodeclaims" } as const;

const profileName = (nodeClassName: string): string =>
  managedInstanceProfileName({ clusterName: CLUSTER, region: "us-east-1", nodeClassName });
const condition = (
  status: EC2NodeClassStatus | undefined,
  type: string,
): { status: string; reason: string; message: string } | undefined => status?.conditions?.find((c) => c.type === type);

/** The instance profile as IAM has it (roles, tags, path); undefined when it does not exist. */
async function iamProfile(
  env: TestEnvironment,
  name: string,
): Promise<{ roles: string[]; tags: Record<string, string>; path: string } | undefined> {
  try {
    const out = await clients(env.aws()).iam.send(new GetInstanceProfileCommand({ InstanceProfileName: name }));
    const p = out.InstanceProfile;
    return {
      roles: (p?.Roles ?? []).map((r) => r.RoleName ?? ""),
      tags: Object.fromEntries((p?.Tags ?? []).map((t) => [t.Key, t.Value])),
      path: p?.Path ?? "",
    };
  } catch (error) {
    if ((error as Error).name === "NoSuchEntityException") return undefined;
    throw error;
  }
}

/** IamInstanceProfile of the launch templates kerf created for a node class. */
async function templateProfiles(env: TestEnvironment, nodeClassName: string): Promise<(string | undefined)[]> {
  const { ec2 } = clients(env.aws());
  const templates =
    (
      await ec2.send(
        new DescribeLaunchTemplatesCommand({
          Filters: [{ Name: "tag:karpenter.k8s.aws/ec2nodeclass", Values: [nodeClassName] }],
        }),
      )
    ).LaunchTemplates ?? [];
  const profiles: (string | undefined)[] = [];
  for (const t of templates) {
    const versions = await ec2.send(
      new DescribeLaunchTemplateVersionsCommand({ LaunchTemplateId: t.LaunchTemplateId, Versions: ["$Latest"] }),
    );
    profiles.push(versions.LaunchTemplateVersions?.[0]?.LaunchTemplateData?.IamInstanceProfile?.Name);
  }
  return profiles;
}

void describe("EC2NodeClass instance profiles against moto", () => {
  const moto = useMotoSuite({ al2023: true, zones: ["us-east-1a", "us-east-1b"], nodeRole: true });
  let clock: TestClock;
  let written: EC2NodeClassStatus[];

  beforeEach(() => {
    clock = testClock(new Date(Date.UTC(2000, 0, 1)));
    written = [];
  });

  const graph = (): AwsProviderGraph => moto.providers(moto.aws(), clock);
  const reconcile = async (g: AwsProviderGraph, nc: EC2NodeClassLike): Promise<EC2NodeClassStatus> => {
    moto.nodeClasses.set(nc.metadata.name, nc);
    const deps = {
      resolver: g.resolver,
      cloud: g.nodeClassCloud,
      clock,
      writeStatus: async (_: string, s: EC2NodeClassStatus) => {
        written.push(s);
      },
    };
    return (await reconcileNodeClass(deps, nc)).status;
  };

  void it("should create the role's instance profile, report it Ready in the status and launch instances with it", async () => {
    const g = graph();
    const nc = {
      ...nodeClass("role-class", { tags: { team: "platform" } }),
      metadata: { name: "role-class", generation: 1, uid: "5f0c" },
    };
    const status = await reconcile(g, nc);
    const name = profileName("role-class");
    assert.match(name, /^kerf-test_\d+$/);
    assert.equal(status.instanceProfile, name);
    assert.equal(condition(status, "InstanceProfileReady")?.status, "True");
    assert.equal(condition(status, "Ready")?.status, "True");
    assert.deepEqual(await iamProfile(moto.env, name), {
      roles: [NODE_ROLE],
      path: "/karpenter/us-east-1/kerf-test/5f0c/",
      tags: {
        team: "platform",
        [`kubernetes.io/cluster/${CLUSTER}`]: "owned",
        "eks:eks-cluster-name": CLUSTER,
        "karpenter.sh/managed-by": CLUSTER,
        "karpenter.k8s.aws/ec2nodeclass": "role-class",
        "topology.kubernetes.io/region": "us-east-1",
      },
    });

    await g.cloudProvider.create(nodeClaim("claim-role", onDemandM5, "role-class"));
    assert.deepEqual(await templateProfiles(moto.env, "role-class"), [name]);
  });

  void it("should move the profile to the new role when spec.role changes, under the same name", async () => {
    const g = graph();
    await reconcile(g, nodeClass("role-class"));
    await seedNodeRole(moto.aws(), "KarpenterNodeRole-next");
    const status = await reconcile(g, {
      ...nodeClass("role-class", { role: "KarpenterNodeRole-next" }),
      metadata: { name: "role-class", generation: 2 },
    });
    assert.equal(status.instanceProfile, profileName("role-class"));
    assert.equal(condition(status, "InstanceProfileReady")?.status, "True");
    assert.deepEqual((await iamProfile(moto.env, profileName("role-class")))?.roles, ["KarpenterNodeRole-next"]);
  });

  void it("should not be Ready while the role does not exist, and recover once it does", async () => {
    const g = graph();
    const missing = nodeClass("role-class", { role: "KarpenterNodeRole-missing" });
    const status = await reconcile(g, missing);
    assert.equal(status.instanceProfile, profileName("role-class"));
    assert.equal(condition(status, "InstanceProfileReady")?.status, "False");
    assert.equal(condition(status, "InstanceProfileReady")?.reason, "InstanceProfileCreationFailed");
    assert.match(
      condition(status, "InstanceProfileReady")?.message ?? "",
      /^adding role KarpenterNodeRole-missing to instance profile kerf-test_\d+: .*not found/,
    );
    assert.equal(condition(status, "Ready")?.status, "False");
    await seedNodeRole(moto.aws(), "KarpenterNodeRole-missing");
    const recovered = await reconcile(g, { ...missing, status });
    assert.equal(condition(recovered, "InstanceProfileReady")?.status, "True");
    assert.deepEqual((await iamProfile(moto.env, profileName("role-class")))?.roles, ["KarpenterNodeRole-missing"]);
  });

  void it("should use a given instanceProfile unchanged and be Ready only when it exists", async () => {
    const g = graph();
    const given = nodeClass("given", { role: undefined, instanceProfile: "NodeProfile-given" });
    const missing = await reconcile(g, given);
    assert.equal(condition(missing, "InstanceProfileReady")?.status, "False");
    assert.equal(condition(missing, "InstanceProfileReady")?.reason, "InstanceProfileNotFound");
    await clients(moto.aws()).iam.send(new CreateInstanceProfileCommand({ InstanceProfileName: "NodeProfile-given" }));
    const found = await reconcile(g, given);
    assert.equal(found.instanceProfile, "NodeProfile-given");
    assert.equal(condition(found, "InstanceProfileReady")?.status, "True");
    assert.equal(await iamProfile(moto.env, profileName("given")), undefined, "no managed profile for a given one");
    await g.cloudProvider.create(nodeClaim("claim-given", onDemandM5, "given"));
    assert.deepEqual(await templateProfiles(moto.env, "given"), ["NodeProfile-given"]);
  });
});

interface NodeClassObject {
  metadata: { finalizers?: string[]; deletionTimestamp?: string };
  status?: EC2NodeClassStatus;
}

void describe("EC2NodeClass instance profiles with the operator on the real apiserver", () => {
  let env: TestEnvironment;
  let operator: RunningOperator;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    await installKarpenterCrds(env);
    await seedAl2023Alias(env.aws(), "x86_64");
    await tagDefaultSubnets(env.aws(), ["us-east-1a", "us-east-1b"]);
    await seedNodeRole(env.aws());
    await seedNodeRole(env.aws(), "KarpenterNodeRole-next");
    operator = await replica(env, "instance-profile", { DISABLE_LEADER_ELECTION: "true" });
  });
  after(async () => {
    await operator.stop();
  });

  void it("should manage the profile of a role node class through role change and deletion after its NodeClaims are gone", async () => {
    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const name = profileName("role-class");
    const read = async (): Promise<NodeClassObject> =>
      (await custom.getClusterCustomObject({ ...NODECLASSES, name: "role-class" })) as NodeClassObject;
    await custom.createClusterCustomObject({
      ...NODECLASSES,
      body: {
        apiVersion: "karpenter.k8s.aws/v1",
        kind: "EC2NodeClass",
        metadata: { name: "role-class" },
        spec: nodeClass("role-class").spec,
      },
    });

    const ready = await eventually(
      "the EC2NodeClass to report its instance profile Ready",
      async () => {
        const nc = await read();
        return condition(nc.status, "InstanceProfileReady")?.status === "True" &&
          condition(nc.status, "Ready")?.status === "True"
          ? nc
          : undefined;
      },
      60_000,
      250,
    );
    assert.equal(ready.status?.instanceProfile, name);
    assert.deepEqual(ready.metadata.finalizers, ["karpenter.k8s.aws/termination"]);
    assert.deepEqual((await iamProfile(env, name))?.roles, [NODE_ROLE]);

    await custom.patchClusterCustomObject({
      ...NODECLASSES,
      name: "role-class",
      body: [{ op: "replace", path: "/spec/role", value: "KarpenterNodeRole-next" }],
    });
    await eventually(
      "the profile to hold the new role",
      async () => (await iamProfile(env, name))?.roles.join() === "KarpenterNodeRole-next",
      90_000,
      250,
    );

    await custom.createClusterCustomObject({
      ...NODECLAIMS,
      body: {
        apiVersion: "karpenter.sh/v1",
        kind: "NodeClaim",
        metadata: { name: "profile-claim", labels: { "karpenter.sh/nodepool": "default" } },
        spec: {
          nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "role-class" },
          requirements: onDemandM5,
        },
      },
    });
    await eventually(
      "the NodeClaim to launch",
      async () => {
        const c = (await custom.getClusterCustomObject({ ...NODECLAIMS, name: "profile-claim" })) as {
          status?: { providerID?: string };
        };
        return (c.status?.providerID ?? "") !== "";
      },
      60_000,
      250,
    );
    assert.deepEqual(await templateProfiles(env, "role-class"), [name]);

    await custom.deleteClusterCustomObject({ ...NODECLASSES, name: "role-class" });
    const waiting = await eventually(
      "the EC2NodeClass to be terminating",
      async () => {
        const nc = await read();
        return nc.metadata.deletionTimestamp === undefined ? undefined : nc;
      },
      30_000,
      100,
    );
    assert.deepEqual(waiting.metadata.finalizers, ["karpenter.k8s.aws/termination"]);
    // Once the operator has acted on the deletion (the event), the NodeClaim still holds the node class
    // and its profile.
    await eventually(
      "a WaitingOnNodeClaimTermination event on the EC2NodeClass",
      async () => {
        const events = await core.listNamespacedEvent({
          namespace: "default",
          fieldSelector: "reason=WaitingOnNodeClaimTermination",
        });
        return events.items.some(
          (e) =>
            e.involvedObject.kind === "EC2NodeClass" &&
            e.involvedObject.name === "role-class" &&
            e.message === "Waiting on NodeClaim termination for profile-claim",
        );
      },
      30_000,
      250,
    );
    assert.ok((await read()).metadata.deletionTimestamp !== undefined, "still present while its NodeClaim exists");
    assert.deepEqual((await iamProfile(env, name))?.roles, ["KarpenterNodeRole-next"]);

    await custom.deleteClusterCustomObject({ ...NODECLAIMS, name: "profile-claim" });
    await eventually(
      "the EC2NodeClass to be gone",
      async () => {
        try {
          await read();
          return false;
        } catch (e) {
          return (e as { code?: number }).code === 404;
        }
      },
      120_000,
      250,
    );
    assert.equal(await iamProfile(env, name), undefined, "the managed instance profile is deleted");
    assert.deepEqual(await templateProfiles(env, "role-class"), [], "its launch templates are deleted");
  });
});
