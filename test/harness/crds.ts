/** Installs CustomResourceDefinitions into a test apiserver and waits until they are served. */
import { ApiextensionsV1Api, type KubeConfig, type V1CustomResourceDefinition } from "@kubernetes/client-node";
import { eventually } from "./wait.ts";

/** Creates (or replaces) each CRD and resolves when all report Established. */
export async function installCrds(kc: KubeConfig, crds: readonly V1CustomResourceDefinition[]): Promise<void> {
  const api = kc.makeApiClient(ApiextensionsV1Api);
  for (const crd of crds) {
    const name = crd.metadata?.name ?? "";
    try {
      const existing = await api.readCustomResourceDefinition({ name });
      await api.replaceCustomResourceDefinition({ name, body: { ...crd, metadata: { ...crd.metadata, resourceVersion: existing.metadata?.resourceVersion ?? "" } } });
    } catch (error) {
      if ((error as { code?: number }).code !== 404) throw error;
      await api.createCustomResourceDefinition({ body: crd });
    }
  }
  for (const crd of crds) {
    const name = crd.metadata?.name ?? "";
    await eventually(`CRD ${name} Established`, async () => {
      const current = await api.readCustomResourceDefinition({ name });
      return current.status?.conditions?.some((c) => c.type === "Established" && c.status === "True");
    });
  }
}
