/** NodeOverlays over the apiserver: reads from ClusterState's informer, a direct list, status patches. */
import { CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import type { NodeOverlayLike, NodeOverlays } from "../../ports/node-overlays.ts";
import { kubeIgnoreNotFound, mergePatch } from "./client.ts";
import type { ClusterState } from "./cluster-state.ts";

const NODEOVERLAYS = { group: "karpenter.sh", version: "v1alpha1", plural: "nodeoverlays" } as const;

export class KubeNodeOverlays implements NodeOverlays {
  private readonly custom: CustomObjectsApi;
  private readonly state: ClusterState;

  constructor(kubeConfig: KubeConfig, state: ClusterState) {
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.state = state;
  }

  cached(): readonly NodeOverlayLike[] {
    return this.state.nodeOverlays() as readonly NodeOverlayLike[];
  }

  async list(): Promise<readonly NodeOverlayLike[] | undefined> {
    // 404: the CRD is not installed, so there is no overlay to tell about.
    const list = (): Promise<unknown> => this.custom.listClusterCustomObject(NODEOVERLAYS);
    const listed = (await kubeIgnoreNotFound("listing nodeoverlays", list)) as
      { items?: NodeOverlayLike[] } | undefined;
    return listed?.items;
  }

  async patchStatus(overlay: NodeOverlayLike, status: Readonly<Record<string, unknown>>): Promise<void> {
    const name = overlay.metadata?.name ?? "";
    const body = { metadata: { resourceVersion: overlay.metadata?.resourceVersion }, status };
    await kubeIgnoreNotFound(`patching status of nodeoverlay ${name}`, () =>
      this.custom.patchClusterCustomObjectStatus({ ...NODEOVERLAYS, name, body }, mergePatch),
    );
  }
}
