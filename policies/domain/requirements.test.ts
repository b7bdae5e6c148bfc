import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  checkMinValues,
  Requirement,
  RequirementError,
  Requirements,
  type NodeSelectorRequirement,
} from "./requirements.ts";

const req = (operator: string, values?: string[]): Requirement =>
  Requirement.fromSelector({ key: "k", operator, ...(values ? { values } : {}) });

describe("a single requirement", () => {
  const membership: [string, string[] | undefined, string | undefined, boolean][] = [
    ["In", ["a", "b"], "a", true],
    ["In", ["a"], "c", false],
    ["In", ["a"], undefined, false],
    ["NotIn", ["a"], "a", false],
    ["NotIn", ["a"], "b", true],
    ["NotIn", ["a"], undefined, true],
    ["Exists", undefined, "x", true],
    ["Exists", undefined, undefined, false],
    ["DoesNotExist", undefined, "x", false],
    ["DoesNotExist", undefined, undefined, true],
    ["Gt", ["4"], "5", true],
    ["Gt", ["4"], "4", false],
    ["Gt", ["4"], "abc", false],
    ["Gt", ["4"], undefined, false],
    ["Gte", ["4"], "4", true],
    ["Gte", ["4"], "3", false],
    ["Lt", ["4"], "3", true],
    ["Lt", ["4"], "4", false],
    ["Lte", ["4"], "4", true],
    ["Lte", ["4"], "5", false],
  ];
  for (const [op, values, value, expected] of membership) {
    it(`${expected ? "admits" : "refuses"} ${value ?? "an absent label"} under ${op} ${values?.join(",") ?? ""}`, () => {
      const r = req(op, values);
      assert.equal(value === undefined ? r.allowsAbsent() : r.has(value), expected);
    });
  }
  it("rejects an unknown operator", () => assert.throws(() => req("Near", ["a"]), RequirementError));
  it("rejects a Gt without exactly one integer", () => assert.throws(() => req("Gt", ["a"]), RequirementError));
  it("normalises beta keys", () =>
    assert.equal(
      Requirement.fromSelector({ key: "beta.kubernetes.io/arch", operator: "In", values: ["arm64"] }).key,
      "kubernetes.io/arch",
    ));

  const intersections: [string, Requirement, Requirement, string][] = [
    ["In ∩ In keeps shared values", req("In", ["a", "b"]), req("In", ["b", "c"]), "k In [b]"],
    ["In ∩ NotIn removes excluded values", req("In", ["a", "b"]), req("NotIn", ["a"]), "k In [b]"],
    ["NotIn ∩ NotIn unions the exclusions", req("NotIn", ["a"]), req("NotIn", ["b"]), "k NotIn [a b]"],
    ["Exists ∩ DoesNotExist is empty", req("Exists"), req("DoesNotExist"), "k DoesNotExist"],
    ["Gt ∩ Lt keeps both bounds", req("Gt", ["2"]), req("Lt", ["10"]), "k Gt 2 Lt 10"],
    ["Gt 4 ∩ Lt 5 is empty", req("Gt", ["4"]), req("Lt", ["5"]), "k DoesNotExist"],
    ["In ∩ Gt filters by the bound", req("In", ["1", "8", "x"]), req("Gt", ["4"]), "k In [8] Gt 4"],
  ];
  for (const [name, a, b, expected] of intersections) {
    it(name, () => {
      assert.equal(a.intersect(b).toString(), expected);
      assert.equal(b.intersect(a).toString(), expected);
    });
  }
  it("keeps the larger minValues on intersection", () => {
    const a = Requirement.fromSelector({ key: "k", operator: "Exists", minValues: 3 });
    assert.equal(a.intersect(req("In", ["a", "b", "c", "d"])).minValues, 3);
  });
  it("round-trips Gte as Gt in the Kubernetes shape", () =>
    assert.deepEqual(req("Gte", ["4"]).toSelector(), { key: "k", operator: "Gt", values: ["3"] }));
});

describe("requirement sets", () => {
  const sel = (...r: NodeSelectorRequirement[]): Requirements => Requirements.fromSelectors(r);
  const compat: [string, Requirements, Requirements, string | undefined][] = [
    [
      "matching zones",
      sel({ key: "topology.kubernetes.io/zone", operator: "In", values: ["a", "b"] }),
      sel({ key: "topology.kubernetes.io/zone", operator: "In", values: ["b"] }),
      undefined,
    ],
    [
      "disjoint arch",
      sel({ key: "kubernetes.io/arch", operator: "In", values: ["amd64"] }),
      sel({ key: "kubernetes.io/arch", operator: "In", values: ["arm64"] }),
      "key kubernetes.io/arch, kubernetes.io/arch In [arm64] not in kubernetes.io/arch In [amd64]",
    ],
    [
      "an undefined custom label",
      sel(),
      sel({ key: "team", operator: "In", values: ["a"] }),
      `label "team" does not have known values`,
    ],
    ["an undefined custom label with NotIn", sel(), sel({ key: "team", operator: "NotIn", values: ["a"] }), undefined],
    [
      "an undefined well-known label",
      sel(),
      sel({ key: "kubernetes.io/arch", operator: "In", values: ["arm64"] }),
      undefined,
    ],
    [
      "DoesNotExist against NotIn",
      sel({ key: "team", operator: "NotIn", values: ["x"] }),
      sel({ key: "team", operator: "DoesNotExist" }),
      undefined,
    ],
    [
      "Exists against DoesNotExist",
      sel({ key: "team", operator: "DoesNotExist" }),
      sel({ key: "team", operator: "Exists" }),
      "key team, team Exists not in team DoesNotExist",
    ],
  ];
  for (const [name, node, pod, expected] of compat) {
    it(`answers ${expected === undefined ? "compatible" : "incompatible"} for ${name}`, () =>
      assert.equal(node.compatible(pod), expected));
  }
  it("intersects repeated keys when built", () => {
    const r = sel({ key: "k", operator: "In", values: ["a", "b"] }, { key: "k", operator: "NotIn", values: ["a"] });
    assert.deepEqual([...(r.values("k") ?? [])], ["b"]);
  });
  it("matches label sets and names the failing requirement", () => {
    const r = sel(
      { key: "karpenter.k8s.aws/instance-cpu", operator: "Gt", values: ["4"] },
      { key: "gpu", operator: "DoesNotExist" },
    );
    assert.equal(r.matchLabels({ "karpenter.k8s.aws/instance-cpu": "8" }), undefined);
    assert.match(r.matchLabels({ "karpenter.k8s.aws/instance-cpu": "2" }) ?? "", /instance-cpu=2 does not satisfy/);
    assert.match(
      r.matchLabels(
        new Map([
          ["karpenter.k8s.aws/instance-cpu", "8"],
          ["gpu", "t4"],
        ]),
      ) ?? "",
      /gpu=t4/,
    );
  });
  it("gives equal signatures to equal sets", () => {
    assert.equal(
      sel({ key: "a", operator: "In", values: ["x", "y"] }, { key: "b", operator: "Exists" }).signature(),
      sel({ key: "b", operator: "Exists" }, { key: "a", operator: "In", values: ["y", "x"] }).signature(),
    );
  });
  it("reports the first minValues shortfall over a set of label sets", () => {
    const r = sel({ key: "family", operator: "Exists", minValues: 3 });
    assert.deepEqual(checkMinValues(r, [{ family: "m5" }, { family: "c5" }, { family: "m5" }]), {
      key: "family",
      needed: 3,
      found: 2,
    });
    assert.equal(checkMinValues(r, [{ family: "m5" }, { family: "c5" }, { family: "r5" }]), undefined);
  });
});
