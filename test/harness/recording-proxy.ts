/**
 * An HTTPS reverse proxy in front of the test kube-apiserver that records the status of every
 * answer (watches included: the status line arrives before the stream). Requests keep their own
 * credentials (a bearer token passes through; client certificates do not), so a client pointed at
 * it authenticates as itself. Tests use it to assert what a component did, e.g. that the apiserver
 * never answered 403 to an operator running on a ServiceAccount token.
 */
import { readFileSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { issueServingCertificate, type KeyPair } from "./certs.ts";

/** One answered request. */
export interface RecordedCall {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  readonly query: string;
  readonly status: number;
  /** When the answer's status line arrived (Date.now()). */
  readonly at: number;
}

/** The running proxy; `url` is an https://127.0.0.1:<port> server signed by the environment's CA. */
export class RecordingProxy {
  readonly url: string;
  readonly calls: RecordedCall[];
  private readonly server: https.Server;

  private constructor(server: https.Server, calls: RecordedCall[]) {
    this.server = server;
    this.calls = calls;
    this.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** Starts a proxy to `upstream` (the apiserver URL), with a serving certificate issued by `ca` into `dir`. */
  static async start(o: { upstream: string; ca: KeyPair; dir: string }): Promise<RecordingProxy> {
    const serving = await issueServingCertificate(o.ca, o.dir, "recording-proxy");
    const target = new URL(o.upstream);
    const caCert = readFileSync(o.ca.cert);
    const calls: RecordedCall[] = [];
    const server = https.createServer(
      { cert: readFileSync(serving.cert), key: readFileSync(serving.key) },
      (req, res) => {
        const headers = { ...req.headers, host: target.host };
        const upstream = https.request(
          { hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers, ca: caCert },
          (answer) => {
            const [path = "", query = ""] = (req.url ?? "").split("?");
            calls.push({ method: req.method ?? "", path, query, status: answer.statusCode ?? 0, at: Date.now() });
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            // Node holds headers back until the first body chunk; a quiet watch would then look
            // unanswered to its client (client-node's watch() resolves on the headers).
            res.flushHeaders();
            answer.pipe(res);
          },
        );
        upstream.on("error", () => {
          if (!res.headersSent) res.writeHead(502);
          res.end();
        });
        // A client closing a watch closes the upstream watch too.
        res.on("close", () => upstream.destroy());
        req.pipe(upstream);
      },
    );
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    return new RecordingProxy(server, calls);
  }

  /** Stops listening and cuts open connections (watches). */
  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
