import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { loadEngine } from "../engine.ts";
import { loadWebhookConfig } from "../config.ts";
import { isKerfError } from "../errors.ts";
import { auditObjects, countViolations } from "./audit.ts";
import { auditEvents, EVENT_REASON } from "./events.ts";

const nodeClass = {
  apiVersion: "karpenter.k8s.aws/v1",
  kind: "EC2NodeClass",
  metadata: { name: "default", uid: "c-1" },
  spec: {
    role: "KarpenterNodeRole-demo",
    amiSelectorTerms: [{ alias: "al2023@latest" }],
    subnetSelectorTerms: [{ tags: { "karpenter.sh/discovery": "demo" } }],
    securityGroupSelectorTerms: [{ tags: { "karpenter.sh/discovery": "demo" } }],
  },
};

function pool(name: string, spec: Record<string, unknown> = {}, nodeClassName = "default"): Record<string, unknown> {
  return {
    apiVersion: "karpenter.sh/v1",
    kind: "NodePool",
    metadata: { name, uid: `uid-${name}`, resourceVersion: "7" },
    spec: {
      template: {
        spec: {
          nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: nodeClassName },
          requirements: [{ key: "karpenter.k8s.aws/instance-category", operator: "In", values: ["c", "m", "r"] }],
        },
      },
      ...spec,
    },
  };
}

void describe("the audit of stored objects", () => {
  void it("counts the objects violating each policy by kind and severity, each object once per policy", async () => {
    const engine = await loadEngine();
    const audited = auditObjects(engine, [
      { kind: "NodePool", object: pool("unlimited-a") },
      { kind: "NodePool", object: pool("unlimited-b") },
      { kind: "NodePool", object: pool("limited", { limits: { cpu: "100", memory: "400Gi" } }) },
      { kind: "NodePool", object: pool("dangling", { limits: { cpu: "100", memory: "400Gi" } }, "gone") },
      { kind: "EC2NodeClass", object: nodeClass },
    ]);
    assert.deepEqual(
      audited.map((a) => [a.name, a.verdict.allowed]),
      [
        ["unlimited-a", false],
        ["unlimited-b", false],
        ["limited", true],
        ["dangling", false],
        ["default", true],
      ],
    );
    const counts = countViolations(audited)
      .map((c) => `${c.policy}/${c.kind}/${c.severity}=${c.objects}`)
      .sort();
    // limits-required finds cpu and memory unset on each unlimited pool: one object each, not two findings.
    assert.deepEqual(counts, ["limits-required/NodePool/deny=2", "nodeclassref-resolves/NodePool/deny=1"]);
  });

  void it("makes one Warning Event per finding on the object, named from its uid and the finding", async () => {
    const engine = await loadEngine();
    const now = new Date("2026-11-27T00:00:00Z");
    const audited = auditObjects(engine, [
      { kind: "NodePool", object: pool("unlimited") },
      { kind: "EC2NodeClass", object: nodeClass },
    ]);
    const events = auditEvents(audited, now);
    assert.ok(events.length >= 1);
    for (const e of events) {
      assert.equal(e.reason, EVENT_REASON);
      assert.equal(e.type, "Warning");
      assert.deepEqual(e.involvedObject, {
        apiVersion: "karpenter.sh/v1",
        kind: "NodePool",
        name: "unlimited",
        uid: "uid-unlimited",
        resourceVersion: "7",
      });
      assert.match(e.message ?? "", /^limits-required \(deny\) spec\.limits/);
      assert.match(e.metadata?.name ?? "", /^unlimited\.kerf-[0-9a-f]{16}$/);
    }
    const again = auditEvents(auditObjects(engine, [{ kind: "NodePool", object: pool("unlimited") }]), new Date());
    assert.deepEqual(
      again.map((e) => e.metadata?.name),
      events.map((e) => e.metadata?.name),
      "the same finding, the same name",
    );
    assert.equal(new Set(events.map((e) => e.metadata?.name)).size, events.length);
  });

  void it("takes its interval from --audit-interval or KERF_AUDIT_INTERVAL, and names the setting when it is bad", () => {
    const base = ["--tls-cert", "c", "--tls-key", "k"];
    // Off unless asked for: the audit needs RBAC (list NodePools and EC2NodeClasses, create
    // Events) a deployment may lack.
    assert.equal(loadWebhookConfig(base, {}).auditIntervalSeconds, 0);
    assert.equal(loadWebhookConfig(base, { KERF_AUDIT_INTERVAL: "300" }).auditIntervalSeconds, 300);
    assert.equal(loadWebhookConfig([...base, "--audit-interval", "60"], {}).auditIntervalSeconds, 60);
    assert.throws(
      () => loadWebhookConfig([...base, "--audit-interval", "5m"], {}),
      (error: unknown) =>
        isKerfError(error) && /--audit-interval \(KERF_AUDIT_INTERVAL\) must be integer/.test(error.message),
    );
  });
});
