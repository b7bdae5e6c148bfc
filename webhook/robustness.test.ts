/**
 * The webhook over real HTTP against hostile and broken input: malformed envelopes, wrong types, huge and
 * deep bodies, bad UTF-8, wrong content types, all at once. Nothing may answer 5xx; every 200 must be a
 * well-formed AdmissionReview for the request's uid; every 4xx a coded kerf error; /healthz must answer at the end.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { Registry } from "prom-client";
import type { FastifyInstance } from "fastify";
import { buildServer } from "./server.ts";
import { loadEngine } from "./engine.ts";
import { createAdmissionMetrics } from "./plugins/metrics.ts";

interface Sent {
  readonly name: string;
  readonly body: Buffer | string;
  readonly contentType?: string;
  readonly uid?: string;
}
interface Answer {
  readonly status: number;
  readonly body: string;
}

const NODEPOOL = {
  apiVersion: "karpenter.sh/v1",
  kind: "NodePool",
  metadata: { name: "p" },
  spec: {
    template: {
      spec: {
        nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "d" },
        requirements: [{ key: "kubernetes.io/arch", operator: "In", values: ["amd64"] }],
      },
    },
    limits: { cpu: "10", memory: "10Gi" },
  },
};

function review(uid: string, request: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid,
      kind: { group: "karpenter.sh", version: "v1", kind: "NodePool" },
      operation: "CREATE",
      userInfo: { username: "u" },
      object: NODEPOOL,
      ...request,
    },
  };
}

const json = (name: string, value: unknown, uid?: string): Sent => ({
  name,
  body: JSON.stringify(value),
  ...(uid === undefined ? {} : { uid }),
});
/** A review whose object is `object` (a wrong-typed or hostile NodePool): always answered 200 for its uid. */
const withObject = (name: string, object: unknown): Sent =>
  json(name, review(`uid-${name}`, { object }), `uid-${name}`);
/** A review whose object name carries bytes that are not UTF-8. */
function badUtf8(uid: string): Buffer {
  const [head, tail] = JSON.stringify(review(uid)).split('"name":"p"') as [string, string];
  return Buffer.concat([
    Buffer.from(`${head}"name":"p`),
    Buffer.from([0xff, 0xfe, 0xc3, 0x28]),
    Buffer.from(`"${tail}`),
  ]);
}
const nested = (depth: number): string => `${"[".repeat(depth)}${"]".repeat(depth)}`;

const CASES: readonly Sent[] = [
  { name: "not JSON", body: "{not json" },
  { name: "empty body", body: "" },
  { name: "a JSON array", body: "[]" },
  { name: "a JSON string", body: '"AdmissionReview"' },
  { name: "JSON null", body: "null" },
  json("no request", { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" }),
  json("request null", { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: null }),
  json("wrong apiVersion", { ...review("u1"), apiVersion: "admission.k8s.io/v1beta1" }),
  json("uid a number", review("x", { uid: 7 })),
  json("uid an object", review("x", { uid: { a: 1 } })),
  json("uid empty", review("")),
  json("kind a string", review("x", { kind: "NodePool" })),
  json("operation unknown", review("x", { operation: "PATCH" })),
  json("object an array", review("x", { object: [] })),
  json("oldObject a number", review("x", { oldObject: 5, operation: "UPDATE" })),
  json("userInfo a string", review("x", { userInfo: "admin" })),
  json("dryRun a string", review("x", { dryRun: "yes" })),
  withObject("spec a string", { ...NODEPOOL, spec: "x" }),
  withObject("metadata a number", { ...NODEPOOL, metadata: 5 }),
  withObject("requirements an object", {
    ...NODEPOOL,
    spec: { ...NODEPOOL.spec, template: { spec: { nodeClassRef: {}, requirements: { a: 1 } } } },
  }),
  withObject("limits a list", { ...NODEPOOL, spec: { ...NODEPOOL.spec, limits: [1, 2] } }),
  withObject("values numbers", {
    ...NODEPOOL,
    spec: {
      ...NODEPOOL.spec,
      template: { spec: { nodeClassRef: {}, requirements: [{ key: 1, operator: 2, values: [3, null, {}] }] } },
    },
  }),
  withObject("apiVersion missing", { kind: "NodePool", spec: {} }),
  withObject("a huge label value", { ...NODEPOOL, metadata: { name: "p", labels: { a: "x".repeat(1_000_000) } } }),
  withObject("100,000 requirements", {
    ...NODEPOOL,
    spec: {
      ...NODEPOOL.spec,
      template: {
        spec: {
          nodeClassRef: {},
          requirements: Array.from({ length: 100_000 }, () => ({ key: "a", operator: "Exists" })),
        },
      },
    },
  }),
  {
    name: "nested 100,000 deep in an unknown field",
    body: JSON.stringify(review("uid-deep-unknown")).replace('"spec":{', `"spec":{"deep":${nested(100_000)},`),
    uid: "uid-deep-unknown",
  },
  {
    name: "nested 100,000 deep in a label value",
    body: JSON.stringify(review("uid-deep-label")).replace(
      '"name":"p"',
      `"name":"p","labels":{"a":${nested(100_000)}}`,
    ),
    uid: "uid-deep-label",
  },
  {
    name: "a body over the 7 MiB limit",
    body: JSON.stringify(
      review("big", {
        object: { ...NODEPOOL, metadata: { name: "p", annotations: { a: "x".repeat(8 * 1024 * 1024) } } },
      }),
    ),
  },
  { name: "bad UTF-8 in a string", body: badUtf8("uid-utf8"), uid: "uid-utf8" },
  { name: "content type text/plain", body: JSON.stringify(review("u")), contentType: "text/plain" },
  { name: "content type application/xml", body: "<AdmissionReview/>", contentType: "application/xml" },
  { name: "content type form", body: "a=b", contentType: "application/x-www-form-urlencoded" },
  { name: "no content type", body: JSON.stringify(review("u")), contentType: "" },
  {
    name: "JSON with a charset",
    body: JSON.stringify(review("uid-charset")),
    contentType: "application/json; charset=utf-8",
    uid: "uid-charset",
  },
];

function send(port: number, agent: http.Agent, sent: Sent, path = "/validate"): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> =
      sent.contentType === "" ? {} : { "content-type": sent.contentType ?? "application/json" };
    const req = http.request({ host: "127.0.0.1", port, path, method: "POST", agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
    });
    // A server that rejects a huge body early may close the socket while it is still being written.
    req.on("error", (error) =>
      (error as NodeJS.ErrnoException).code === "EPIPE" || (error as NodeJS.ErrnoException).code === "ECONNRESET"
        ? resolve({ status: 400, body: '{"code":"KERF_ERR_BODY_TOO_LARGE"}' })
        : reject(error),
    );
    req.end(sent.body);
  });
}

/** What is wrong with an answer, or undefined when it keeps the contract. */
function problem(sent: Sent, answer: Answer): string | undefined {
  if (answer.status >= 500) return `HTTP ${answer.status}: ${answer.body.slice(0, 200)}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    return `HTTP ${answer.status} with a body that is not JSON: ${answer.body.slice(0, 100)}`;
  }
  if (answer.status !== 200)
    return /^KERF_ERR_/.test(String((parsed as { code?: unknown }).code))
      ? undefined
      : `HTTP ${answer.status} without a kerf error code`;
  const review = parsed as { apiVersion?: unknown; kind?: unknown; response?: { uid?: unknown; allowed?: unknown } };
  if (review.apiVersion !== "admission.k8s.io/v1" || review.kind !== "AdmissionReview")
    return "200 that is not an AdmissionReview";
  if (typeof review.response?.allowed !== "boolean") return "200 without response.allowed";
  if (sent.uid === undefined) return `200 for a request that should have been refused: ${answer.body.slice(0, 120)}`;
  return review.response.uid === sent.uid ? undefined : `200 for uid ${String(review.response.uid)}, sent ${sent.uid}`;
}

void describe("webhook robustness over HTTP", () => {
  let app: FastifyInstance;
  let port = 0;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  before(async () => {
    const engine = await loadEngine({ eager: true });
    app = buildServer({
      engine,
      metrics: createAdmissionMetrics(new Registry()),
      logger: pino({ level: "silent" }),
      readiness: {},
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });
  after(async () => {
    agent.destroy();
    await app.close();
  });

  for (const sent of CASES) {
    void it(`keeps the contract for ${sent.name}`, async () => {
      for (const path of ["/validate", "/mutate"])
        assert.equal(problem(sent, await send(port, agent, sent, path)), undefined, path);
    });
  }

  void it("keeps the contract for every case sent concurrently, 5 times over, and stays healthy", async () => {
    const small = CASES.filter((c) => typeof c.body !== "string" || c.body.length < 1024 * 1024);
    const load = Array.from({ length: 5 }, () => small)
      .flat()
      .concat(Array.from({ length: 200 }, (_, i) => json(`valid ${i}`, review(`uid-valid-${i}`), `uid-valid-${i}`)));
    const answers = await Promise.all(
      load.map(
        async (sent, i) => [sent, await send(port, agent, sent, i % 2 === 0 ? "/validate" : "/mutate")] as const,
      ),
    );
    const problems = answers
      .map(([sent, answer]) => [sent.name, problem(sent, answer)])
      .filter(([, p]) => p !== undefined);
    assert.deepEqual(problems, []);
    const health = await new Promise<number>((resolve) =>
      http.get({ host: "127.0.0.1", port, path: "/healthz", agent }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }),
    );
    assert.equal(health, 200);
  });
});
