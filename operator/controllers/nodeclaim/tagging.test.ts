import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { TAGGED_ANNOTATIONS } from "../../core/lifecycle/instance-tagging.ts";
import type { NodeClaim } from "../../core/lifecycle/objects.ts";
import type { InstanceTags } from "../../ports/instance-tags.ts";
import type { Watched } from "../controller-spec.ts";
import { CREATE_TAGS_INTERVAL_MS, reconcileTagging, taggingController, type TaggingDeps } from "./tagging.ts";

const NODE = "ip-10-0-1-23.ec2.internal";
const ALL_TAGS = (claim: string): Record<string, string> => ({
  Name: NODE,
  "karpenter.sh/nodeclaim": claim,
  "eks:eks-cluster-name": "demo",
});
const never = (): { at: number } => ({ at: Number.NEGATIVE_INFINITY });

function claim(name: string, o: { providerID?: string } = {}): NodeClaim {
  const providerID = o.providerID ?? `aws:///us-east-1a/i-${name}`;
  return { metadata: { name, resourceVersion: "7" }, status: { providerID, nodeName: NODE } };
}

/** In-memory instances and NodeClaims; records CreateTags calls and annotation patches. */
function world(claims: NodeClaim[], instances: Record<string, Record<string, string>>) {
  const created: { id: string; tags: Readonly<Record<string, string>> }[] = [];
  const patched: { name: string; annotations: Readonly<Record<string, string | null>> | undefined }[] = [];
  let now = 1_000_000;
  const tags: InstanceTags = {
    tagsOf: async (id) => instances[id],
    createTags: async (id, t) => {
      created.push({ id, tags: t });
      const instance = instances[id];
      if (instance === undefined) return false;
      Object.assign(instance, t);
      return true;
    },
  };
  const deps: TaggingDeps = {
    cluster: {
      nodeClaim: (name) => claims.find((c) => c.metadata?.name === name),
      patchNodeClaimMetadata: async (nc, meta) => {
        patched.push({ name: nc.metadata?.name ?? "", annotations: meta.annotations });
      },
    },
    tags,
    clusterName: "demo",
    clock: { now: () => new Date(now) },
    logger: { debug: () => undefined, error: () => undefined } as unknown as TaggingDeps["logger"],
  };
  return {
    deps,
    created,
    patched,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

void describe("the nodeclaim.tagging controller", () => {
  void it("should tag a registered NodeClaim's instance and annotate the NodeClaim", async () => {
    const w = world([claim("a")], { "i-a": { "karpenter.sh/nodepool": "default" } });
    assert.deepEqual(await reconcileTagging(w.deps, "a", never()), {});
    assert.deepEqual(w.created, [{ id: "i-a", tags: ALL_TAGS("a") }]);
    assert.deepEqual(w.patched, [{ name: "a", annotations: TAGGED_ANNOTATIONS }]);
  });

  void it("should only annotate when the instance carries every tag already", async () => {
    const w = world([claim("a")], { "i-a": { ...ALL_TAGS("a"), Name: "mine" } });
    await reconcileTagging(w.deps, "a", never());
    assert.deepEqual(w.created, []);
    assert.equal(w.patched.length, 1);
  });

  void it("should make at most one CreateTags a second, asking the others to come back", async () => {
    const w = world([claim("a"), claim("b")], { "i-a": {}, "i-b": {} });
    const pacing = never();
    await reconcileTagging(w.deps, "a", pacing);
    const again = await reconcileTagging(w.deps, "b", pacing);
    assert.equal(again.requeueAfter, CREATE_TAGS_INTERVAL_MS);
    assert.equal(w.created.length, 1);
    w.advance(CREATE_TAGS_INTERVAL_MS);
    await reconcileTagging(w.deps, "b", pacing);
    assert.deepEqual(
      w.created.map((c) => c.id),
      ["i-a", "i-b"],
    );
  });

  void it("should do nothing for an instance that is gone or a providerID that names none", async () => {
    const w = world([claim("gone"), claim("odd", { providerID: "kwok://odd" })], {});
    assert.deepEqual(await reconcileTagging(w.deps, "gone", never()), {});
    assert.deepEqual(await reconcileTagging(w.deps, "odd", never()), {});
    assert.deepEqual([w.created, w.patched], [[], []]);
  });

  void it("should be woken only by NodeClaims that need tagging", () => {
    const map = taggingController(world([], {}).deps).watches.nodeclaims;
    assert.ok(map !== undefined);
    const watched = (o: object): Watched => o as Watched;
    assert.deepEqual(map(watched(claim("a")), "update"), ["a"]);
    assert.deepEqual(map(watched({ metadata: { name: "b" } }), "add"), [], "no Node yet");
    const tagged = { metadata: { name: "c", annotations: TAGGED_ANNOTATIONS }, status: { nodeName: NODE } };
    assert.deepEqual(map(watched(tagged), "update"), []);
  });
});
