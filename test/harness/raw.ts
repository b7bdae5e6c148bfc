/**
 * Raw requests to the apiserver. client-node's typed APIs re-serialise bodies through its models
 * and silently drop keys they do not model under their wire names (a CRD schema's `enum`,
 * `x-kubernetes-validations`, `default`), so objects that must reach the apiserver byte for byte go here.
 */
import https from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";

/** An apiserver answer that was not 2xx. `code` matches client-node's ApiException. */
export class RawApiError extends Error {
  readonly code: number;
  readonly body: string;
  constructor(code: number, body: string, what: string) {
    super(`${what}: HTTP ${code}: ${body.slice(0, 500)}`);
    this.code = code;
    this.body = body;
  }
}

/** Sends `body` as JSON (or with `contentType`) and resolves to the parsed response. */
export async function rawRequest(
  kc: KubeConfig,
  options: { method: string; path: string; body?: unknown; contentType?: string },
): Promise<unknown> {
  const server = new URL(kc.getCurrentCluster()?.server ?? "");
  const request: https.RequestOptions = {
    method: options.method,
    hostname: server.hostname,
    port: server.port,
    path: options.path,
    headers: {},
  };
  await kc.applyToHTTPSOptions(request);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  request.headers = {
    ...request.headers,
    accept: "application/json",
    ...(payload === undefined ? {} : { "content-type": options.contentType ?? "application/json" }),
  };
  return new Promise((resolve, reject) => {
    const req = https.request(request, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300) reject(new RawApiError(status, text, `${options.method} ${options.path}`));
        else resolve(text === "" ? undefined : JSON.parse(text));
      });
    });
    req.on("error", reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}
