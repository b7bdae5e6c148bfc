/** Readiness probes: small HTTP(S) GETs with short timeouts. */
import http from "node:http";
import https from "node:https";

/** Options of one probe. `ca` trusts a PEM; `insecure` skips verification (self-signed component certs). */
export interface ProbeOptions {
  readonly ca?: string | Buffer;
  readonly insecure?: boolean;
  readonly method?: string;
}

/** Resolves to the status and body of a GET, or rejects on a network error or after 3 s. */
export function get(url: string, options: ProbeOptions = {}): Promise<{ status: number; body: string }> {
  const client = url.startsWith("https:") ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: options.method ?? "GET",
        timeout: 3_000,
        ...(url.startsWith("https:") ? { ca: options.ca, rejectUnauthorized: options.insecure !== true } : {}),
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          body += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on("timeout", () => request.destroy(new Error(`GET ${url}: timed out`)));
    request.on("error", reject);
    request.end();
  });
}

/** A probe that is ready when the URL answers 200. */
export function answers200(url: string, options: ProbeOptions = {}): () => Promise<boolean> {
  return async () => (await get(url, options)).status === 200;
}
