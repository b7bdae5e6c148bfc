/** Returns the shared apiserver to a clean state between test suites. */
import {
  AdmissionregistrationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type V1ObjectMeta,
} from "@kubernetes/client-node";

/** Label every test namespace and webhook configuration carries, so reset finds them. */
export const testLabel = "kerf.dev/test";

const karpenterKinds = [
  { group: "karpenter.sh", version: "v1", plural: "nodeclaims" },
  { group: "karpenter.sh", version: "v1", plural: "nodepools" },
  { group: "karpenter.k8s.aws", version: "v1", plural: "ec2nodeclasses" },
];

function notFound(error: unknown): boolean {
  return (error as { code?: number }).code === 404;
}

/**
 * Runs `call`, retrying while the apiserver answers 429: right after a CRD is (re)installed its
 * storage re-initializes and lists say "storage is (re)initializing" with Retry-After 1 for a moment.
 */
async function retryingTooManyRequests<T>(call: () => Promise<T>, attempts = 20): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if ((error as { code?: number }).code !== 429 || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

async function clearCustomObjects(kc: KubeConfig): Promise<void> {
  const api = kc.makeApiClient(CustomObjectsApi);
  for (const kind of karpenterKinds) {
    try {
      const list = (await retryingTooManyRequests(() => api.listClusterCustomObject(kind))) as {
        items: { metadata: V1ObjectMeta }[];
      };
      // Finalizers of a stopped operator would keep the objects Terminating forever.
      await Promise.all(
        list.items
          .filter((o) => (o.metadata.finalizers ?? []).length > 0)
          .map((o) =>
            api.patchClusterCustomObject({
              ...kind,
              name: o.metadata.name ?? "",
              body: [{ op: "remove", path: "/metadata/finalizers" }],
            }),
          ),
      );
      await retryingTooManyRequests(() => api.deleteCollectionClusterCustomObject({ ...kind, gracePeriodSeconds: 0 }));
    } catch (error) {
      if (!notFound(error)) throw error;
    }
  }
}

async function clearNodes(core: CoreV1Api): Promise<void> {
  const nodes = await core.listNode();
  await Promise.all(
    nodes.items
      .filter((n) => (n.metadata?.finalizers ?? []).length > 0)
      .map((n) =>
        core.patchNode({ name: n.metadata?.name ?? "", body: [{ op: "remove", path: "/metadata/finalizers" }] }).then(
          () => undefined,
          (error: unknown) => {
            if (!notFound(error)) throw error;
          },
        ),
      ),
  );
  await core.deleteCollectionNode({ gracePeriodSeconds: 0 });
}

/** Deletes test namespaces, Nodes, Karpenter objects and test webhook configurations. */
export async function resetCluster(kc: KubeConfig): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  const admission = kc.makeApiClient(AdmissionregistrationV1Api);
  await admission.deleteCollectionValidatingWebhookConfiguration({ labelSelector: testLabel });
  await admission.deleteCollectionMutatingWebhookConfiguration({ labelSelector: testLabel });
  await clearCustomObjects(kc);
  const namespaces = await core.listNamespace({ labelSelector: testLabel });
  // A namespace already terminating can finish between the list and the delete: gone is what reset wants.
  const ignoreGone = (error: unknown): void => {
    if (!notFound(error)) throw error;
  };
  await Promise.all(
    namespaces.items
      .filter((ns) => ns.metadata?.deletionTimestamp === undefined)
      .map((ns) => core.deleteNamespace({ name: ns.metadata?.name ?? "" }).then(() => undefined, ignoreGone)),
  );
  await clearNodes(core);
}

/** Creates a fresh namespace, labelled for reset. */
export async function createTestNamespace(kc: KubeConfig, prefix: string): Promise<string> {
  const core = kc.makeApiClient(CoreV1Api);
  const ns = await core.createNamespace({
    body: { metadata: { generateName: `${prefix}-`, labels: { [testLabel]: "true" } } },
  });
  return ns.metadata?.name ?? "";
}
