/**
 * The operator in a second region, eu-west-1, on the real environment (kube-apiserver, scheduler, kwok,
 * moto): instance types, offerings and zone IDs come from moto's EC2 answers for that region, prices
 * from the test environment's price proxy in front of moto (moto has no Pricing API and one constant spot
 * price; test/harness/price-bridge.ts serves seeded ones). A second proxy in front of that one lets a test
 * change prices per zone and make AWS fail.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { DescribeAvailabilityZonesCommand, DescribeInstancesCommand, EC2Client } from "@aws-sdk/client-ec2";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { mergePatch } from "../../operator/adapters/kube/client.ts";
import { startFaultProxy, type FaultProxy } from "../harness/fault-proxy.ts";
import { bundledPrices, PriceBridge } from "../harness/price-bridge.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import { CLUSTER } from "./aws-fixtures.ts";
import {
  createInflate,
  createNodePool,
  nodeClaims,
  runOperatorOnCluster,
  runningPods,
  scaleInflate,
  type OperatorOnCluster,
} from "./provisioning-fixtures.ts";

const REGION = "eu-west-1";
const SPOT_M5 = { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large", "c5.large"] };

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

async function nodeClassConditions(env: TestEnvironment): Promise<Condition[]> {
  const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
  const nc = (await custom.getClusterCustomObject({
    group: "karpenter.k8s.aws",
    version: "v1",
    plural: "ec2nodeclasses",
    name: "default",
  })) as { status?: { conditions?: Condition[] } };
  return nc.status?.conditions ?? [];
}

/** An annotation change: the EC2NodeClass status controller reconciles it now rather than at its minute. */
async function touchNodeClass(env: TestEnvironment, value: string): Promise<void> {
  const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
  await custom.patchClusterCustomObject(
    {
      group: "karpenter.k8s.aws",
      version: "v1",
      plural: "ec2nodeclasses",
      name: "default",
      body: { metadata: { annotations: { "kerf.test/touch": value } } },
    },
    mergePatch,
  );
}

async function gaugeValue(
  op: OperatorOnCluster,
  name: "offeringPrice" | "offeringAvailable",
  labels: Record<string, string>,
): Promise<number | undefined> {
  const values = (await op.operator.metrics[name].get()).values;
  return values.find((v) => Object.entries(labels).every(([k, x]) => (v.labels as Record<string, unknown>)[k] === x))
    ?.value;
}

void describe("the operator in eu-west-1: types, zones and prices from AWS", () => {
  let env: TestEnvironment;
  let proxy: FaultProxy;
  let bridge: PriceBridge;
  let op: OperatorOnCluster;
  let namespace: string;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    proxy = await startFaultProxy(env.aws().endpoint);
    bridge = new PriceBridge();
    proxy.bridge = bridge;
    op = await runOperatorOnCluster(
      env,
      "region-test",
      { AWS_ENDPOINT_URL: proxy.url },
      {
        region: REGION,
        catalogRefreshMs: { instanceTypes: 5000, spotPrices: 2000 },
        disruption: { pollMs: 1000, validationDelayMs: 1000 },
      },
    );
    await createNodePool(env, "default", { requirements: [SPOT_M5] });
    namespace = await createInflate(env, 0);
  });
  after(async () => {
    await op.stop();
    await proxy.stop();
  });

  void it("launches in the region's zones with the zone ID EC2 names, and says where its offerings and prices came from", async () => {
    await scaleInflate(env, namespace, 2);
    await eventually(
      "2 inflate pods Running",
      async () => ((await runningPods(env, namespace)).length === 2 ? true : undefined),
      90_000,
      250,
    );
    const claims = await nodeClaims(env);
    const ec2 = new EC2Client({ ...env.aws(), region: REGION });
    const zoneIds = new Map(
      ((await ec2.send(new DescribeAvailabilityZonesCommand({}))).AvailabilityZones ?? []).map((z) => [
        z.ZoneName,
        z.ZoneId,
      ]),
    );
    for (const c of claims) {
      const labels = c.metadata.labels ?? {};
      assert.equal(labels["topology.kubernetes.io/region"], REGION);
      assert.ok(
        ["eu-west-1a", "eu-west-1b"].includes(labels["topology.kubernetes.io/zone"] ?? ""),
        labels["topology.kubernetes.io/zone"],
      );
      assert.equal(labels["topology.k8s.aws/zone-id"], zoneIds.get(labels["topology.kubernetes.io/zone"]));
    }
    const nodes = (await env.kubeConfig.makeApiClient(CoreV1Api).listNode()).items.filter((n) =>
      claims.some((c) => c.status?.nodeName === n.metadata?.name),
    );
    assert.ok(nodes.length > 0);
    for (const n of nodes) {
      const labels = n.metadata?.labels ?? {};
      assert.equal(labels["topology.k8s.aws/zone-id"], zoneIds.get(labels["topology.kubernetes.io/zone"]));
    }
    const reservations =
      (
        await ec2.send(
          new DescribeInstancesCommand({
            Filters: [{ Name: `tag:kubernetes.io/cluster/${CLUSTER}`, Values: ["owned"] }],
          }),
        )
      ).Reservations ?? [];
    assert.equal(
      reservations.flatMap((r) => r.Instances ?? []).filter((i) => i.State?.Name === "running").length,
      claims.length,
    );
    const fresh = await eventually(
      "the EC2NodeClass says its catalog is fresh",
      async () => (await nodeClassConditions(env)).find((c) => c.type === "CatalogFresh" && c.status === "True"),
      30_000,
      250,
    );
    assert.match(
      fresh.message,
      new RegExp(
        "^eu-west-1: instance types and offerings: EC2 at .*spot prices: " +
          "EC2 spot price history at .*on-demand prices: the Pricing API at ",
      ),
    );
  });

  void it("prices each spot offering at its own zone's price, and follows a price change at the next refresh", async () => {
    const base = bundledPrices();
    const perZone = (a: number, b: number) => () => ({
      onDemand: base.onDemand,
      spot: new Map(
        [...base.spot].map(([t, p]) => [
          t,
          t === "m5.large"
            ? new Map([
                ["eu-west-1a", a],
                ["eu-west-1b", b],
              ])
            : p,
        ]),
      ),
    });
    bridge.setTable(perZone(0.031, 0.029));
    const m5 = (zone: string) => ({ instance_type: "m5.large", capacity_type: "spot", zone });
    await eventually(
      "the offering gauges show each zone's spot price",
      async () =>
        ((await gaugeValue(op, "offeringPrice", m5("eu-west-1a"))) === 0.031 &&
          (await gaugeValue(op, "offeringPrice", m5("eu-west-1b"))) === 0.029) ||
        undefined,
      90_000,
      250,
    );
    bridge.setTable(perZone(0.05, 0.06));
    await eventually(
      "the new prices after the next refresh",
      async () =>
        ((await gaugeValue(op, "offeringPrice", m5("eu-west-1a"))) === 0.05 &&
          (await gaugeValue(op, "offeringPrice", m5("eu-west-1b"))) === 0.06) ||
        undefined,
      90_000,
      250,
    );
  });

  void it("keeps the last good answer when a refresh fails, and tells the EC2NodeClass", async () => {
    proxy.throttle("DescribeInstanceTypes", 1_000_000);
    const errors = async (): Promise<number> =>
      (await op.operator.metrics.catalogRefreshErrors.get()).values.find((v) => v.labels["part"] === "instanceTypes")
        ?.value ?? 0;
    await eventually(
      "a failed instance-type refresh counted",
      async () => ((await errors()) >= 1 ? true : undefined),
      90_000,
      250,
    );
    // The status controller looks again every minute; a metadata change makes it look now.
    await touchNodeClass(env, "failed");
    const failed = await eventually(
      "CatalogFresh False with the failure",
      async () => (await nodeClassConditions(env)).find((c) => c.type === "CatalogFresh" && c.status === "False"),
      90_000,
      250,
    );
    assert.equal(failed.reason, "RefreshFailed");
    assert.match(
      failed.message,
      /last refresh failed at .*describing instance types, offerings and zones: .*RequestLimitExceeded/,
    );
    const events = await eventually(
      "an InstanceTypeRefreshFailed Event on the EC2NodeClass",
      async () => {
        const list = (
          await env.kubeConfig
            .makeApiClient(CoreV1Api)
            .listEventForAllNamespaces({ fieldSelector: "reason=InstanceTypeRefreshFailed" })
        ).items;
        return list.some((e) => e.involvedObject.kind === "EC2NodeClass" && e.involvedObject.name === "default")
          ? list
          : undefined;
      },
      30_000,
      250,
    );
    assert.match(events[0]?.message ?? "", /using the last good answer/);
    // Provisioning goes on from the last answer.
    await scaleInflate(env, namespace, 4);
    await eventually(
      "4 inflate pods Running",
      async () => ((await runningPods(env, namespace)).length === 4 ? true : undefined),
      90_000,
      250,
    );
    proxy.throttle("DescribeInstanceTypes", 0);
    const failures = await errors();
    await eventually(
      "an instance-type refresh after the failures",
      async () => {
        const f = (await op.operator.metrics.catalogRefreshed.get()).values.find(
          (v) => v.labels["part"] === "instanceTypes",
        );
        return f !== undefined && f.value * 1000 > Date.now() - 10_000 && (await errors()) === failures
          ? true
          : undefined;
      },
      90_000,
      250,
    );
    await touchNodeClass(env, "recovered");
    await eventually(
      "CatalogFresh True again once EC2 answers",
      async () => (await nodeClassConditions(env)).find((c) => c.type === "CatalogFresh" && c.status === "True"),
      90_000,
      250,
    );
  });

  void it("consolidates and drifts there: a scale-down removes nodes, a template label replaces the node in the region", async () => {
    await scaleInflate(env, namespace, 12);
    await eventually(
      "12 inflate pods Running",
      async () => ((await runningPods(env, namespace)).length === 12 ? true : undefined),
      90_000,
      250,
    );
    const before = await nodeClaims(env);
    assert.ok(before.length >= 2, `12 pods of 1Gi need two m5.large or c5.large nodes, got ${before.length}`);
    await scaleInflate(env, namespace, 1);
    await eventually(
      "consolidation down to one NodeClaim",
      async () => {
        const claims = await nodeClaims(env);
        return claims.length === 1 && claims.every((c) => c.metadata.deletionTimestamp === undefined)
          ? claims
          : undefined;
      },
      120_000,
      250,
    );
    const [kept] = await nodeClaims(env);
    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    await custom.patchClusterCustomObject(
      {
        group: "karpenter.sh",
        version: "v1",
        plural: "nodepools",
        name: "default",
        body: { spec: { template: { metadata: { labels: { team: "eu" } } } } },
      },
      mergePatch,
    );
    const replaced = await eventually(
      "the drifted NodeClaim replaced by one with the new label",
      async () => {
        const claims = await nodeClaims(env);
        const running = await runningPods(env, namespace);
        return claims.length === 1 &&
          claims[0]?.metadata.name !== kept?.metadata.name &&
          claims[0]?.metadata.labels?.["team"] === "eu" &&
          running.length === 1
          ? claims[0]
          : undefined;
      },
      120_000,
      250,
    );
    assert.equal(replaced.metadata.labels?.["topology.kubernetes.io/region"], REGION);
  });
});
