import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { NodeClassNow } from "../../core/launch-template/garbage-collection.ts";
import type { EC2NodeClassLike } from "../../core/launch-template/node-class.ts";
import type { OperatorEvent } from "../../observability/events.ts";
import { createMetrics } from "../../observability/metrics.ts";
import type { LaunchTemplateCollection } from "../../ports/node-class-cloud.ts";
import type { NodeClassFacts } from "../../ports/node-class-resolver.ts";
import { LAUNCH_TEMPLATE_GC_PERIOD_MS, collectLaunchTemplates, nodeClassNow } from "./launch-templates.ts";

const nodeClass: EC2NodeClassLike = {
  metadata: { name: "default", uid: "u-1" },
  spec: {
    amiSelectorTerms: [{ alias: "al2023@latest" }],
    subnetSelectorTerms: [],
    securityGroupSelectorTerms: [],
    role: "NodeRole",
  },
};

const facts = (extra: Partial<NodeClassFacts> = {}): NodeClassFacts => ({
  subnets: [{ id: "subnet-1", zone: "us-east-1a", availableIpCount: 100 }],
  securityGroups: [{ id: "sg-1" }],
  amis: [{ id: "ami-1", deprecated: false, requirements: [] }],
  errors: {},
  ...extra,
});

function run(answer: LaunchTemplateCollection, resolved: NodeClassFacts = facts()) {
  const events: OperatorEvent[] = [];
  const logs: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
  const asked: ReadonlyMap<string, NodeClassNow>[] = [];
  const metrics = createMetrics();
  const log =
    (level: string) =>
    (fields: Record<string, unknown>, msg: string): void => {
      logs.push({ level, fields, msg });
    };
  const pass = collectLaunchTemplates({
    nodeClasses: () => [nodeClass],
    resolver: { resolve: async () => resolved },
    cloud: {
      collectLaunchTemplates: async (nodeClasses) => {
        asked.push(nodeClasses);
        return answer;
      },
    },
    logger: { info: log("info"), warn: log("warn") } as never,
    events: {
      publish: (e) => {
        events.push(e);
      },
    },
    metrics,
  });
  return { pass, events, logs, asked, metrics };
}

const deletion = {
  id: "lt-1",
  name: "karpenter.k8s.aws/1",
  nodeClass: "default",
  reason: "ami-superseded" as const,
  idleMs: 121_000,
};
const nothing: LaunchTemplateCollection = { deleted: [], retiring: [], kept: [], errors: [] };

void describe("launch-template garbage collection pass", () => {
  void it("should log, count and report on the EC2NodeClass each template it deletes", async () => {
    const answer = { ...nothing, deleted: [deletion], retiring: ["lt/retiring"], kept: ["lt/current"] };
    const { pass, events, logs, metrics } = run(answer);
    await pass;
    assert.deepEqual(
      logs.map((l) => [l.level, l.msg, l.fields["reason"], l.fields["idleSeconds"]]),
      [["info", "deleted launch template", "ami-superseded", 121]],
    );
    assert.deepEqual(
      events.map((e) => [e.involved.kind, e.involved.name, e.type, e.reason, e.message]),
      [
        [
          "EC2NodeClass",
          "default",
          "Normal",
          "LaunchTemplatesDeleted",
          "Deleted launch templates karpenter.k8s.aws/1 (ami-superseded: 1)",
        ],
      ],
    );
    const text = await metrics.registry.metrics();
    assert.match(text, /kerf_launch_templates_deleted_total\{reason="ami-superseded"\} 1/);
    assert.match(text, /kerf_launch_templates\{state="current"\} 1/);
    assert.match(text, /kerf_launch_templates\{state="retiring"\} 1/);
  });

  void it("should warn with a Warning Event when a deletion fails and count the template as still there", async () => {
    const message = "deleting launch template karpenter.k8s.aws/1: UnauthorizedOperation: denied";
    const errors = [{ name: "karpenter.k8s.aws/1", nodeClass: "default", message }];
    const { pass, events, logs, metrics } = run({ ...nothing, errors });
    await pass;
    assert.deepEqual(
      logs.map((l) => [l.level, l.msg]),
      [["warn", "deleting launch template failed"]],
    );
    assert.deepEqual(
      events.map((e) => [e.type, e.reason, e.message]),
      [["Warning", "LaunchTemplateDeletionFailed", `${message}; retried next pass`]],
    );
    assert.match(await metrics.registry.metrics(), /kerf_launch_templates\{state="retiring"\} 1/);
  });

  void it("should look again when the next template falls due, between 5 s and the period", async () => {
    const base = nothing;
    assert.equal((await run({ ...base, nextDueMs: 5_000 }).pass).requeueAfter, 6_000);
    assert.equal((await run({ ...base, nextDueMs: 0 }).pass).requeueAfter, 5_000);
    assert.equal((await run({ ...base, nextDueMs: 10 * 60_000 }).pass).requeueAfter, LAUNCH_TEMPLATE_GC_PERIOD_MS);
    assert.equal((await run(base).pass).requeueAfter, LAUNCH_TEMPLATE_GC_PERIOD_MS);
  });

  void it("should pass what each node class resolves to now, nothing current when its AMIs fail", async () => {
    const ok = run(nothing);
    await ok.pass;
    assert.deepEqual([...(ok.asked[0]?.get("default")?.current?.imageIds ?? [])], ["ami-1"]);
    const failing = run(nothing, facts({ errors: { amis: "resolving AMIs: throttled" } }));
    await failing.pass;
    assert.deepEqual(failing.asked[0]?.get("default"), {});
    assert.deepEqual(nodeClassNow(nodeClass, facts({ securityGroups: [] })), {});
  });
});
