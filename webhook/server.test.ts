import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import { pino } from "pino";
import { Registry } from "prom-client";
import type { FastifyInstance } from "fastify";
import { buildServer } from "./server.ts";
import { loadEngine, type Engine } from "./engine.ts";
import { createAdmissionMetrics } from "./plugins/metrics.ts";
import { MAX_WARNING_LENGTH } from "./admission/respond.ts";
import { applyPatch } from "../policies/json-patch.ts";
import type { JsonPatchOp } from "../policies/types.ts";

const nodePool = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: "karpenter.sh/v1",
  kind: "NodePool",
  metadata: { name: "default" },
  spec: {
    template: {
      spec: {
        nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
        requirements: [{ key: "kubernetes.io/arch", operator: "In", values: ["amd64"] }],
      },
    },
    limits: { cpu: "100", memory: "400Gi" },
    ...overrides,
  },
});

const review = (request: Record<string, unknown>): Record<string, unknown> => ({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  request: {
    uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
    kind: { group: "karpenter.sh", version: "v1", kind: "NodePool" },
    resource: { group: "karpenter.sh", version: "v1", resource: "nodepools" },
    operation: "CREATE",
    userInfo: { username: "alice" },
    object: nodePool(),
    dryRun: false,
    ...request,
  },
});

interface Answer {
  uid: string;
  allowed: boolean;
  status?: { code: number; message: string };
  warnings?: string[];
  patchType?: string;
  patch?: string;
}

function server(engine: Engine, ready = true): { app: FastifyInstance; registry: Registry } {
  const registry = new Registry();
  const app = buildServer({
    engine,
    metrics: createAdmissionMetrics(registry),
    logger: pino({ level: "silent" }),
    readiness: { certificates: () => ready },
    skipUsernames: new Set(["system:serviceaccount:kube-system:karpenter"]),
  });
  return { app, registry };
}

async function post(
  app: FastifyInstance,
  url: string,
  body: unknown,
): Promise<{ status: number; answer: Answer; raw: string }> {
  const res = await app.inject({ method: "POST", url, payload: body as Record<string, unknown> });
  const parsed = JSON.parse(res.body) as { response: Answer };
  return { status: res.statusCode, answer: parsed.response, raw: res.body };
}

void describe("webhook server", () => {
  let engine: Engine;
  before(async () => {
    engine = await loadEngine();
  });

  void it("allows a valid NodePool and echoes the request uid", async () => {
    const { status, answer } = await post(server(engine).app, "/validate", review({}));
    assert.equal(status, 200);
    assert.equal(answer.uid, "705ab4f5-6393-11e8-b7cc-42010a800002");
    assert.equal(answer.allowed, true);
    assert.equal(answer.status, undefined);
  });

  void it("denies an invalid NodePool with code 403 and a path: message line per violation", async () => {
    const { answer } = await post(
      server(engine).app,
      "/validate/nodepools",
      review({ object: nodePool({ weight: 200 }) }),
    );
    assert.equal(answer.allowed, false);
    assert.equal(answer.status?.code, 403);
    assert.match(answer.status?.message ?? "", /^spec\.weight: .*less than or equal to 100/m);
  });

  void it("allows a NodePool that asks for something kerf's operator ignores, with a warning naming the field", async () => {
    const template = {
      metadata: { annotations: { "karpenter.sh/do-not-repair": "true" } },
      spec: {
        nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
        requirements: [{ key: "kubernetes.io/arch", operator: "In", values: ["amd64"] }],
      },
    };
    const { answer } = await post(server(engine).app, "/validate", review({ object: nodePool({ template }) }));
    assert.equal(answer.allowed, true, answer.status?.message);
    const warning = (answer.warnings ?? []).find((w) => w.includes("karpenter.sh/do-not-repair"));
    assert.match(warning ?? "", /do-not-repair is not implemented by kerf/, JSON.stringify(answer.warnings));
  });

  void it("answers mutate with a base64 JSONPatch of the defaults and a short warning per default", async () => {
    const { answer } = await post(server(engine).app, "/mutate", review({}));
    assert.equal(answer.allowed, true);
    assert.equal(answer.patchType, "JSONPatch");
    const patch = JSON.parse(Buffer.from(answer.patch ?? "", "base64").toString("utf8")) as Array<{
      op: string;
      path: string;
      value?: unknown;
    }>;
    assert.ok(
      patch.some((op) => op.op === "add" && op.path === "/spec/template/spec/expireAfter" && op.value === "720h"),
    );
    assert.ok((answer.warnings ?? []).length > 0);
    for (const warning of answer.warnings ?? []) assert.ok(warning.length <= MAX_WARNING_LENGTH, warning);
  });

  void it("defaults a missing consolidateAfter on mutate, so the mutated object passes validation", async () => {
    const bare = nodePool({ disruption: { consolidationPolicy: "WhenEmpty" } });
    const denied = await post(server(engine).app, "/validate", review({ object: bare }));
    assert.equal(denied.answer.allowed, false);
    assert.match(denied.answer.status?.message ?? "", /^spec\.disruption\.consolidateAfter: Required value/m);
    const { answer } = await post(server(engine).app, "/mutate", review({ object: bare }));
    const patch = JSON.parse(Buffer.from(answer.patch ?? "", "base64").toString("utf8")) as JsonPatchOp[];
    assert.ok(
      patch.some((op) => op.op === "add" && op.path === "/spec/disruption/consolidateAfter" && op.value === "0s"),
    );
    const mutated = applyPatch(bare, patch);
    assert.equal((await post(server(engine).app, "/validate", review({ object: mutated }))).answer.allowed, true);
  });

  void it("does not mutate an object whose defaults are already present", async () => {
    const complete = nodePool({
      disruption: {
        consolidateAfter: "0s",
        consolidationPolicy: "WhenEmptyOrUnderutilized",
        budgets: [{ nodes: "10%" }],
      },
    });
    (
      ((complete.spec as Record<string, unknown>).template as Record<string, unknown>).spec as Record<string, unknown>
    ).expireAfter = "720h";
    const { answer } = await post(server(engine).app, "/mutate", review({ object: complete }));
    assert.equal(answer.allowed, true);
    assert.equal(answer.patch, undefined);
  });

  const skipped: Array<[string, Record<string, unknown>]> = [
    ["Karpenter's own service account", { userInfo: { username: "system:serviceaccount:kube-system:karpenter" } }],
    ["a DELETE", { operation: "DELETE", object: null, oldObject: nodePool({ weight: 200 }) }],
    [
      "a status subresource update",
      { operation: "UPDATE", subResource: "status", oldObject: nodePool({ weight: 200 }) },
    ],
    ["a metadata-only update", { operation: "UPDATE", oldObject: nodePool({ weight: 200 }) }],
    ["a kind kerf has no policies for", { kind: { group: "", version: "v1", kind: "ConfigMap" } }],
  ];
  for (const [what, request] of skipped) {
    void it(`allows ${what} without evaluating it`, async () => {
      const object = request.object === undefined ? { object: nodePool({ weight: 200 }) } : {};
      const { answer } = await post(server(engine).app, "/validate", review({ ...object, ...request }));
      assert.equal(answer.allowed, true);
    });
  }

  void it("evaluates an UPDATE that changes the spec, with oldObject", async () => {
    const { answer } = await post(
      server(engine).app,
      "/validate",
      review({ operation: "UPDATE", object: nodePool({ weight: 200 }), oldObject: nodePool() }),
    );
    assert.equal(answer.allowed, false);
  });

  void it("answers allowed:false with code 500 when the engine throws, and keeps serving", async () => {
    const failing: Engine = {
      ...engine,
      evaluate: () => {
        throw new Error("boom");
      },
    };
    const { app } = server(failing);
    const { status, answer } = await post(app, "/validate", review({}));
    assert.equal(status, 200);
    assert.equal(answer.allowed, false);
    assert.equal(answer.status?.code, 500);
    const health = await app.inject({ method: "GET", url: "/healthz" });
    assert.equal(health.statusCode, 200);
  });

  const malformed: Array<[string, { payload: string; contentType?: string }, number]> = [
    ["a body that is not JSON", { payload: "{not json" }, 400],
    [
      "an envelope without request",
      { payload: JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" }) },
      400,
    ],
    ["a request without uid", { payload: JSON.stringify(review({ uid: undefined })) }, 400],
    ["a request whose uid is a number", { payload: JSON.stringify(review({ uid: 42 })) }, 400],
    ["a request whose uid is an object", { payload: JSON.stringify(review({ uid: { id: "x" } })) }, 400],
    ["a request whose dryRun is a string", { payload: JSON.stringify(review({ dryRun: "true" })) }, 400],
    ["an empty body", { payload: "" }, 400],
    ["a non-JSON content type", { payload: "x", contentType: "text/plain" }, 415],
  ];
  for (const [what, request, expected] of malformed) {
    void it(`answers ${what} with HTTP ${expected}`, async () => {
      const res = await server(engine).app.inject({
        method: "POST",
        url: "/validate",
        payload: request.payload,
        headers: { "content-type": request.contentType ?? "application/json" },
      });
      assert.equal(res.statusCode, expected);
      assert.match((JSON.parse(res.body) as { code: string }).code, /^KERF_ERR_/);
    });
  }

  void it("evaluates an EC2NodeClass whose tag keys are __proto__ and constructor, without touching any prototype", async () => {
    const nodeClass = {
      apiVersion: "karpenter.k8s.aws/v1",
      kind: "EC2NodeClass",
      metadata: { name: "default" },
      spec: {
        role: "r",
        amiSelectorTerms: [{ alias: "al2023@latest" }],
        subnetSelectorTerms: [{ tags: { a: "b" } }],
        securityGroupSelectorTerms: [{ tags: { a: "b" } }],
      },
    };
    const body = JSON.stringify(
      review({ kind: { group: "karpenter.k8s.aws", version: "v1", kind: "EC2NodeClass" }, object: nodeClass }),
    ).replace(
      '"role":"r"',
      '"role":"r","tags":{"__proto__":"x","constructor":"y"},"__proto__":{"role":"evil"},' +
        '"constructor":{"prototype":{"polluted":true}}',
    );
    for (const url of ["/validate", "/mutate"]) {
      const res = await server(engine).app.inject({
        method: "POST",
        url,
        payload: body,
        headers: { "content-type": "application/json" },
      });
      assert.equal(res.statusCode, 200, res.body);
      const answer = (JSON.parse(res.body) as { response: Answer }).response;
      assert.equal(answer.allowed, true, answer.status?.message);
      if (url === "/mutate") {
        const patch = JSON.parse(Buffer.from(answer.patch ?? "", "base64").toString("utf8")) as JsonPatchOp[];
        assert.deepEqual(
          patch.map((op) => op.path),
          ["/spec/metadataOptions"],
        );
      }
    }
    assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
    assert.equal(({} as Record<string, unknown>)["role"], undefined);
  });

  void it("accepts an UPDATE of a 3 MiB object with its 3 MiB old version", async () => {
    const big = "x".repeat(3 * 1024 * 1024 - 1024);
    const object = { ...nodePool(), metadata: { name: "default", annotations: { big } } };
    const { status, answer } = await post(
      server(engine).app,
      "/validate",
      review({ operation: "UPDATE", object, oldObject: object }),
    );
    assert.equal(status, 200);
    assert.equal(answer.allowed, true);
  });

  void it("answers a body over the limit with 400", async () => {
    const payload = JSON.stringify(
      review({ object: { ...nodePool(), metadata: { name: "x", annotations: { big: "x".repeat(8 * 1024 * 1024) } } } }),
    );
    const res = await server(engine).app.inject({
      method: "POST",
      url: "/validate",
      payload,
      headers: { "content-type": "application/json" },
    });
    assert.equal(res.statusCode, 400);
    assert.equal((JSON.parse(res.body) as { code: string }).code, "KERF_ERR_BODY_TOO_LARGE");
  });

  void it("reports readiness from its checks", async () => {
    assert.equal((await server(engine, true).app.inject({ method: "GET", url: "/readyz" })).statusCode, 200);
    const notReady = await server(engine, false).app.inject({ method: "GET", url: "/readyz" });
    assert.equal(notReady.statusCode, 503);
    assert.deepEqual((JSON.parse(notReady.body) as { failing: string[] }).failing, ["certificates"]);
  });

  void it("exposes request counts and latency by kind and verdict on /metrics", async () => {
    const { app } = server(engine);
    await post(app, "/validate", review({ object: nodePool({ weight: 200 }) }));
    await post(app, "/validate", review({}));
    const res = await app.inject({ method: "GET", url: "/metrics" });
    assert.match(
      res.body,
      new RegExp(
        'kerf_admission_requests_total\\{webhook="validate",kind="NodePool",operation="CREATE",' +
          'verdict="denied",dry_run="false"\\} 1',
      ),
    );
    assert.match(
      res.body,
      new RegExp(
        'kerf_admission_requests_total\\{webhook="validate",kind="NodePool",operation="CREATE",' +
          'verdict="allowed",dry_run="false"\\} 1',
      ),
    );
    assert.match(
      res.body,
      /kerf_admission_review_duration_seconds_count\{webhook="validate",kind="NodePool",verdict="denied"\} 1/,
    );
    assert.match(res.body, /kerf_policy_violations_total\{policy="schema",severity="deny"\} 1/);
  });

  void it("answers unknown routes with 404", async () => {
    assert.equal((await server(engine).app.inject({ method: "GET", url: "/nope" })).statusCode, 404);
  });
});
