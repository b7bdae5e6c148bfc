import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { SchemaNode } from "./api/schemas/openapi.ts";
import { ratchetedAt } from "./ratchet.ts";

const schema: SchemaNode = {
  type: "object",
  properties: {
    name: { type: "string" },
    labels: { type: "object", additionalProperties: { type: "string" } },
    ports: {
      type: "array",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["port"],
      items: { type: "object", properties: { port: { type: "integer" }, label: { type: "string" } } },
    },
    steps: {
      type: "array",
      "x-kubernetes-list-type": "atomic",
      items: { type: "object", properties: { run: { type: "string" } } },
    },
  },
};

const stored = {
  name: "a",
  labels: { team: "x" },
  ports: [
    { port: 80, label: "http" },
    { port: 443, label: "https" },
  ],
  steps: [{ run: "go" }],
};

void describe("ratcheting: whether an error at a location survives an update", () => {
  const cases: [string, unknown, (string | number)[], boolean][] = [
    ["a property left alone", { ...stored, name: "a" }, ["name"], true],
    ["a property changed", { ...stored, name: "b" }, ["name"], false],
    ["a property the stored object lacks", { ...stored, extra: "x" }, ["extra"], false],
    [
      "a map value left alone while another key changes",
      { ...stored, labels: { team: "x", app: "y" } },
      ["labels", "team"],
      true,
    ],
    ["the map itself once a key was added", { ...stored, labels: { team: "x", app: "y" } }, ["labels"], false],
    [
      "a list-map item moved to another index (correlated by its keys)",
      { ...stored, ports: [stored.ports[1], stored.ports[0]] },
      ["ports", "0", "label"],
      true,
    ],
    [
      "a list-map item whose field changed",
      { ...stored, ports: [{ port: 80, label: "web" }, stored.ports[1]] },
      ["ports", "0", "label"],
      false,
    ],
    ["an item of an atomic list left alone with the list", { ...stored, name: "b" }, ["steps", "0", "run"], true],
    [
      "an item of an atomic list that changed elsewhere (items never correlate)",
      { ...stored, steps: [{ run: "go" }, { run: "more" }] },
      ["steps", "0", "run"],
      false,
    ],
    ["a field under an unchanged map", { ...stored, name: "b" }, ["labels", "team"], true],
    ["the object itself left alone", structuredClone(stored), [], true],
  ];
  for (const [title, object, segments, expected] of cases) {
    void it(`${expected ? "ratchets" : "keeps"} an error at ${title}`, () => {
      assert.equal(ratchetedAt(schema, object, stored, segments), expected);
    });
  }

  void it("keeps every error without a stored object (a CREATE)", () => {
    assert.equal(ratchetedAt(schema, stored, undefined, ["name"]), false);
  });
});
