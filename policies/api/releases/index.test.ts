import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  BUNDLED_KARPENTER_VERSIONS,
  DEFAULT_KARPENTER_VERSION,
  UnknownKarpenterVersionError,
  bundledKarpenterApi,
  resolveKarpenterVersion,
} from "./index.ts";
import { KarpenterCrdError, karpenterApiFromCrds, schemasFromCrds, versionFromCrds } from "./from-crds.ts";

const semver = (v: string): number[] => v.split(".").map(Number);
const compare = (a: string, b: string): number => {
  const [x, y] = [semver(a), semver(b)];
  return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
};

function crd(
  name: string,
  extra: { annotations?: Record<string, string>; labels?: Record<string, string>; version?: string } = {},
): unknown {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name,
      ...(extra.annotations ? { annotations: extra.annotations } : {}),
      ...(extra.labels ? { labels: extra.labels } : {}),
    },
    spec: {
      versions: [
        {
          name: extra.version ?? "v1",
          schema: {
            openAPIV3Schema: {
              type: "object",
              description: "doc",
              properties: { description: { type: "string", description: "x" } },
            },
          },
        },
      ],
    },
  };
}
const names = ["nodepools.karpenter.sh", "nodeclaims.karpenter.sh", "ec2nodeclasses.karpenter.k8s.aws"];

void describe("bundled Karpenter releases", () => {
  void it("load, each with the v1 schema of NodePool, NodeClaim and EC2NodeClass and its own version", () => {
    for (const version of BUNDLED_KARPENTER_VERSIONS) {
      const api = bundledKarpenterApi(version);
      assert.equal(api.version, version);
      assert.equal(api.source, "bundled");
      assert.deepEqual(Object.keys(api.schemas).sort(), ["EC2NodeClass", "NodeClaim", "NodePool"]);
      for (const schema of Object.values(api.schemas))
        assert.equal(schema.properties?.spec?.type, "object", `${version}`);
    }
  });

  void it("are unique and listed oldest first, from 1.0 to 1.15, with the default among them", () => {
    const sorted = [...BUNDLED_KARPENTER_VERSIONS].sort(compare);
    assert.deepEqual(BUNDLED_KARPENTER_VERSIONS, sorted);
    assert.equal(new Set(BUNDLED_KARPENTER_VERSIONS).size, BUNDLED_KARPENTER_VERSIONS.length);
    assert.ok(BUNDLED_KARPENTER_VERSIONS.includes(DEFAULT_KARPENTER_VERSION));
    assert.equal(BUNDLED_KARPENTER_VERSIONS[0], "1.0.8");
    assert.equal(BUNDLED_KARPENTER_VERSIONS.at(-1), "1.15.1");
  });

  void it("return the default release when no version is given, and the same object each time", () => {
    assert.equal(bundledKarpenterApi().version, DEFAULT_KARPENTER_VERSION);
    assert.equal(bundledKarpenterApi("v1.0.8"), bundledKarpenterApi("1.0.8"));
  });

  const resolutions: [string, string][] = [
    ["1.14.1", "1.14.1"],
    ["v1.14.1", "1.14.1"],
    ["1.14", "1.14.3"],
    ["v1.0", "1.0.8"],
    [" 1.15.1 ", "1.15.1"],
  ];
  for (const [text, version] of resolutions) {
    void it(`resolve ${JSON.stringify(text)} to ${version}`, () =>
      assert.equal(resolveKarpenterVersion(text), version));
  }

  for (const text of ["1.14.2", "1.5", "2", "latest", "", "1.14.1.0"]) {
    void it(`reject ${JSON.stringify(text)} with an error listing the bundled releases`, () => {
      assert.throws(
        () => bundledKarpenterApi(text),
        (error: unknown) => {
          assert.ok(error instanceof UnknownKarpenterVersionError);
          assert.match(
            error.message,
            new RegExp(`not bundled \\(bundled: ${BUNDLED_KARPENTER_VERSIONS.join(", ").replaceAll(".", "\\.")}\\)$`),
          );
          return true;
        },
      );
    });
  }
});

void describe("a Karpenter API from CRDs", () => {
  void it("takes each kind's v1 schema with descriptions dropped (a property named description is kept)", () => {
    const schemas = schemasFromCrds(names.map((n) => crd(n)));
    assert.deepEqual(schemas.NodePool, { type: "object", properties: { description: { type: "string" } } });
  });

  void it("names every missing CRD and every CRD without a v1 schema", () => {
    assert.throws(
      () => schemasFromCrds([crd(names[0]!), crd(names[1]!, { version: "v1beta1" })]),
      (error: unknown) => {
        assert.ok(error instanceof KarpenterCrdError);
        assert.equal(
          error.message,
          "nodeclaims.karpenter.sh has no v1 schema; no CRD ec2nodeclasses.karpenter.k8s.aws",
        );
        return true;
      },
    );
  });

  const versions: [string, unknown[], string | undefined][] = [
    [
      "Karpenter's own CRDs say nothing",
      names.map((n) => crd(n, { annotations: { "controller-gen.kubebuilder.io/version": "v0.18.0" } })),
      undefined,
    ],
    [
      "kerf's generated CRDs name their contract",
      names.map((n) =>
        crd(n, { annotations: { "kerf.dev/generated-from": "policies/api (Karpenter v1.14.1 contract)" } }),
      ),
      "1.14.1",
    ],
    [
      "a chart's version label",
      names.map((n) => crd(n, { labels: { "app.kubernetes.io/version": "v1.9.3" } })),
      "1.9.3",
    ],
  ];
  for (const [title, crds, version] of versions) {
    void it(`reads its version from the CRDs: ${title}`, () => {
      assert.equal(versionFromCrds(crds), version);
      assert.equal(karpenterApiFromCrds(crds).version, version ?? "cluster");
      assert.equal(karpenterApiFromCrds(crds).source, "cluster");
    });
  }
});

/** The same value with every object's keys in reverse order (as an apiserver may return them). */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reversedKeys(v)]),
  );
}

void describe("a cluster's CRDs that say nothing of their release", () => {
  const kinds = { NodePool: names[0]!, NodeClaim: names[1]!, EC2NodeClass: names[2]! } as const;
  const crdsOf = (schemas: Record<string, unknown>): unknown[] =>
    Object.entries(kinds).map(([kind, name]) => ({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name, annotations: { "controller-gen.kubebuilder.io/version": "v0.18.0" } },
      spec: { versions: [{ name: "v1", schema: { openAPIV3Schema: reversedKeys(schemas[kind]) } }] },
    }));

  const cases: [string, string, string][] = [
    ["v1.0.8's schemas in another key order", "1.0.8", "1.0.8"],
    ["v1.15.1's schemas", "1.15.1", "1.15.1"],
    ["v1.14.1's schemas, which v1.14.3 shares: the newest", "1.14.1", "1.14.3"],
  ];
  for (const [title, release, expected] of cases) {
    void it(`are named after the bundled release with exactly their schemas: ${title}`, () => {
      const api = karpenterApiFromCrds(crdsOf(bundledKarpenterApi(release).schemas));
      assert.equal(api.version, expected);
      assert.equal(api.source, "cluster");
    });
  }

  void it("stay unnamed when one rule differs from every bundled release", () => {
    const schemas = structuredClone(bundledKarpenterApi("1.15.1").schemas) as Record<
      string,
      { "x-kubernetes-validations"?: unknown[] }
    >;
    schemas["NodePool"]!["x-kubernetes-validations"] = [{ rule: "true", message: "a local patch" }];
    assert.equal(karpenterApiFromCrds(crdsOf(schemas)).version, "cluster");
  });
});
