/** Installs CustomResourceDefinitions into a test apiserver and waits until they are served. */
import { ApiextensionsV1Api, type KubeConfig, type V1CustomResourceDefinition } from "@kubernetes/client-node";
import { rawRequest, RawApiError } from "./raw.ts";
import { eventually } from "./wait.ts";

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

/**
 * Stores each CRD exactly as given: created, or replaced (PUT) when it exists. Not a server-side apply, which
 * keeps fields other managers own (a `helm install` of the CRD chart leaves its annotations behind, and a
 * test installing Karpenter's own CRDs after it would still see kerf's `kerf.dev/generated-from`). Raw
 * requests: client-node's models drop schema keys such as `x-kubernetes-validations` (raw.ts).
 * Resolves when the apiserver serves the new schema: Established at the stored generation.
 */
export async function installCrds(kc: KubeConfig, crds: readonly V1CustomResourceDefinition[]): Promise<void> {
  const api = kc.makeApiClient(ApiextensionsV1Api);
  for (const crd of crds) {
    const name = crd.metadata?.name ?? "";
    const generation = await store(kc, crd);
    await eventually(`CRD ${name} Established at generation ${generation}`, async () => {
      const current = await api.readCustomResourceDefinition({ name });
      const established = current.status?.conditions?.some(
        (c) => c.type === "Established" && c.status === "True" && (c.observedGeneration ?? generation) >= generation,
      );
      return established === true;
    });
  }
}

const codeOf = (error: unknown): number | undefined => (error instanceof RawApiError ? error.code : undefined);

/** Creates or replaces the CRD; answers the stored generation. */
async function store(kc: KubeConfig, crd: V1CustomResourceDefinition): Promise<number> {
  const name = crd.metadata?.name ?? "";
  for (;;) {
    const existing = (await rawRequest(kc, { method: "GET", path: `${CRDS}/${name}` }).catch((error: unknown) => {
      if (codeOf(error) === 404) return undefined;
      throw error;
    })) as V1CustomResourceDefinition | undefined;
    try {
      const stored = (
        existing === undefined
          ? await rawRequest(kc, { method: "POST", path: CRDS, body: crd })
          : await rawRequest(kc, {
              method: "PUT",
              path: `${CRDS}/${name}`,
              body: { ...crd, metadata: { ...crd.metadata, resourceVersion: existing.metadata?.resourceVersion } },
            })
      ) as V1CustomResourceDefinition;
      return stored.metadata?.generation ?? 0;
    } catch (error) {
      if (codeOf(error) !== 409) throw error; // created or changed meanwhile: read again
    }
  }
}
