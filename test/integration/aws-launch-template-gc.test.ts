import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { DeleteLaunchTemplateCommand, DescribeLaunchTemplatesCommand } from "@aws-sdk/client-ec2";
import type { AwsProviderGraph } from "../../operator/adapters/aws/factory.ts";
import { collectLaunchTemplates, type LaunchTemplateGcDeps } from "../../operator/controllers/gc/launch-templates.ts";
import {
  LAUNCH_TEMPLATE_IN_FLIGHT_GRACE_MS as GRACE,
  LAUNCH_TEMPLATE_TTL_MS as TTL,
} from "../../operator/core/launch-template/garbage-collection.ts";
import type { OperatorEvent } from "../../operator/observability/events.ts";
import { createLogger } from "../../operator/observability/logger.ts";
import { createMetrics } from "../../operator/observability/metrics.ts";
import type { LaunchTemplateCollection } from "../../operator/ports/node-class-cloud.ts";
import { CLUSTER, K8S_VERSION, clients, nodeClaim, nodeClass, seedAl2023Alias, testClock } from "./aws-fixtures.ts";
import { useMotoSuite } from "./aws-moto-suite.ts";

const onDemand = [
  { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large"] },
  { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
];
const spot = [
  { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large"] },
  { key: "karpenter.sh/capacity-type", operator: "In", values: ["spot"] },
];

type Graph = AwsProviderGraph;

interface Seen {
  readonly events: OperatorEvent[];
  readonly logs: { msg: string; [field: string]: unknown }[];
}

void describe("launch-template garbage collection against moto", () => {
  const moto = useMotoSuite({
    faultProxy: true,
    al2023: true,
    zones: ["us-east-1a", "us-east-1b"],
    defaultNodeClass: {},
  });

  /** A new AMI published as the al2023 alias's recommended image (an AMI release). */
  async function release(n: number): Promise<string> {
    const version = `v2027${String(n).padStart(4, "0")}`;
    return seedAl2023Alias(moto.aws(), "x86_64", `amazon-eks-node-al2023-x86_64-standard-${K8S_VERSION}-${version}`);
  }

  /** What the EC2NodeClass status controller does every minute: resolve afresh (refreshing the launch path's cache). */
  async function refresh(graph: Graph): Promise<void> {
    for (const nc of moto.nodeClasses.values()) await graph.resolver.resolve(nc, { fresh: true });
  }

  function gcDeps(graph: Graph, seen: Seen = { events: [], logs: [] }): LaunchTemplateGcDeps {
    const logger = createLogger("info", {
      write: (line: string) => {
        seen.logs.push(JSON.parse(line) as Seen["logs"][number]);
      },
    });
    return {
      nodeClasses: () => [...moto.nodeClasses.values()],
      resolver: graph.resolver,
      cloud: graph.nodeClassCloud,
      logger,
      events: {
        publish: (e) => {
          seen.events.push(e);
        },
      },
      metrics: createMetrics(),
    };
  }

  async function pass(deps: LaunchTemplateGcDeps): Promise<LaunchTemplateCollection> {
    return (await collectLaunchTemplates(deps)).result;
  }

  async function owned(): Promise<string[]> {
    const filter = { Name: "tag:karpenter.k8s.aws/cluster", Values: [CLUSTER] };
    const { ec2 } = clients(moto.aws());
    const out = await ec2.send(new DescribeLaunchTemplatesCommand({ Filters: [filter], MaxResults: 200 }));
    return (out.LaunchTemplates ?? []).map((t) => t.LaunchTemplateName ?? "").sort();
  }

  async function launchBoth(graph: Graph, suffix: string): Promise<void> {
    await graph.cloudProvider.create(nodeClaim(`od-${suffix}`, onDemand));
    await graph.cloudProvider.create(nodeClaim(`spot-${suffix}`, spot));
  }

  void it("should leave only the templates launches used within the grace after ten AMI releases", async (t) => {
    const clock = testClock();
    const graph = moto.providers(moto.aws(), clock);
    const seen: Seen = { events: [], logs: [] };
    const gc = gcDeps(graph, seen);
    const step = 30_000;
    const counts: number[] = [];
    for (let n = 1; n <= 10; n++) {
      await release(n);
      await refresh(graph);
      // Each release launches one on-demand and one spot node: two templates per release.
      await launchBoth(graph, String(n));
      clock.advance(step);
      const result = await pass(gc);
      assert.deepEqual(result.errors, []);
      counts.push((await owned()).length);
    }
    // Releases used 30, 60 and 90 s ago are within the 2-minute grace (a CreateFleet may hold them); older ones go.
    assert.ok(Math.max(...counts) <= 6, `templates after each release: ${counts.join(", ")}`);
    assert.deepEqual(counts.slice(3), [6, 6, 6, 6, 6, 6, 6]);
    t.diagnostic(`templates left after each of ten AMI releases (2 made per release): ${counts.join(", ")}`);

    clock.advance(GRACE);
    await pass(gc);
    assert.equal((await owned()).length, 2, "only the current release's templates stay (within the TTL)");
    clock.advance(TTL);
    await pass(gc);
    assert.deepEqual(await owned(), [], "no launch for the TTL: the cache drains");
    const reasons = seen.logs.filter((l) => l.msg === "deleted launch template").map((l) => l["reason"]);
    assert.deepEqual([...new Set(reasons)].sort(), ["ami-superseded", "idle"]);
    assert.equal(reasons.length, 20, "every template made was deleted exactly once");
    const reported = seen.events
      .filter((e) => e.reason === "LaunchTemplatesDeleted")
      .map((e) => `${e.involved.kind}/${e.involved.name}`);
    assert.ok(reported.length > 0 && reported.every((r) => r === "EC2NodeClass/default"), reported.join(", "));

    await graph.cloudProvider.create(nodeClaim("after-drain", onDemand));
    assert.equal((await owned()).length, 1, "the next launch makes its template again");
  });

  void it("should keep all templates for the grace after a restart, then finish what the killed run left", async () => {
    const clock = testClock();
    const killed = moto.providers(moto.aws(), clock);
    await launchBoth(killed, "a");
    const first = await owned();
    await release(1);
    await refresh(killed);
    await launchBoth(killed, "b");
    clock.advance(10 * 60_000);

    // A new provider graph stands for the restarted operator: no memory of when any template was last used.
    const restarted = moto.providers(moto.aws(), clock);
    const gc = gcDeps(restarted);
    assert.deepEqual((await pass(gc)).deleted, [], "a launch of the previous leader may still use any of them");
    clock.advance(GRACE);
    const collected = await pass(gc);
    const deleted = collected.deleted.map((d) => [d.name, d.reason]).sort();
    assert.deepEqual(
      deleted,
      first.map((name) => [name, "ami-superseded"]),
    );
    assert.equal((await owned()).length, 2);
    const again = await pass(gc);
    assert.deepEqual([again.deleted, again.errors], [[], []], "a second pass finds nothing more to do");
  });

  void it("should tag each template as Karpenter's controller policy requires to create and delete it", async () => {
    moto.nodeClasses.set("default", nodeClass("default", { tags: { team: "platform" } }));
    const graph = moto.providers(moto.aws());
    const ami = await release(1);
    await graph.cloudProvider.create(nodeClaim("tagged", onDemand));
    const filter = { Name: "tag:karpenter.k8s.aws/cluster", Values: [CLUSTER] };
    const out = await clients(moto.aws()).ec2.send(new DescribeLaunchTemplatesCommand({ Filters: [filter] }));
    const tags = Object.fromEntries((out.LaunchTemplates?.[0]?.Tags ?? []).map((tag) => [tag.Key, tag.Value]));
    const { "kerf.dev/security-groups-hash": sgs, "kerf.dev/ec2nodeclass-inputs-hash": inputs, ...rest } = tags;
    assert.match(sgs ?? "", /^\d+$/);
    assert.match(inputs ?? "", /^\d+$/);
    assert.deepEqual(rest, {
      team: "platform",
      "karpenter.k8s.aws/cluster": CLUSTER,
      [`kubernetes.io/cluster/${CLUSTER}`]: "owned",
      "eks:eks-cluster-name": CLUSTER,
      "karpenter.k8s.aws/ec2nodeclass": "default",
      "karpenter.sh/nodepool": "default",
      "kerf.dev/image-id": ami,
    });
  });

  void it("should launch through a template deleted under it by re-creating it", async () => {
    const graph = moto.providers(moto.viaProxy());
    await graph.cloudProvider.create(nodeClaim("first", onDemand));
    const [name] = await owned();
    // The cache still holds the template's id; it goes as a GC pass of another replica would delete it.
    await clients(moto.aws()).ec2.send(new DeleteLaunchTemplateCommand({ LaunchTemplateName: name }));
    moto.proxy.clear();
    const launched = await graph.cloudProvider.create(nodeClaim("second", onDemand));
    assert.match(launched.instanceID, /^i-/);
    const calls = moto.proxy.actions.filter((a) => a === "CreateFleet" || a === "CreateLaunchTemplate");
    assert.deepEqual(calls, ["CreateFleet", "CreateLaunchTemplate", "CreateFleet"]);
    assert.deepEqual(await owned(), [name]);
  });

  void it("should report a failed deletion on the EC2NodeClass and delete the template on the next pass", async () => {
    const clock = testClock();
    const graph = moto.providers(moto.viaProxy(), clock);
    await graph.cloudProvider.create(nodeClaim("old", onDemand));
    const [old] = await owned();
    await release(1);
    await refresh(graph);
    await graph.cloudProvider.create(nodeClaim("new", onDemand));
    clock.advance(GRACE);
    const seen: Seen = { events: [], logs: [] };
    const gc = gcDeps(graph, seen);
    moto.proxy.throttle("DeleteLaunchTemplate", 100, "UnauthorizedOperation");
    const failed = await pass(gc);
    assert.deepEqual(
      failed.errors.map((e) => e.name),
      [old],
    );
    const warning = seen.events.find((e) => e.type === "Warning");
    assert.equal(warning?.reason, "LaunchTemplateDeletionFailed");
    assert.match(warning?.message ?? "", /deleting launch template karpenter\.k8s\.aws\/\d+: UnauthorizedOperation/);
    assert.ok(seen.logs.some((l) => l.msg === "deleting launch template failed"));

    moto.proxy.clear();
    const retried = await pass(gc);
    assert.deepEqual(
      retried.deleted.map((d) => d.name),
      [old],
    );
    assert.equal((await owned()).length, 1);
  });
});
