/**
 * The operator's KubeConfig (operator/adapters/kube/shared-connections.ts) against the real
 * kube-apiserver, seen through a TCP relay that counts connections: API calls and watches share one
 * connection, a pool past its age is replaced for new requests, and client-node's own KubeConfig —
 * what the operator used before — opens a connection per call.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { CoreV1Api, KubeConfig, Watch } from "@kubernetes/client-node";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { createTestNamespace } from "../harness/reset.ts";
import { eventually } from "../harness/wait.ts";
import { sharingConnections } from "../../operator/adapters/kube/shared-connections.ts";

/** A TCP relay to the apiserver that counts the connections made through it. */
interface Relay {
  readonly url: string;
  readonly connections: () => number;
  readonly open: () => number;
  close(): Promise<void>;
}

async function relayTo(server: string): Promise<Relay> {
  const target = new URL(server);
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const relay = net.createServer((client) => {
    connections += 1;
    sockets.add(client);
    const upstream = net.connect(Number(target.port), target.hostname);
    client.pipe(upstream).pipe(client);
    const drop = (): void => {
      sockets.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on("close", drop).on("error", drop);
    upstream.on("close", drop).on("error", drop);
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  const { port } = relay.address() as net.AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    connections: () => connections,
    open: () => sockets.size,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => relay.close(resolve));
    },
  };
}

/** `kc` with its current cluster's server pointed at `url` (the apiserver's certificate names 127.0.0.1). */
function through(kc: KubeConfig, url: string): KubeConfig {
  const copy = new KubeConfig();
  copy.loadFromString(kc.exportConfig());
  const cluster = copy.getCurrentCluster();
  assert.ok(cluster !== null);
  copy.clusters = copy.clusters.map((c) => (c.name === cluster.name ? { ...c, server: url } : c));
  return copy;
}

void describe("the operator's Kubernetes connections on the real kube-apiserver", () => {
  let env: TestEnvironment;
  let namespace: string;
  let relay: Relay;

  before(async () => {
    env = await useEnvironment({ kwok: false, moto: false });
    namespace = await createTestNamespace(env.kubeConfig, "shared-connections");
    relay = await relayTo(env.kubeConfig.getCurrentCluster()?.server ?? "");
  });
  after(async () => {
    await relay.close();
  });

  void it("should send sequential calls, concurrent calls and a watch over one connection", async () => {
    const kc = sharingConnections(through(env.kubeConfig, relay.url));
    const before = relay.connections();
    const core = kc.makeApiClient(CoreV1Api);
    const seen: string[] = [];
    const watch = await new Watch(kc).watch(
      `/api/v1/namespaces/${namespace}/configmaps`,
      {},
      (_phase, obj: { metadata?: { name?: string } }) => {
        seen.push(obj.metadata?.name ?? "");
      },
      () => undefined,
    );
    for (let i = 0; i < 10; i++)
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: `seq-${i}` } } });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        core.createNamespacedConfigMap({ namespace, body: { metadata: { name: `par-${i}` } } }),
      ),
    );
    await eventually("the watch to see all 30 ConfigMaps", () => seen.length >= 30, 10_000, 50);
    watch.abort();
    assert.equal(relay.connections() - before, 1, "one connection for 30 writes and a watch");
    await kc.closeConnections();
    await eventually("the pool's connection to close", () => relay.open() === 0, 10_000, 50);
  });

  void it("should move new calls to a new connection once the pool is older than its maximum age", async () => {
    let now = 0;
    const kc = sharingConnections(through(env.kubeConfig, relay.url), { maxAgeMs: 1_000, now: () => now });
    const core = kc.makeApiClient(CoreV1Api);
    const before = relay.connections();
    await core.listNamespacedConfigMap({ namespace });
    await core.listNamespacedConfigMap({ namespace });
    assert.equal(relay.connections() - before, 1);
    now = 1_000;
    await core.listNamespacedConfigMap({ namespace });
    await core.listNamespacedConfigMap({ namespace });
    assert.equal(relay.connections() - before, 2, "the renewed pool opened one connection");
    await eventually("the replaced pool to close its idle connection", () => relay.open() === 1, 10_000, 50);
    await kc.closeConnections();
  });

  void it("should show why: client-node's own KubeConfig opens a connection per call", async () => {
    const kc = through(env.kubeConfig, relay.url);
    const core = kc.makeApiClient(CoreV1Api);
    const before = relay.connections();
    for (let i = 0; i < 5; i++) await core.listNamespacedConfigMap({ namespace });
    // If a client-node release pools connections itself, this fails and shared-connections.ts can go.
    assert.equal(relay.connections() - before, 5);
  });
});
