import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { FixedClock } from "../../../core/clock.ts";
import type { EC2NodeClassLike } from "../../../core/launch-template/node-class.ts";
import type { IamApi } from "../sdk.ts";
import { DefaultInstanceProfileProvider, INSTANCE_PROFILE_CACHE_TTL_MS } from "./instanceprofile.ts";

function nodeClass(role: string): EC2NodeClassLike {
  return {
    metadata: { name: "default", uid: "u-1" },
    spec: { amiSelectorTerms: [], subnetSelectorTerms: [], securityGroupSelectorTerms: [], role, tags: { team: "a" } },
  };
}

/** An in-memory IAM holding instance profiles (name → roles) and recording every call. */
function fakeIam(): { api: IamApi; calls: string[]; profiles: Map<string, string[]> } {
  const calls: string[] = [];
  const profiles = new Map<string, string[]>();
  const notFound = (): Error => Object.assign(new Error("not found"), { name: "NoSuchEntityException" });
  const roles = (name: string | undefined): string[] => {
    const r = profiles.get(name ?? "");
    if (r === undefined) throw notFound();
    return r;
  };
  const api = {
    getInstanceProfile: async (i: { InstanceProfileName?: string }) => {
      calls.push("get");
      return { InstanceProfile: { Roles: roles(i.InstanceProfileName).map((RoleName) => ({ RoleName })) } };
    },
    createInstanceProfile: async (i: { InstanceProfileName?: string; Path?: string }) => {
      calls.push(`create ${i.Path ?? ""}`);
      profiles.set(i.InstanceProfileName ?? "", []);
      return {};
    },
    addRoleToInstanceProfile: async (i: { InstanceProfileName?: string; RoleName?: string }) => {
      calls.push(`add ${i.RoleName ?? ""}`);
      roles(i.InstanceProfileName).push(i.RoleName ?? "");
      return {};
    },
    removeRoleFromInstanceProfile: async (i: { InstanceProfileName?: string; RoleName?: string }) => {
      calls.push(`remove ${i.RoleName ?? ""}`);
      profiles.set(
        i.InstanceProfileName ?? "",
        roles(i.InstanceProfileName).filter((r) => r !== i.RoleName),
      );
      return {};
    },
    deleteInstanceProfile: async (i: { InstanceProfileName?: string }) => {
      calls.push("delete");
      roles(i.InstanceProfileName);
      profiles.delete(i.InstanceProfileName ?? "");
      return {};
    },
  };
  return { api: api as unknown as IamApi, calls, profiles };
}

void describe("DefaultInstanceProfileProvider", () => {
  const setup = (): { provider: DefaultInstanceProfileProvider; clock: FixedClock } & ReturnType<typeof fakeIam> => {
    const iam = fakeIam();
    const clock = new FixedClock("2000-01-01T00:00:00Z");
    return {
      ...iam,
      clock,
      provider: new DefaultInstanceProfileProvider({ iam: iam.api, clusterName: "demo", region: "us-west-2", clock }),
    };
  };

  void it("should create the managed profile under Karpenter's path and add the role once, then answer from the cache", async () => {
    const { provider, calls, profiles, clock } = setup();
    assert.equal(await provider.ensure(nodeClass("NodeRole")), "demo_4067990795380418201");
    assert.deepEqual(calls, ["get", "create /karpenter/us-west-2/demo/u-1/", "add NodeRole"]);
    assert.deepEqual(profiles.get("demo_4067990795380418201"), ["NodeRole"]);
    await provider.ensure(nodeClass("NodeRole"));
    assert.equal(calls.length, 3, "a confirmed profile is not asked for again within the TTL");
    clock.advance(INSTANCE_PROFILE_CACHE_TTL_MS);
    await provider.ensure(nodeClass("NodeRole"));
    assert.deepEqual(calls.slice(3), ["get"], "after the TTL IAM is read again; nothing to change");
  });

  void it("should swap the role when the node class's role changes, keeping the profile", async () => {
    const { provider, calls, profiles } = setup();
    await provider.ensure(nodeClass("NodeRole"));
    await provider.ensure(nodeClass("arn:aws:iam::123456789012:role/nodes/OtherRole"));
    assert.deepEqual(calls.slice(3), ["get", "remove NodeRole", "add OtherRole"]);
    assert.deepEqual([...profiles.entries()], [["demo_4067990795380418201", ["OtherRole"]]]);
  });

  void it("should detach the role and delete the profile, and report false when there is none", async () => {
    const { provider, profiles } = setup();
    await provider.ensure(nodeClass("NodeRole"));
    assert.equal(await provider.delete("default"), true);
    assert.equal(profiles.size, 0);
    assert.equal(await provider.delete("default"), false);
    assert.equal(await provider.exists("demo_4067990795380418201"), false);
  });

  void it("should wrap IAM failures as InstanceProfileError naming what it was doing", async () => {
    const { provider, api } = setup();
    api.addRoleToInstanceProfile = async () => {
      throw Object.assign(new Error("Role NodeRole not found"), { name: "NoSuchEntityException" });
    };
    await assert.rejects(provider.ensure(nodeClass("NodeRole")), {
      name: "InstanceProfileError",
      message:
        "adding role NodeRole to instance profile demo_4067990795380418201: NoSuchEntityException: " +
        "Role NodeRole not found",
    });
  });
});
