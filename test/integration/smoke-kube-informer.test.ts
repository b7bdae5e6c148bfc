import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CustomObjectsApi, type KubernetesObject, type V1CustomResourceDefinition } from "@kubernetes/client-node";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { installCrds } from "../harness/crds.ts";
import { createTestNamespace } from "../harness/reset.ts";
import { eventually } from "../harness/wait.ts";
import { ResilientInformer } from "../../operator/adapters/kube/informers.ts";

const group = "smoke.kerf.dev";
const widgetCrd: V1CustomResourceDefinition = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `widgets.${group}` },
  spec: {
    group,
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: { spec: { type: "object", properties: { size: { type: "integer", minimum: 0 } } } },
          },
        },
      },
    ],
  },
};

interface Widget extends KubernetesObject {
  spec?: { size?: number };
}

describe("the real kube-apiserver", () => {
  let env: TestEnvironment;
  let namespace: string;
  let informer: ResilientInformer<Widget>;
  const seen: string[] = [];

  before(async () => {
    env = await useEnvironment();
    await installCrds(env.kubeConfig, [widgetCrd]);
    namespace = await createTestNamespace(env.kubeConfig, "smoke-informer");
    const api = env.kubeConfig.makeApiClient(CustomObjectsApi);
    informer = new ResilientInformer<Widget>({
      kubeConfig: env.kubeConfig,
      path: `/apis/${group}/v1/namespaces/${namespace}/widgets`,
      list: () => api.listNamespacedCustomObject({ group, version: "v1", namespace, plural: "widgets" }) as never,
    });
    informer.on("add", (w) => seen.push(`add ${w.metadata?.name}`));
    informer.on("update", (w) => seen.push(`update ${w.metadata?.name} ${w.spec?.size}`));
    informer.on("delete", (w) => seen.push(`delete ${w.metadata?.name}`));
    await informer.start();
  });
  after(async () => {
    await informer.stop();
  });

  it("serves a CRD and validates custom objects against its schema", async () => {
    const api = env.kubeConfig.makeApiClient(CustomObjectsApi);
    await assert.rejects(
      api.createNamespacedCustomObject({
        group,
        version: "v1",
        namespace,
        plural: "widgets",
        body: { apiVersion: `${group}/v1`, kind: "Widget", metadata: { name: "bad" }, spec: { size: -1 } },
      }),
      (error: { code?: number }) => error.code === 422,
    );
  });

  it("delivers add, update and delete of custom objects to an informer", async () => {
    const api = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const ref = { group, version: "v1", namespace, plural: "widgets" };
    await api.createNamespacedCustomObject({
      ...ref,
      body: { apiVersion: `${group}/v1`, kind: "Widget", metadata: { name: "w1" }, spec: { size: 1 } },
    });
    await eventually("the add event", () => seen.includes("add w1"));
    assert.equal(informer.get("w1", namespace)?.spec?.size, 1);
    await api.patchNamespacedCustomObject({
      ...ref,
      name: "w1",
      body: [{ op: "replace", path: "/spec/size", value: 2 }],
    });
    await eventually("the update event", () => seen.includes("update w1 2"));
    await api.deleteNamespacedCustomObject({ ...ref, name: "w1" });
    await eventually("the delete event", () => seen.includes("delete w1"));
    assert.equal(informer.get("w1", namespace), undefined);
  });
});
