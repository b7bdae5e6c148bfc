/**
 * Rendered manifests applied to the real kube-apiserver as `kubectl apply --server-side` would, and the operator's
 * ServiceAccount from a rendered chart set up for real: its RBAC applied, a token issued by the TokenRequest API and
 * the wait until the authorizer honours it. Shared by the chart test that runs the operator in-process and the
 * release test that runs it in the built image.
 */
import {
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  RbacAuthorizationV1Api,
  type V1APIResourceList,
} from "@kubernetes/client-node";
import { only, type ManifestObject } from "./manifests.ts";
import { rawRequest } from "./raw.ts";
import { eventually } from "./wait.ts";

interface Resource {
  readonly base: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

/** An object's resource from API discovery (so any kind the manifests gain works without a table here). */
async function resourceOf(kc: KubeConfig, obj: ManifestObject): Promise<Resource> {
  const base = obj.apiVersion.includes("/") ? `/apis/${obj.apiVersion}` : `/api/${obj.apiVersion}`;
  const list = (await rawRequest(kc, { method: "GET", path: base })) as V1APIResourceList;
  const resource = list.resources.find((r) => r.kind === obj.kind && !r.name.includes("/"));
  if (resource === undefined) throw new Error(`${obj.apiVersion} serves no ${obj.kind}`);
  return { base, plural: resource.name, namespaced: resource.namespaced };
}

/**
 * Server-side apply; `dryRun` persists nothing. Strict field validation rejects unknown or duplicate fields (SSA
 * answers 500 "field not declared in schema").
 */
export async function apply(kc: KubeConfig, obj: ManifestObject, o: { dryRun: boolean }): Promise<unknown> {
  const r = await resourceOf(kc, obj);
  const collection = `${r.base}/${r.namespaced ? `namespaces/${obj.metadata.namespace ?? ""}/` : ""}${r.plural}`;
  const query = `fieldManager=kerf-test&force=true&fieldValidation=Strict${o.dryRun ? "&dryRun=All" : ""}`;
  return rawRequest(kc, {
    method: "PATCH",
    path: `${collection}/${obj.metadata.name}?${query}`,
    body: obj,
    contentType: "application/apply-patch+yaml",
  });
}

export async function isClusterScoped(kc: KubeConfig, obj: ManifestObject): Promise<boolean> {
  return !(await resourceOf(kc, obj)).namespaced;
}

/** A kubeconfig that authenticates with a bearer token only (no client certificate: no admin rights). */
export function tokenKubeConfig(server: string, caData: string, token: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "test", server, caData, skipTLSVerify: false }],
    users: [{ name: "kerf-operator", token }],
    contexts: [{ name: "test", cluster: "test", user: "kerf-operator" }],
    currentContext: "test",
  });
  return kc;
}

const RBAC_KINDS = new Set(["ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"]);

/** The rendered operator's ServiceAccount, live: what to clean up and the token it authenticates with. */
export interface OperatorAccount {
  readonly token: string;
  /** Cluster-scoped objects, and those in kube-system, which outlive the test's namespace. */
  readonly outliving: readonly ManifestObject[];
}

/**
 * Applies the ServiceAccount, roles and bindings among `objects` (the operator's part of a rendered chart),
 * issues a token for the ServiceAccount and waits until the RBAC authorizer, which learns of new bindings through
 * its informers, lets that token list what the operator lists first.
 */
export async function operatorAccount(
  kc: KubeConfig,
  objects: readonly ManifestObject[],
  namespace: string,
  server: string,
): Promise<OperatorAccount> {
  const outliving: ManifestObject[] = [];
  for (const obj of objects.filter((o) => RBAC_KINDS.has(o.kind))) {
    await apply(kc, obj, { dryRun: false });
    if ((await isClusterScoped(kc, obj)) || obj.metadata.namespace === "kube-system") outliving.push(obj);
  }
  const account = only(objects, "ServiceAccount").metadata.name;
  const core = kc.makeApiClient(CoreV1Api);
  const token =
    (
      await core.createNamespacedServiceAccountToken({
        name: account,
        namespace,
        body: { spec: { audiences: [], expirationSeconds: 3600 } },
      })
    ).status?.token ?? "";
  if (token === "") throw new Error(`issuing a token for ServiceAccount ${account}: the TokenRequest answered none`);
  const direct = tokenKubeConfig(server, kc.getCurrentCluster()?.caData ?? "", token);
  await eventually(
    "the ServiceAccount's bindings to take effect",
    async () => {
      await direct
        .makeApiClient(CustomObjectsApi)
        .listClusterCustomObject({ group: "karpenter.sh", version: "v1", plural: "nodeclaims", limit: 1 });
      await direct.makeApiClient(CoreV1Api).listNode({ limit: 1 });
      // The namespaced Role (the Lease) propagates on its own: a 404 means the read was authorized.
      await direct
        .makeApiClient(CoordinationV1Api)
        .readNamespacedLease({ name: "karpenter-leader-election", namespace })
        .catch((error: unknown) => {
          if ((error as { code?: number }).code !== 404) throw error;
        });
      return true;
    },
    30_000,
    100,
  );
  return { token, outliving };
}

/** Deletes what operatorAccount left outside the test's namespace. */
export async function removeOperatorAccount(kc: KubeConfig, outliving: readonly ManifestObject[]): Promise<void> {
  const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
  for (const obj of outliving) {
    const name = obj.metadata.name;
    const inNamespace = { name, namespace: obj.metadata.namespace ?? "" };
    if (obj.kind === "ClusterRole") await rbac.deleteClusterRole({ name }).catch(() => undefined);
    if (obj.kind === "ClusterRoleBinding") await rbac.deleteClusterRoleBinding({ name }).catch(() => undefined);
    if (obj.kind === "Role") await rbac.deleteNamespacedRole(inNamespace).catch(() => undefined);
    if (obj.kind === "RoleBinding") await rbac.deleteNamespacedRoleBinding(inNamespace).catch(() => undefined);
  }
}
