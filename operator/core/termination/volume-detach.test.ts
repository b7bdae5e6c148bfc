import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  blockingAttachments,
  claimsOfUndrainablePods,
  isUndrainable,
  volumeDetachDecision,
  type PodWithVolumes,
  type VolumeAttachmentLike,
} from "./volume-detach.ts";

const NOW = Date.parse("2030-01-01T00:10:00Z");

const va = (name: string, volume: string | undefined, nodeName = "n1"): VolumeAttachmentLike => ({
  metadata: { name },
  spec: { nodeName, source: volume === undefined ? {} : { persistentVolumeName: volume } },
});

interface PodOpts {
  tolerateAll?: boolean;
  mirror?: boolean;
  deletedAgoMs?: number;
  phase?: string;
  claim?: string;
  ephemeral?: string;
}
function pod(name: string, o: PodOpts = {}): PodWithVolumes {
  return {
    metadata: {
      name,
      namespace: "db",
      ...(o.mirror === true ? { annotations: { "kubernetes.io/config.mirror": "x" } } : {}),
      ...(o.deletedAgoMs === undefined ? {} : { deletionTimestamp: new Date(NOW - o.deletedAgoMs).toISOString() }),
    },
    spec: {
      nodeName: "n1",
      tolerations: o.tolerateAll === true ? [{ operator: "Exists" }] : [],
      volumes: [
        ...(o.claim === undefined ? [] : [{ name: "data", persistentVolumeClaim: { claimName: o.claim } }]),
        ...(o.ephemeral === undefined ? [] : [{ name: o.ephemeral, ephemeral: { volumeClaimTemplate: {} } }]),
        { name: "config" },
      ],
    },
    status: { phase: o.phase ?? "Running" },
  };
}

void describe("which pods the drain leaves on the node", () => {
  const cases: { name: string; opts: PodOpts; undrainable: boolean }[] = [
    { name: "a workload pod", opts: {}, undrainable: false },
    { name: "a pod tolerating karpenter.sh/disrupted", opts: { tolerateAll: true }, undrainable: true },
    { name: "a mirror pod", opts: { mirror: true }, undrainable: true },
    { name: "a pod terminating for 30 s", opts: { deletedAgoMs: 30_000 }, undrainable: false },
    { name: "a pod stuck terminating for over a minute", opts: { deletedAgoMs: 61_000 }, undrainable: true },
    { name: "a succeeded pod", opts: { phase: "Succeeded" }, undrainable: false },
  ];
  for (const c of cases)
    void it(`should call ${c.name} ${c.undrainable ? "undrainable" : "drainable"}`, () =>
      assert.equal(isUndrainable(pod("p", c.opts), NOW), c.undrainable));

  void it("should name the claims of undrainable pods only, ephemeral volumes as <pod>-<volume>", () => {
    const pods = [
      pod("web", { claim: "web-data" }),
      pod("agent", { tolerateAll: true, claim: "agent-data" }),
      pod("cache", { mirror: true, ephemeral: "scratch" }),
    ];
    assert.deepEqual(claimsOfUndrainablePods(pods, NOW), [
      { namespace: "db", name: "agent-data" },
      { namespace: "db", name: "cache-scratch" },
    ]);
  });
});

void describe("the VolumeAttachments termination waits for", () => {
  void it("should wait for the node's attachments of PersistentVolumes, except the undrainable pods' volumes", () => {
    const attachments = [
      va("csi-a", "pv-a"),
      va("csi-b", "pv-b"),
      va("csi-inline", undefined),
      va("csi-elsewhere", "pv-c", "n2"),
    ];
    assert.deepEqual(
      blockingAttachments(attachments, "n1", new Set(["pv-b"])).map((a) => a.metadata?.name),
      ["csi-a"],
    );
  });

  const deadline = NOW + 5_000;
  const cases: {
    name: string;
    blocking: VolumeAttachmentLike[];
    deadline?: number;
    proceed: boolean;
    status: string;
    reason: string;
    retryInMs?: number;
  }[] = [
    { name: "go on when nothing is attached", blocking: [], proceed: true, status: "True", reason: "VolumesDetached" },
    {
      name: "wait while an attachment is left and there is no deadline",
      blocking: [va("csi-a", "pv-a")],
      proceed: false,
      status: "Unknown",
      reason: "AwaitingVolumeDetachment",
      retryInMs: 1000,
    },
    {
      name: "wait, looking again no later than the deadline",
      blocking: [va("csi-a", "pv-a")],
      deadline: NOW + 300,
      proceed: false,
      status: "Unknown",
      reason: "AwaitingVolumeDetachment",
      retryInMs: 300,
    },
    {
      name: "stop waiting once the terminationGracePeriod deadline has passed",
      blocking: [va("csi-a", "pv-a")],
      deadline: NOW,
      proceed: true,
      status: "False",
      reason: "TerminationGracePeriodElapsed",
    },
    {
      name: "go on before the deadline when nothing is attached",
      blocking: [],
      deadline,
      proceed: true,
      status: "True",
      reason: "VolumesDetached",
    },
  ];
  for (const c of cases) {
    void it(`should ${c.name}`, () => {
      const d = volumeDetachDecision(c.blocking, NOW, c.deadline);
      assert.deepEqual(
        [d.proceed, d.condition.status, d.condition.reason, d.retryInMs],
        [c.proceed, c.status, c.reason, c.retryInMs],
      );
    });
  }

  void it("should name the attachments it waits for in the condition message", () => {
    assert.equal(
      volumeDetachDecision([va("csi-a", "pv-a"), va("csi-b", "pv-b")], NOW, undefined).condition.message,
      "Awaiting deletion of VolumeAttachments: csi-a, csi-b",
    );
  });
});
