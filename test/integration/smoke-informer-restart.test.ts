import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CoreV1Api, KubeConfig, type V1ConfigMap } from "@kubernetes/client-node";
import { startEnvironment, type Environment } from "../harness/environment.ts";
import { eventually } from "../harness/wait.ts";
import { ResilientInformer } from "../../operator/adapters/kube/informers.ts";

// This suite restarts kube-apiserver, so it runs its own etcd + apiserver instead of the shared one.
describe("an informer across a kube-apiserver restart", () => {
  let env: Environment;
  let informer: ResilientInformer<V1ConfigMap>;
  let core: CoreV1Api;
  const errors: unknown[] = [];

  before(async () => {
    env = await startEnvironment({});
    const kc = new KubeConfig();
    kc.loadFromFile(env.state.kubeconfig);
    core = kc.makeApiClient(CoreV1Api);
    informer = new ResilientInformer<V1ConfigMap>({
      kubeConfig: kc,
      path: "/api/v1/namespaces/default/configmaps",
      list: () => core.listNamespacedConfigMap({ namespace: "default" }),
      backoff: { initialMs: 200, maxMs: 2_000 },
      onError: (error) => errors.push(error),
    });
    await informer.start();
  });
  after(async () => {
    await informer?.stop();
    await env?.stop();
  });

  it("resumes watching and delivers objects created while the apiserver was down", async () => {
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "before" } } });
    await eventually("the first object in the cache", () => informer.get("before", "default"));
    await env.restartApiserver();
    // Created after the restart: the informer only sees it if it reconnected.
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "after" } } });
    await eventually("the object created after the restart", () => informer.get("after", "default"), 60_000);
    assert.ok(informer.get("before", "default"), "the cache keeps objects from before the restart");
    assert.ok(informer.synced);
  });
});
