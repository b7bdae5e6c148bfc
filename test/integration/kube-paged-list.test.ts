/**
 * The operator's informer lists (operator/adapters/kube/paged-list.ts) against the real apiserver: pages, one
 * resourceVersion, managedFields dropped, also from watch events.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CoreV1Api, type KubernetesObject } from "@kubernetes/client-node";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { createTestNamespace } from "../harness/reset.ts";
import { eventually } from "../harness/wait.ts";
import { ResilientInformer } from "../../operator/adapters/kube/informers.ts";
import { pagedList, stripManagedFields } from "../../operator/adapters/kube/paged-list.ts";

interface ConfigMap extends KubernetesObject {
  data?: Record<string, string>;
}

void describe("paged informer lists on the real kube-apiserver", () => {
  let env: TestEnvironment;
  let namespace: string;
  let core: CoreV1Api;
  let informer: ResilientInformer<ConfigMap> | undefined;

  before(async () => {
    env = await useEnvironment({ kwok: false, moto: false });
    namespace = await createTestNamespace(env.kubeConfig, "paged-list");
    core = env.kubeConfig.makeApiClient(CoreV1Api);
    for (let i = 0; i < 5; i++)
      await core.createNamespacedConfigMap({
        namespace,
        body: { metadata: { name: `cm-${i}` }, data: { i: String(i) } },
      });
  });
  after(async () => {
    await informer?.stop();
  });

  void it("reads every page of a list and drops managedFields from each object", async () => {
    const path = `/api/v1/namespaces/${namespace}/configmaps`;
    const raw = await pagedList<ConfigMap>(env.kubeConfig, path, { limit: 2 });
    assert.deepEqual(
      raw.items.map((c) => c.metadata?.name),
      ["cm-0", "cm-1", "cm-2", "cm-3", "cm-4"],
    );
    assert.ok(
      raw.items.every((c) => (c.metadata?.managedFields?.length ?? 0) > 0),
      "the apiserver sends managedFields",
    );
    assert.match(raw.metadata?.resourceVersion ?? "", /^\d+$/);
    const stripped = await pagedList<ConfigMap>(env.kubeConfig, path, { limit: 2, transform: stripManagedFields });
    assert.equal(stripped.items.length, 5);
    assert.ok(stripped.items.every((c) => c.metadata?.managedFields === undefined && c.data?.["i"] !== undefined));
    assert.equal(typeof stripped.items[0]?.metadata?.creationTimestamp, "string", "plain JSON, not client-node models");
    await assert.rejects(
      pagedList(env.kubeConfig, "/api/v1/namespaces/none/nonsense"),
      /listing \/api\/v1\/namespaces\/none\/nonsense.*HTTP 404/,
    );
  });

  void it("applies the transform to watched objects before the cache and handlers see them", async () => {
    const path = `/api/v1/namespaces/${namespace}/configmaps`;
    informer = new ResilientInformer<ConfigMap>({
      kubeConfig: env.kubeConfig,
      path,
      list: () => pagedList(env.kubeConfig, path, { limit: 2, transform: stripManagedFields }),
      transform: stripManagedFields,
    });
    const seen: ConfigMap[] = [];
    informer.on("add", (c) => seen.push(c));
    informer.on("update", (c) => seen.push(c));
    await informer.start();
    assert.equal(informer.list().length, 5);
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "cm-watched" }, data: { i: "w" } } });
    await core.patchNamespacedConfigMap({
      namespace,
      name: "cm-0",
      body: [{ op: "replace", path: "/data/i", value: "changed" }],
    });
    await eventually(
      "the watched add and update",
      () =>
        informer?.get("cm-watched", namespace) !== undefined &&
        informer.get("cm-0", namespace)?.data?.["i"] === "changed",
    );
    assert.ok(seen.length >= 7);
    assert.ok(seen.every((c) => c.metadata?.managedFields === undefined));
    assert.equal(informer.get("cm-watched", namespace)?.metadata?.managedFields, undefined);
    assert.equal(informer.get("cm-0", namespace)?.metadata?.managedFields, undefined);
  });
});
