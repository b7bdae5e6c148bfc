/**
 * Validation ratcheting on UPDATE, kerf against a real kube-apiserver (v1.36, where CRDValidationRatcheting is GA):
 * a Widget stored under a loose CRD, the CRD then tightened (a pattern, an enum, a CEL rule on a map, patterns inside
 * the items of a list-type=map and of an atomic list), then updates that leave or touch the now-invalid values. For
 * each, the apiserver's answer to a dry-run update and kerf's (the same strict schema through its structural
 * validation and its CEL engine, with the stored object as the old one) must agree. This is what lets a NodePool
 * stored under an older Karpenter release stay updatable after a CRD upgrade, with the webhook agreeing.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { V1CustomResourceDefinition } from "@kubernetes/client-node";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { installCrds } from "../harness/crds.ts";
import { rawRequest, RawApiError } from "../harness/raw.ts";
import type { KarpenterApi } from "../../policies/api/releases/index.ts";
import type { SchemaNode } from "../../policies/api/schemas/openapi.ts";
import { compiledRules } from "../../policies/cel/rules.ts";
import { validateRules } from "../../policies/cel/validate.ts";
import { validateStructure } from "../../policies/schema.ts";

type Verdict = "allow" | "deny";
type Widget = { metadata: Record<string, unknown>; spec: Record<string, unknown> } & Record<string, unknown>;

const GROUP = "ratchet.kerf.dev";
const CRD_NAME = `widgets.${GROUP}`;
const PATH = `/apis/${GROUP}/v1/widgets`;

function specSchema(strict: boolean): SchemaNode {
  const item = (pattern: boolean): SchemaNode => ({
    type: "string",
    ...(strict && pattern ? { pattern: "^[a-z]+$" } : {}),
  });
  return {
    type: "object",
    properties: {
      name: { type: "string" },
      size: { type: "string", ...(strict ? { pattern: "^[0-9]+$" } : {}) },
      mode: { type: "string", ...(strict ? { enum: ["a", "b"] } : {}) },
      labels: {
        type: "object",
        additionalProperties: { type: "string" },
        ...(strict
          ? { "x-kubernetes-validations": [{ rule: "self.all(k, !k.startsWith('bad'))", message: "no bad keys" }] }
          : {}),
      },
      ports: {
        type: "array",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["port"],
        items: { type: "object", required: ["port"], properties: { port: { type: "integer" }, label: item(true) } },
      },
      steps: {
        type: "array",
        "x-kubernetes-list-type": "atomic",
        items: { type: "object", properties: { run: item(true) } },
      },
    },
  };
}

function schema(strict: boolean): SchemaNode {
  return {
    type: "object",
    properties: {
      apiVersion: { type: "string" },
      kind: { type: "string" },
      metadata: { type: "object" },
      spec: specSchema(strict),
    },
  };
}

function crd(strict: boolean): V1CustomResourceDefinition {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: CRD_NAME },
    spec: {
      group: GROUP,
      scope: "Cluster",
      names: { kind: "Widget", plural: "widgets", singular: "widget", listKind: "WidgetList" },
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: schema(strict) as never } }],
    },
  };
}

/** Valid under the loose CRD; under the strict one every field but name is invalid. */
const STORED_SPEC = {
  name: "w",
  size: "ten",
  mode: "c",
  labels: { "bad-key": "x" },
  ports: [
    { port: 80, label: "HTTP" },
    { port: 443, label: "ok" },
  ],
  steps: [{ run: "GO" }],
};

const UPDATES: { title: string; edit: (spec: Record<string, unknown>) => void; expected?: Verdict }[] = [
  {
    title: "only the valid field changes: every old error is ratcheted",
    edit: (s) => {
      s["name"] = "w2";
    },
    expected: "allow",
  },
  {
    title: "the invalid size changes to another invalid value",
    edit: (s) => {
      s["size"] = "eleven";
    },
    expected: "deny",
  },
  {
    title: "the invalid size is fixed",
    edit: (s) => {
      s["size"] = "11";
    },
    expected: "allow",
  },
  {
    title: "the enum field changes to another value outside it",
    edit: (s) => {
      s["mode"] = "d";
    },
  },
  {
    title: "the labels map gains a valid key (the rule's value changed)",
    edit: (s) => {
      s["labels"] = { "bad-key": "x", good: "y" };
    },
  },
  {
    title: "the list-map items swap places",
    edit: (s) => {
      s["ports"] = [
        { port: 443, label: "ok" },
        { port: 80, label: "HTTP" },
      ];
    },
  },
  {
    title: "a list-map item's other field changes",
    edit: (s) => {
      s["ports"] = [
        { port: 80, label: "HTTP" },
        { port: 443, label: "fine" },
      ];
    },
  },
  {
    title: "the atomic list gains a valid item",
    edit: (s) => {
      s["steps"] = [{ run: "GO" }, { run: "ok" }];
    },
  },
];

async function apiserverVerdict(env: TestEnvironment, object: Widget): Promise<Verdict> {
  try {
    await rawRequest(env.kubeConfig, { method: "PUT", path: `${PATH}/w?dryRun=All`, body: object });
    return "allow";
  } catch (error) {
    if (error instanceof RawApiError && (error.code === 400 || error.code === 422)) return "deny";
    throw error;
  }
}

/** kerf's verdict with the strict schema as the API and the stored object as the old one. */
function kerfVerdict(object: Widget, stored: Widget): { verdict: Verdict; findings: string[] } {
  const strict = schema(true);
  const api: KarpenterApi = {
    version: "ratchet-test",
    source: "cluster",
    schemas: { NodePool: strict, NodeClaim: strict, EC2NodeClass: strict },
  };
  const structural = validateStructure("NodePool", object, api, stored).filter((i) => i.class !== "unknown");
  const compiled = compiledRules(strict);
  const rules = compiled === undefined ? [] : validateRules(compiled, object, stored);
  const findings = [
    ...structural.map((i) => `${i.path}: ${i.message}`),
    ...rules.map((f) => `${f.path}: ${f.message}`),
  ];
  return { verdict: findings.length === 0 ? "allow" : "deny", findings };
}

void describe("validation ratcheting on UPDATE, as a real kube-apiserver ratchets", () => {
  let env: TestEnvironment;
  let stored: Widget;

  before(async () => {
    env = await useEnvironment({ kwok: false, moto: false });
    await installCrds(env.kubeConfig, [crd(false)]);
    stored = (await rawRequest(env.kubeConfig, {
      method: "POST",
      path: PATH,
      body: { apiVersion: `${GROUP}/v1`, kind: "Widget", metadata: { name: "w" }, spec: STORED_SPEC },
    })) as Widget;
    await installCrds(env.kubeConfig, [crd(true)]);
    // The stored Widget is now invalid: a create of the same spec is refused (and the new schema is being served).
    await assert.rejects(
      rawRequest(env.kubeConfig, {
        method: "POST",
        path: `${PATH}?dryRun=All`,
        body: { apiVersion: `${GROUP}/v1`, kind: "Widget", metadata: { name: "w-new" }, spec: STORED_SPEC },
      }),
    );
  });

  after(async () => {
    if (env !== undefined)
      await rawRequest(env.kubeConfig, {
        method: "DELETE",
        path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD_NAME}`,
      }).catch(() => undefined);
  });

  for (const update of UPDATES) {
    void it(`agrees with the apiserver when ${update.title}`, async () => {
      const object = structuredClone(stored);
      update.edit(object.spec);
      const apiserver = await apiserverVerdict(env, object);
      if (update.expected !== undefined) assert.equal(apiserver, update.expected, "the apiserver's own answer");
      const kerf = kerfVerdict(object, stored);
      assert.equal(kerf.verdict, apiserver, `kerf: ${kerf.findings.join("; ") || "no findings"}`);
    });
  }

  void it("denies the stored spec on CREATE, where nothing ratchets", () => {
    const fresh = { ...structuredClone(stored), metadata: { name: "w-new" } };
    assert.equal(kerfVerdict(fresh, undefined as unknown as Widget).verdict, "deny");
  });
});
