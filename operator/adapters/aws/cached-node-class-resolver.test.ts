import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { EC2NodeClassLike } from "../../core/launch-template/node-class.ts";
import type { NodeClassFacts, NodeClassResolver } from "../../ports/node-class-resolver.ts";
import { CachedNodeClassResolver } from "./cached-node-class-resolver.ts";

function nodeClass(tag: string): EC2NodeClassLike {
  const terms = [{ tags: { "karpenter.sh/discovery": tag } }];
  return {
    metadata: { name: `nc-${tag}` },
    spec: {
      subnetSelectorTerms: terms,
      securityGroupSelectorTerms: terms,
      amiSelectorTerms: [{ alias: "al2023@latest" }],
    },
  } as unknown as EC2NodeClassLike;
}

const facts: NodeClassFacts = {
  subnets: [{ id: "subnet-1", zone: "us-east-1a", availableIpCount: 10 }],
  securityGroups: [{ id: "sg-1" }],
  amis: [],
  errors: {},
};

/** A resolver that counts its calls and answers with `answer()`. */
function counting(answer: () => Promise<NodeClassFacts> = async () => facts): {
  inner: NodeClassResolver;
  calls: () => number;
} {
  let calls = 0;
  return {
    inner: {
      resolve: () => {
        calls += 1;
        return answer();
      },
    },
    calls: () => calls,
  };
}

void describe("the cached node-class resolver", () => {
  void it("should ask the cloud once per selector set within the TTL and again after it", async () => {
    let now = 0;
    const { inner, calls } = counting();
    const cached = new CachedNodeClassResolver({ inner, now: () => now, ttlMs: 60_000 });
    await cached.resolve(nodeClass("a"));
    now = 59_999;
    await cached.resolve(nodeClass("a"));
    assert.equal(calls(), 1);
    now = 60_000;
    await cached.resolve(nodeClass("a"));
    assert.equal(calls(), 2);
  });

  void it("should share one lookup between concurrent callers", async () => {
    const { inner, calls } = counting();
    const cached = new CachedNodeClassResolver({ inner, now: () => 0 });
    const answers = await Promise.all([
      cached.resolve(nodeClass("a")),
      cached.resolve(nodeClass("a")),
      cached.resolve(nodeClass("a")),
    ]);
    assert.equal(calls(), 1);
    assert.ok(answers.every((a) => a === answers[0]));
  });

  void it("should resolve different selectors separately", async () => {
    const { inner, calls } = counting();
    const cached = new CachedNodeClassResolver({ inner, now: () => 0 });
    await cached.resolve(nodeClass("a"));
    await cached.resolve(nodeClass("b"));
    assert.equal(calls(), 2);
  });

  void it("should bypass and refresh the entry when asked for fresh facts", async () => {
    const { inner, calls } = counting();
    const cached = new CachedNodeClassResolver({ inner, now: () => 0 });
    await cached.resolve(nodeClass("a"));
    await cached.resolve(nodeClass("a"), { fresh: true });
    await cached.resolve(nodeClass("a"));
    assert.equal(calls(), 2);
  });

  void it("should not keep facts in which a lookup failed", async () => {
    const { inner, calls } = counting(async () => ({ ...facts, errors: { subnets: "describing subnets: throttled" } }));
    const cached = new CachedNodeClassResolver({ inner, now: () => 0 });
    await cached.resolve(nodeClass("a"));
    await new Promise((r) => setImmediate(r));
    await cached.resolve(nodeClass("a"));
    assert.equal(calls(), 2);
  });

  void it("should not keep a rejected lookup", async () => {
    let fail = true;
    const { inner, calls } = counting(async () => {
      if (fail) throw new Error("network down");
      return facts;
    });
    const cached = new CachedNodeClassResolver({ inner, now: () => 0 });
    await assert.rejects(cached.resolve(nodeClass("a")), /network down/);
    fail = false;
    assert.equal(await cached.resolve(nodeClass("a")), facts);
    assert.equal(calls(), 2);
  });
});
