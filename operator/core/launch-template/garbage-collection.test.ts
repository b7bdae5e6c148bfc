import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  LAUNCH_TEMPLATE_IN_FLIGHT_GRACE_MS as GRACE,
  LAUNCH_TEMPLATE_TTL_MS as TTL,
  nodeClassInputsHash,
  originOf,
  originTags,
  planTemplateCollection,
  securityGroupsKey,
  type NodeClassNow,
  type OwnedTemplate,
  type TemplateDeletionReason,
} from "./garbage-collection.ts";
import type { EC2NodeClassSpec } from "./node-class.ts";

const spec: EC2NodeClassSpec = {
  amiSelectorTerms: [{ alias: "al2023@latest" }],
  subnetSelectorTerms: [{ tags: { "karpenter.sh/discovery": "demo" } }],
  securityGroupSelectorTerms: [{ tags: { "karpenter.sh/discovery": "demo" } }],
  role: "KarpenterNodeRole-demo",
  kubelet: { maxPods: 58 },
};

const now = 1_000_000_000;
const origin = {
  imageId: "ami-new",
  securityGroups: securityGroupsKey(["sg-1", "sg-2"]),
  nodeClassInputs: nodeClassInputsHash(spec),
};
const current: NodeClassNow = {
  current: {
    imageIds: new Set(["ami-new", "ami-arm"]),
    securityGroups: origin.securityGroups,
    nodeClassInputs: origin.nodeClassInputs,
  },
};
const template = (extra: Partial<OwnedTemplate> = {}): OwnedTemplate => ({
  id: "lt-1",
  name: "karpenter.k8s.aws/1",
  nodeClass: "default",
  origin,
  ...extra,
});

interface Case {
  readonly name: string;
  readonly template?: OwnedTemplate;
  readonly nodeClasses?: ReadonlyMap<string, NodeClassNow> | undefined;
  readonly idleMs: number | undefined;
  readonly outcome: TemplateDeletionReason | "kept" | "retiring";
}

const classes = (nc: NodeClassNow = current): Map<string, NodeClassNow> => new Map([["default", nc]]);

void describe("launch-template garbage-collection decisions", () => {
  const oldAmi = template({ origin: { ...origin, imageId: "ami-old" } });
  const cases: Case[] = [
    { name: "a current template asked for a minute ago", nodeClasses: classes(), idleMs: 60_000, outcome: "kept" },
    { name: "a current template unused for the TTL", nodeClasses: classes(), idleMs: TTL, outcome: "idle" },
    {
      name: "a template of a replaced AMI asked for within the grace (a launch may be in flight)",
      template: oldAmi,
      nodeClasses: classes(),
      idleMs: GRACE - 1,
      outcome: "retiring",
    },
    {
      name: "a template of a replaced AMI no launch asked for within the grace",
      template: oldAmi,
      nodeClasses: classes(),
      idleMs: GRACE,
      outcome: "ami-superseded",
    },
    {
      name: "a template of other security groups",
      template: template({ origin: { ...origin, securityGroups: securityGroupsKey(["sg-1"]) } }),
      nodeClasses: classes(),
      idleMs: GRACE,
      outcome: "security-groups-superseded",
    },
    {
      name: "a template of changed user data or kubelet settings",
      template: template({ origin: { ...origin, nodeClassInputs: "other" } }),
      nodeClasses: classes(),
      idleMs: GRACE,
      outcome: "node-class-changed",
    },
    {
      name: "a template whose EC2NodeClass is gone",
      template: template({ nodeClass: "deleted" }),
      nodeClasses: classes(),
      idleMs: GRACE,
      outcome: "node-class-gone",
    },
    {
      name: "a template of a node class whose AMIs do not resolve now, within the TTL",
      template: oldAmi,
      nodeClasses: classes({}),
      idleMs: GRACE,
      outcome: "kept",
    },
    {
      name: "a template without origin tags (Karpenter's, an older kerf's), within the TTL",
      template: template({ origin: undefined }),
      nodeClasses: classes(),
      idleMs: GRACE,
      outcome: "kept",
    },
    {
      name: "a template without origin tags after the TTL",
      template: template({ origin: undefined }),
      nodeClasses: classes(),
      idleMs: TTL,
      outcome: "idle",
    },
    {
      name: "a template without a node-class tag, within the TTL",
      template: template({ nodeClass: undefined }),
      nodeClasses: classes(),
      idleMs: GRACE,
      outcome: "kept",
    },
    {
      name: "a superseded-looking template when the node classes are not known",
      template: template({ nodeClass: "deleted" }),
      nodeClasses: undefined,
      idleMs: GRACE,
      outcome: "kept",
    },
    {
      name: "a superseded template never seen used (first listed now, after a restart)",
      template: oldAmi,
      nodeClasses: classes(),
      idleMs: undefined,
      outcome: "retiring",
    },
    {
      name: "a superseded template idle past the TTL (reported with its superseded reason)",
      template: oldAmi,
      nodeClasses: classes(),
      idleMs: TTL + 1,
      outcome: "ami-superseded",
    },
  ];
  for (const c of cases) {
    const verb = c.outcome === "kept" || c.outcome === "retiring" ? `keep (${c.outcome})` : `delete (${c.outcome})`;
    void it(`should ${verb} ${c.name}`, () => {
      const t = c.template ?? template();
      const lastUsed = new Map(c.idleMs === undefined ? [] : [[t.name, now - c.idleMs]]);
      const plan = planTemplateCollection({ templates: [t], nodeClasses: c.nodeClasses, lastUsed, now });
      const kept = plan.kept.includes(t.name) ? "kept" : "missing";
      const outcome = plan.delete[0]?.reason ?? (plan.retiring.includes(t.name) ? "retiring" : kept);
      assert.equal(outcome, c.outcome);
    });
  }

  void it("should say when the earliest kept template becomes deletable", () => {
    const old = template({ name: "old", origin: { ...origin, imageId: "ami-old" } });
    const lastUsed = new Map([
      ["karpenter.k8s.aws/1", now - 60_000],
      ["old", now - 30_000],
    ]);
    const plan = planTemplateCollection({ templates: [template(), old], nodeClasses: classes(), lastUsed, now });
    assert.equal(plan.nextDueMs, GRACE - 30_000);
    const none = planTemplateCollection({ templates: [], nodeClasses: classes(), lastUsed: new Map(), now });
    assert.equal(none.nextDueMs, undefined);
  });

  void it("should never give a superseded template more time than the TTL", () => {
    const lastUsed = new Map([[oldAmi.name, now - 10_000]]);
    const plan = planTemplateCollection({
      templates: [oldAmi],
      nodeClasses: classes(),
      lastUsed,
      now,
      ttlMs: 5_000,
      graceMs: 60_000,
    });
    assert.equal(plan.delete[0]?.reason, "ami-superseded");
  });

  void it("should key security groups regardless of their order", () => {
    assert.equal(securityGroupsKey(["sg-2", "sg-1"]), securityGroupsKey(["sg-1", "sg-2"]));
    assert.notEqual(securityGroupsKey(["sg-1"]), securityGroupsKey(["sg-1", "sg-2"]));
  });

  void it("should change the inputs hash with user data, kubelet or devices, not with selectors or tags", () => {
    const base = nodeClassInputsHash(spec);
    assert.notEqual(nodeClassInputsHash({ ...spec, userData: "echo hi" }), base);
    assert.notEqual(nodeClassInputsHash({ ...spec, kubelet: { maxPods: 110 } }), base);
    const bigger = [{ deviceName: "/dev/xvda", ebs: { volumeSize: "40Gi" } }];
    assert.notEqual(nodeClassInputsHash({ ...spec, blockDeviceMappings: bigger }), base);
    const retagged = { ...spec, tags: { team: "a" }, subnetSelectorTerms: [{ id: "subnet-1" }] };
    assert.equal(nodeClassInputsHash(retagged), base);
  });

  void it("should read back the origin it tags and nothing from a template missing a tag", () => {
    const tags = originTags(origin);
    assert.deepEqual(originOf({ ...tags, other: "x" }), origin);
    const partial: Record<string, string> = { ...tags };
    delete partial["kerf.dev/image-id"];
    assert.equal(originOf(partial), undefined);
  });
});
