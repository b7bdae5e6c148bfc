/**
 * An HTTPS reverse proxy in front of the test kube-apiserver that can make GET /version report another
 * Kubernetes minor version. An EKS upgrade changes exactly that answer, and the test apiserver's own
 * version cannot change under a running test. Everything else passes through unchanged (watches
 * included), made upstream with the admin client certificate: a client of the proxy needs no
 * credentials of its own, and sees the real apiserver in every other respect.
 */
import { readFileSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import { issueServingCertificate, type KeyPair } from "./certs.ts";

/** The running proxy; `url` is https://127.0.0.1:<port>, signed by the environment's CA. */
export class VersionProxy {
  readonly url: string;
  private readonly server: https.Server;
  private readonly ca: string;
  private readonly state: { minor: string | undefined };

  private constructor(server: https.Server, ca: string, state: { minor: string | undefined }) {
    this.server = server;
    this.ca = ca;
    this.state = state;
    this.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** Starts a proxy to the apiserver `admin` (a kubeconfig with a client certificate) talks to. */
  static async start(o: { admin: KubeConfig; ca: KeyPair; dir: string }): Promise<VersionProxy> {
    const serving = await issueServingCertificate(o.ca, o.dir, "version-proxy");
    const target = new URL(o.admin.getCurrentCluster()?.server ?? "");
    const user = o.admin.getCurrentUser();
    const auth = { cert: Buffer.from(user?.certData ?? "", "base64"), key: Buffer.from(user?.keyData ?? "", "base64") };
    const caCert = readFileSync(o.ca.cert);
    const state: { minor: string | undefined } = { minor: undefined };
    const tls = { cert: readFileSync(serving.cert), key: readFileSync(serving.key) };
    const server = https.createServer(tls, (req, res) => {
      const rewrite = req.method === "GET" && (req.url ?? "").split("?")[0] === "/version" && state.minor !== undefined;
      const headers = { ...req.headers, host: target.host };
      // The rewritten answer is read as plain JSON.
      if (rewrite) delete headers["accept-encoding"];
      const request = {
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers,
        ca: caCert,
        ...auth,
      };
      const upstream = https.request(request, (answer) => {
        if (!rewrite) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          // Node holds headers back until the first body chunk; a quiet watch would look unanswered.
          res.flushHeaders();
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on("data", (c: Buffer) => chunks.push(c));
        answer.on("end", () => {
          const version = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, string>;
          const minor = state.minor ?? "";
          const gitVersion = (version["gitVersion"] ?? "").replace(/^v(\d+)\.\d+/, `v$1.${minor}`);
          const body = JSON.stringify({ ...version, minor, gitVersion });
          const type = { "content-type": "application/json", "content-length": Buffer.byteLength(body) };
          res.writeHead(answer.statusCode ?? 200, type);
          res.end(body);
        });
      });
      upstream.on("error", () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      res.on("close", () => upstream.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    return new VersionProxy(server, caCert.toString("base64"), state);
  }

  /** From now on /version reports this minor version ("37"); undefined: the apiserver's own. */
  reportMinor(minor: string | undefined): void {
    this.state.minor = minor;
  }

  /** A kubeconfig for a client of the proxy (the environment's CA, no credentials). */
  kubeConfig(): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: "version-proxy", server: this.url, caData: this.ca, skipTLSVerify: false }],
      users: [{ name: "via-proxy" }],
      contexts: [{ name: "version-proxy", cluster: "version-proxy", user: "via-proxy" }],
      currentContext: "version-proxy",
    });
    return kc;
  }

  /** Stops listening and cuts open connections (watches). */
  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
