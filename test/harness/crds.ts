/** Installs CustomResourceDefinitions into a test apiserver and waits until they are served. */
import { ApiextensionsV1Api, type KubeConfig, type V1CustomResourceDefinition } from "@kubernetes/client-node";
import { serverSideApply } from "./raw.ts";
import { eventually } from "./wait.ts";

/**
 * Applies each CRD exactly as given (server-side apply: created or replaced) and resolves when the
 * apiserver serves the new schema: Established, and the stored spec equals what was applied.
 */
export async function installCrds(kc: KubeConfig, crds: readonly V1CustomResourceDefinition[]): Promise<void> {
  const api = kc.makeApiClient(ApiextensionsV1Api);
  for (const crd of crds) {
    const name = crd.metadata?.name ?? "";
    const applied = (await serverSideApply(kc, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`, crd)) as V1CustomResourceDefinition;
    const generation = applied.metadata?.generation ?? 0;
    await eventually(`CRD ${name} Established at generation ${generation}`, async () => {
      const current = await api.readCustomResourceDefinition({ name });
      const established = current.status?.conditions?.some((c) => c.type === "Established" && c.status === "True" && (c.observedGeneration ?? generation) >= generation);
      return established === true;
    });
  }
}
