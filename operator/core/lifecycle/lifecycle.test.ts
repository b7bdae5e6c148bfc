import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Node, NodeClaim } from "./objects.ts";
import { setCondition } from "./objects.ts";
import { registrationSync } from "./registration.ts";
import { initializationBlocker } from "./initialization.ts";
import { livenessDecision } from "./liveness.ts";

const claim: NodeClaim = {
  metadata: {
    name: "default-abc",
    uid: "u1",
    labels: { "karpenter.sh/nodepool": "default", "node.kubernetes.io/instance-type": "m5.large" },
    creationTimestamp: "2030-01-01T00:00:00Z",
  },
  spec: {
    taints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }],
    startupTaints: [{ key: "cni/not-ready", effect: "NoSchedule" }],
    resources: { requests: { cpu: "1", "nvidia.com/gpu": "1" } },
  },
};

const joined: Node = {
  metadata: { name: "ip-10-0-0-1", labels: { "kubernetes.io/hostname": "ip-10-0-0-1" } },
  spec: { providerID: "aws:///us-east-1a/i-1", taints: [{ key: "karpenter.sh/unregistered", effect: "NoExecute" }] },
};

void describe("registration", () => {
  void it("should copy labels, add registered=true, sync taints, and remove the unregistered taint", () => {
    const sync = registrationSync(claim, joined);
    assert.equal(sync.labels["karpenter.sh/registered"], "true");
    assert.equal(sync.labels["node.kubernetes.io/instance-type"], "m5.large");
    assert.equal(sync.labels["kubernetes.io/hostname"], "ip-10-0-0-1");
    assert.deepEqual(
      sync.taints.map((t) => t.key),
      ["dedicated", "cni/not-ready"],
    );
    assert.deepEqual(sync.finalizers, ["karpenter.sh/termination"]);
    assert.deepEqual(
      sync.ownerReferences.map((o) => [o.kind, o.uid]),
      [["NodeClaim", "u1"]],
    );
    assert.equal(sync.unregisteredTaintMissing, false);
    assert.equal(sync.changed, true);
  });

  void it("should report nothing to change on an already synced node and not re-add startup taints", () => {
    const first = registrationSync(claim, joined);
    const synced: Node = {
      metadata: {
        ...joined.metadata,
        labels: first.labels,
        finalizers: first.finalizers,
        ownerReferences: first.ownerReferences,
      },
      spec: { ...joined.spec, taints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }] },
    };
    const again = registrationSync(claim, synced);
    assert.equal(again.changed, false);
    assert.deepEqual(
      again.taints.map((t) => t.key),
      ["dedicated"],
    );
  });

  void it("should flag a node that joined without the unregistered taint", () => {
    assert.equal(
      registrationSync(claim, { ...joined, spec: { providerID: "x", taints: [] } }).unregisteredTaintMissing,
      true,
    );
  });

  void it("should not copy taints when the NodeClaim opts out with do-not-sync-taints", () => {
    const optOut: NodeClaim = {
      ...claim,
      metadata: { ...claim.metadata, labels: { "karpenter.sh/do-not-sync-taints": "true" } },
    };
    assert.deepEqual(registrationSync(optOut, joined).taints, []);
  });
});

void describe("initialization", () => {
  const ready = (taints: Node["spec"], allocatable: Record<string, string>): Node => ({
    metadata: { name: "n" },
    spec: taints,
    status: { conditions: [{ type: "Ready", status: "True" }], allocatable },
  });
  const cases: { name: string; node: Node; blocker: string | undefined }[] = [
    {
      name: "a node that is not Ready",
      node: { status: { conditions: [{ type: "Ready", status: "False" }] } },
      blocker: "node is not ready",
    },
    {
      name: "a node with a startup taint",
      node: ready({ taints: [{ key: "cni/not-ready", effect: "NoSchedule" }] }, { "nvidia.com/gpu": "1" }),
      blocker: 'startup taint "cni/not-ready" still exists',
    },
    {
      name: "a node with the not-ready taint",
      node: ready(
        { taints: [{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }] },
        { "nvidia.com/gpu": "1" },
      ),
      blocker: 'known ephemeral taint "node.kubernetes.io/not-ready" still exists',
    },
    {
      name: "a node without the requested GPU",
      node: ready({ taints: [] }, { "nvidia.com/gpu": "0" }),
      blocker: 'requested resource "nvidia.com/gpu" not registered',
    },
    {
      name: "a Ready node with everything present",
      node: ready({ taints: [] }, { "nvidia.com/gpu": "1" }),
      blocker: undefined,
    },
  ];
  for (const c of cases)
    void it(`should answer ${JSON.stringify(c.blocker)} for ${c.name}`, () =>
      assert.equal(initializationBlocker(claim, c.node), c.blocker));
});

void describe("liveness", () => {
  const created = Date.parse("2030-01-01T00:00:00Z");
  const launched = (at: number): NodeClaim => ({
    ...claim,
    status: { conditions: [{ type: "Launched", status: "True", lastTransitionTime: new Date(at).toISOString() }] },
  });
  const cases: { name: string; nc: NodeClaim; nowMs: number; expect: ReturnType<typeof livenessDecision> }[] = [
    {
      name: "wait out the launch timeout",
      nc: claim,
      nowMs: created + 60_000,
      expect: { action: "wait", requeueAfterMs: 240_000 },
    },
    {
      name: "delete an unlaunched claim after 5 minutes",
      nc: claim,
      nowMs: created + 300_000,
      expect: { action: "delete", reason: "launch_timeout" },
    },
    {
      name: "time registration from the Launched transition",
      nc: launched(created + 120_000),
      nowMs: created + 900_000,
      expect: { action: "wait", requeueAfterMs: 120_000 },
    },
    {
      name: "delete an unregistered claim 15 minutes after launch",
      nc: launched(created),
      nowMs: created + 900_000,
      expect: { action: "delete", reason: "registration_timeout" },
    },
    {
      name: "leave registered claims alone",
      nc: {
        ...claim,
        status: {
          conditions: [
            { type: "Launched", status: "True" },
            { type: "Registered", status: "True" },
          ],
        },
      },
      nowMs: created + 3_600_000,
      expect: { action: "none" },
    },
  ];
  for (const c of cases)
    void it(`should ${c.name}`, () => assert.deepEqual(livenessDecision(c.nc, new Date(c.nowMs)), c.expect));
});

void describe("conditions", () => {
  void it("should keep lastTransitionTime when the status does not change and move it when it does", () => {
    const t0 = new Date("2030-01-01T00:00:00Z");
    const t1 = new Date("2030-01-01T00:05:00Z");
    const first = setCondition(undefined, { type: "Launched", status: "True" }, t0);
    const same = setCondition(first, { type: "Launched", status: "True", reason: "Launched" }, t1);
    assert.equal(same[0]?.lastTransitionTime, "2030-01-01T00:00:00Z");
    const flipped = setCondition(same, { type: "Launched", status: "False" }, t1);
    assert.equal(flipped[0]?.lastTransitionTime, "2030-01-01T00:05:00Z");
    assert.equal(flipped.length, 1);
  });
});
