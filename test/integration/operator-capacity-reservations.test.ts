/**
 * Capacity reservations through the whole operator (issue 23 item 3) on the real environment: kube-apiserver,
 * kube-scheduler, kwok's kubelet simulation and moto. The operator's AWS endpoint is the fault proxy in front of
 * moto, where test/harness/reservation-bridge.ts serves what moto 5.2.3 cannot: capacity reservations
 * (DescribeCapacityReservations, the reservation a launch template targets, an instance's reservation). A
 * reservation of one m5.large selected by the EC2NodeClass shows in its status; of two pending pods that each need
 * an m5.large, one runs on a node launched into the reservation (labelled `reserved` with the reservation's id)
 * and the other on an on-demand node once the reservation is full.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { startFaultProxy, type FaultProxy } from "../harness/fault-proxy.ts";
import { ReservationBridge } from "../harness/reservation-bridge.ts";
import { createTestNamespace } from "../harness/reset.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { eventually } from "../harness/wait.ts";
import {
  createNodePool,
  createPausePod,
  isReady,
  nodeClaims,
  runOperatorOnCluster,
  type OperatorOnCluster,
} from "./provisioning-fixtures.ts";

const NODECLASSES = { group: "karpenter.k8s.aws", version: "v1", plural: "ec2nodeclasses" } as const;
const RESERVATION = "cr-0aaa1111";

void describe("capacity reservations through the operator", () => {
  let env: TestEnvironment;
  let proxy: FaultProxy;
  let op: OperatorOnCluster | undefined;

  before(async () => {
    env = await useEnvironment({ controlPlane: true, kwok: true, moto: true });
    proxy = await startFaultProxy(env.aws().endpoint);
    const bridge = new ReservationBridge();
    bridge.reservations.push({
      id: RESERVATION,
      instanceType: "m5.large",
      availabilityZone: "us-east-1a",
      totalInstanceCount: 1,
      availableInstanceCount: 1,
      tags: { team: "ml" },
    });
    proxy.bridge = bridge;
    op = await runOperatorOnCluster(env, "reservations", { AWS_ENDPOINT_URL: proxy.url });
  });
  after(async () => {
    await op?.stop();
    await proxy.stop();
  });

  void it("launches into the selected reservation, labels the node reserved, and falls back to on-demand when it is full", async () => {
    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    await custom.patchClusterCustomObject({
      ...NODECLASSES,
      name: "default",
      body: [{ op: "add", path: "/spec/capacityReservationSelectorTerms", value: [{ tags: { team: "ml" } }] }],
    });
    await eventually(
      "the EC2NodeClass's status lists the reservation",
      async () => {
        const nc = (await custom.getClusterCustomObject({ ...NODECLASSES, name: "default" })) as {
          status?: { capacityReservations?: { id: string }[] };
        };
        return nc.status?.capacityReservations?.some((r) => r.id === RESERVATION) === true;
      },
      60_000,
      250,
    );
    await createNodePool(env, "reserved", {
      requirements: [
        { key: "karpenter.sh/capacity-type", operator: "In", values: ["reserved", "on-demand"] },
        { key: "node.kubernetes.io/instance-type", operator: "In", values: ["m5.large"] },
      ],
    });

    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const namespace = await createTestNamespace(env.kubeConfig, "reserved");
    for (const name of ["a", "b"]) {
      await createPausePod(env, namespace, name, {
        requests: { cpu: "1500m" },
        nodeSelector: { "karpenter.sh/nodepool": "reserved" },
      });
    }
    const claims = await eventually(
      "two Ready NodeClaims with both pods Running on them",
      async () => {
        const [all, pods] = await Promise.all([nodeClaims(env), core.listNamespacedPod({ namespace })]);
        const ready = all.filter((c) => c.metadata.labels?.["karpenter.sh/nodepool"] === "reserved" && isReady(c));
        const nodes = new Set(ready.map((c) => c.status?.nodeName ?? ""));
        const running = pods.items.filter((p) => p.status?.phase === "Running" && nodes.has(p.spec?.nodeName ?? ""));
        return ready.length === 2 && running.length === 2 ? ready : undefined;
      },
      120_000,
      250,
    );
    const byType = (type: string): typeof claims =>
      claims.filter((c) => c.metadata.labels?.["karpenter.sh/capacity-type"] === type);
    assert.equal(byType("reserved").length, 1, JSON.stringify(claims.map((c) => c.metadata.labels)));
    assert.equal(byType("on-demand").length, 1, "the second launch fell back to on-demand");
    const reserved = byType("reserved")[0];
    assert.equal(reserved?.metadata.labels?.["karpenter.k8s.aws/capacity-reservation-id"], RESERVATION);
    const node = await core.readNode({ name: reserved?.status?.nodeName ?? "" });
    assert.equal(
      node.metadata?.labels?.["karpenter.sh/capacity-type"],
      "reserved",
      "the Node carries the NodeClaim's labels",
    );
    assert.equal(node.metadata?.labels?.["karpenter.k8s.aws/capacity-reservation-id"], RESERVATION);
    assert.equal(node.metadata?.labels?.["topology.kubernetes.io/zone"], "us-east-1a", "the reservation's zone");
  });
});
