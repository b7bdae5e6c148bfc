/**
 * Informer lists that keep the operator's memory proportional to what it caches: the apiserver is
 * read in pages of plain JSON (no client-node model instances, no single response holding every
 * object), and each object passes through a transform — dropping metadata.managedFields, which
 * the operator never reads and which is often the largest part of a Pod or Node — before the next
 * page is fetched.
 */
import https from "node:https";
import type { KubeConfig, KubernetesListObject, KubernetesObject } from "@kubernetes/client-node";
import { KubeApiError } from "./client.ts";
import { withoutKeys } from "./object-shape.ts";

/** Objects per list page (client-go's reflector pages at 500 too). */
export const PAGE_SIZE = 500;

/**
 * Drops metadata.managedFields in place — the object keeps its identity, its metadata is rebuilt without the
 * field (object-shape.ts) — and returns the object (as controller-runtime's TransformStripManagedFields).
 */
export function stripManagedFields<T extends KubernetesObject>(obj: T): T {
  if (obj.metadata !== undefined) obj.metadata = withoutKeys(obj.metadata, ["managedFields"]);
  return obj;
}

function reasonOf(body: string): string {
  try {
    const status = JSON.parse(body) as { message?: string; reason?: string };
    return status.message ?? status.reason ?? "";
  } catch {
    return body.slice(0, 200);
  }
}

/** A list page as the apiserver sends it (wire names: `continue`, not client-node's `_continue`). */
interface RawPage {
  readonly items: unknown[];
  readonly metadata?: { readonly resourceVersion?: string; readonly continue?: string };
}

async function getJson(kc: KubeConfig, path: string): Promise<RawPage> {
  const server = new URL(kc.getCurrentCluster()?.server ?? "");
  const options: https.RequestOptions = {
    method: "GET",
    hostname: server.hostname,
    port: server.port,
    path: `${server.pathname.replace(/\/$/, "")}${path}`,
    headers: {},
  };
  await kc.applyToHTTPSOptions(options);
  options.headers = { ...options.headers, accept: "application/json" };
  return new Promise((resolve, reject) => {
    const req = https.request(options, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300) reject(new KubeApiError(`listing ${path}`, status, reasonOf(text)));
        else {
          try {
            resolve(JSON.parse(text) as RawPage);
          } catch (error) {
            reject(new Error(`listing ${path}: ${(error as Error).message}`, { cause: error }));
          }
        }
      });
      res.on("error", reject);
    });
    req.on("error", (error) => reject(new Error(`listing ${path}: ${error.message}`, { cause: error })));
    req.end();
  });
}

/** Lists every object at `path` page by page, transforming each; one list with the snapshot's resourceVersion. */
export async function pagedList<T extends KubernetesObject>(
  kc: KubeConfig,
  path: string,
  o: { transform?: (obj: T) => T; labelSelector?: string; limit?: number } = {},
): Promise<KubernetesListObject<T>> {
  const items: T[] = [];
  let resourceVersion = "";
  let token = "";
  do {
    const query = new URLSearchParams({ limit: String(o.limit ?? PAGE_SIZE) });
    if (token !== "") query.set("continue", token);
    if (o.labelSelector !== undefined) query.set("labelSelector", o.labelSelector);
    const page = await getJson(kc, `${path}?${query.toString()}`);
    for (const item of page.items as T[]) items.push(o.transform === undefined ? item : o.transform(item));
    resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
    token = page.metadata?.continue ?? "";
  } while (token !== "");
  return { apiVersion: "v1", kind: "List", metadata: { resourceVersion }, items };
}
