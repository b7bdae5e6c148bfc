import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { NodePoolHash, nodePoolHash, planHashUpdate, type HashedPool, type StampedClaim } from "./hash.ts";

type Obj = Record<string, unknown>;

/** The workshop NodePool with `edit` applied to a deep copy. */
function pool(
  edit: (p: {
    spec: { template: { metadata: Obj; spec: Obj }; disruption: Obj; limits: Obj; weight?: number };
  }) => void = () => undefined,
): HashedPool {
  const p = {
    spec: {
      template: {
        metadata: { labels: { team: "a", tier: "web" }, annotations: { "example.com/owner": "a" } },
        spec: {
          nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
          requirements: [{ key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] }],
          taints: [
            { key: "dedicated", value: "a", effect: "NoSchedule" },
            { key: "gpu", effect: "NoSchedule" },
          ],
          startupTaints: [{ key: "cni-not-ready", effect: "NoSchedule" }],
          expireAfter: "720h",
          terminationGracePeriod: "1h",
        },
      },
      disruption: {
        consolidationPolicy: "WhenEmptyOrUnderutilized",
        consolidateAfter: "0s",
        budgets: [{ nodes: "10%" }],
      },
      limits: { cpu: "100" },
    },
  };
  edit(p);
  return p;
}

const base = nodePoolHash(pool());

void describe("the NodePool hash", () => {
  void it("should be a decimal uint64, the same for equal NodePools", () => {
    assert.match(base, /^\d+$/);
    assert.equal(nodePoolHash(pool()), base);
  });

  const included: { field: string; edit: Parameters<typeof pool>[0] }[] = [
    {
      field: "a template label",
      edit: (p) => {
        p.spec.template.metadata["labels"] = { team: "b", tier: "web" };
      },
    },
    {
      field: "a template annotation",
      edit: (p) => {
        p.spec.template.metadata["annotations"] = {};
      },
    },
    {
      field: "a label whose value becomes empty",
      edit: (p) => {
        p.spec.template.metadata["labels"] = { team: "", tier: "web" };
      },
    },
    {
      field: "a taint's value",
      edit: (p) => {
        p.spec.template.spec["taints"] = [
          { key: "dedicated", value: "b", effect: "NoSchedule" },
          { key: "gpu", effect: "NoSchedule" },
        ];
      },
    },
    {
      field: "the startup taints",
      edit: (p) => {
        delete p.spec.template.spec["startupTaints"];
      },
    },
    {
      field: "the nodeClassRef name",
      edit: (p) => {
        p.spec.template.spec["nodeClassRef"] = { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "other" };
      },
    },
    {
      field: "expireAfter",
      edit: (p) => {
        p.spec.template.spec["expireAfter"] = "24h";
      },
    },
    {
      field: "expireAfter to Never",
      edit: (p) => {
        p.spec.template.spec["expireAfter"] = "Never";
      },
    },
    {
      field: "terminationGracePeriod",
      edit: (p) => {
        p.spec.template.spec["terminationGracePeriod"] = "2h";
      },
    },
    {
      field: "a template field added later",
      edit: (p) => {
        p.spec.template.spec["futureField"] = { enabled: true };
      },
    },
  ];
  for (const c of included)
    void it(`should change when ${c.field} changes`, () => assert.notEqual(nodePoolHash(pool(c.edit)), base));

  const excluded: { field: string; edit: Parameters<typeof pool>[0] }[] = [
    {
      field: "the requirements",
      edit: (p) => {
        p.spec.template.spec["requirements"] = [
          { key: "karpenter.sh/capacity-type", operator: "In", values: ["spot"] },
        ];
      },
    },
    {
      field: "the disruption block",
      edit: (p) => {
        p.spec.disruption = { consolidationPolicy: "WhenEmpty", consolidateAfter: "5m", budgets: [{ nodes: "0" }] };
      },
    },
    {
      field: "the limits",
      edit: (p) => {
        p.spec.limits = { cpu: "1000" };
      },
    },
    {
      field: "the weight",
      edit: (p) => {
        p.spec.weight = 50;
      },
    },
    {
      field: "the spelling of expireAfter",
      edit: (p) => {
        p.spec.template.spec["expireAfter"] = "719h60m";
      },
    },
    {
      field: "the spelling of terminationGracePeriod",
      edit: (p) => {
        p.spec.template.spec["terminationGracePeriod"] = "60m";
      },
    },
    {
      field: "the order of the taints (a set)",
      edit: (p) => {
        p.spec.template.spec["taints"] = [
          { key: "gpu", effect: "NoSchedule" },
          { effect: "NoSchedule", value: "a", key: "dedicated" },
        ];
      },
    },
    {
      field: "the key order of labels and nodeClassRef",
      edit: (p) => {
        p.spec.template.metadata["labels"] = { tier: "web", team: "a" };
        p.spec.template.spec["nodeClassRef"] = { name: "default", kind: "EC2NodeClass", group: "karpenter.k8s.aws" };
      },
    },
    {
      field: "an empty taint value written out",
      edit: (p) => {
        p.spec.template.spec["taints"] = [
          { key: "dedicated", value: "a", effect: "NoSchedule" },
          { key: "gpu", value: "", effect: "NoSchedule" },
        ];
      },
    },
  ];
  for (const c of excluded)
    void it(`should not change when ${c.field} changes`, () => assert.equal(nodePoolHash(pool(c.edit)), base));
});

const stamped = (hash: string, version: string): HashedPool => ({
  ...pool(),
  metadata: { annotations: { other: "x", [NodePoolHash.key]: hash, [NodePoolHash.versionKey]: version } },
});
const claim = (
  name: string,
  annotations: Record<string, string>,
  drifted = false,
): StampedClaim & { name: string } => ({
  name,
  metadata: { annotations },
  ...(drifted ? { status: { conditions: [{ type: "Drifted", status: "True" }] } } : {}),
});

void describe("the nodepool.hash controller's decision", () => {
  void it("should write nothing when the NodePool already carries the current hash and version", () => {
    assert.deepEqual(planHashUpdate(stamped(base, NodePoolHash.version), [claim("a", {})]), { claims: [] });
  });

  void it("should re-hash a NodePool whose template changed without touching its NodeClaims (they drift)", () => {
    const update = planHashUpdate(stamped("123", NodePoolHash.version), [
      claim("a", { [NodePoolHash.key]: "123", [NodePoolHash.versionKey]: NodePoolHash.version }),
    ]);
    assert.deepEqual(update, {
      pool: { [NodePoolHash.key]: base, [NodePoolHash.versionKey]: NodePoolHash.version },
      claims: [],
    });
  });

  void it("should re-stamp NodeClaims of another hash version with the new hash, keeping their other annotations", () => {
    const update = planHashUpdate(stamped("123", "v2"), [
      claim("old", { keep: "me", [NodePoolHash.key]: "123", [NodePoolHash.versionKey]: "v2" }),
      claim("unstamped", {}),
      claim("current", { [NodePoolHash.key]: "9", [NodePoolHash.versionKey]: NodePoolHash.version }),
    ]);
    assert.deepEqual(update.pool, { [NodePoolHash.key]: base, [NodePoolHash.versionKey]: NodePoolHash.version });
    assert.deepEqual(
      update.claims.map((c) => [c.claim.name, c.annotations]),
      [
        ["old", { keep: "me", [NodePoolHash.key]: base, [NodePoolHash.versionKey]: NodePoolHash.version }],
        ["unstamped", { [NodePoolHash.key]: base, [NodePoolHash.versionKey]: NodePoolHash.version }],
      ],
    );
  });

  void it("should re-stamp, not drift, the NodeClaims of a NodePool Karpenter stamped with its hash version v3", () => {
    assert.notEqual(NodePoolHash.version, "v3");
    const update = planHashUpdate(stamped("8392010442519486542", "v3"), [
      claim("karpenters", { [NodePoolHash.key]: "8392010442519486542", [NodePoolHash.versionKey]: "v3" }),
    ]);
    assert.deepEqual(
      update.claims.map((c) => [c.claim.name, c.annotations]),
      [["karpenters", { [NodePoolHash.key]: base, [NodePoolHash.versionKey]: NodePoolHash.version }]],
    );
  });

  void it("should keep the old hash of a NodeClaim that is already Drifted, so it stays drifted", () => {
    const update = planHashUpdate({ ...pool(), metadata: {} }, [
      claim("drifted", { [NodePoolHash.key]: "123", [NodePoolHash.versionKey]: "v2" }, true),
    ]);
    assert.deepEqual(
      update.claims.map((c) => c.annotations),
      [{ [NodePoolHash.key]: "123", [NodePoolHash.versionKey]: NodePoolHash.version }],
    );
  });
});
