/** The probe and metrics endpoints: /healthz (alive), /readyz (cluster state synced), /metrics (Prometheus text). */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

/** What the endpoints report. */
export interface ProbeSources {
  readonly ready: () => boolean;
  readonly registry: Registry;
}

/** A listening server; `port` is the bound port (useful with port 0). */
export interface ListeningServer {
  readonly port: number;
  close(): Promise<void>;
}

async function listen(server: Server, port: number): Promise<ListeningServer> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "0.0.0.0", () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Serves /healthz and /readyz on one port and /metrics on another (Karpenter's
 * 8081 / 8080); equal ports share a server.
 */
export async function serveProbes(
  sources: ProbeSources,
  ports: { health: number; metrics: number },
): Promise<ListeningServer[]> {
  const handler = (
    path: string | undefined,
  ): { status: number; body: string; type: string } | Promise<{ status: number; body: string; type: string }> => {
    if (path === "/healthz") return { status: 200, body: "ok", type: "text/plain" };
    if (path === "/readyz")
      return sources.ready()
        ? { status: 200, body: "ok", type: "text/plain" }
        : { status: 503, body: "cluster state not synced", type: "text/plain" };
    if (path === "/metrics")
      return sources.registry.metrics().then((body) => ({ status: 200, body, type: sources.registry.contentType }));
    return { status: 404, body: "not found", type: "text/plain" };
  };
  const make = (): Server =>
    createServer((req, res) => {
      void Promise.resolve(handler(req.url?.split("?")[0])).then((r) => {
        res.writeHead(r.status, { "content-type": r.type });
        res.end(r.body);
      });
    });
  const first = await listen(make(), ports.health);
  if (ports.metrics === ports.health && ports.health !== 0) return [first];
  return [first, await listen(make(), ports.metrics)];
}
