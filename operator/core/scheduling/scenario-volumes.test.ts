import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { buildScenario, ScenarioError } from "./scenario.ts";
import { simulate } from "./simulate.ts";

const root = path.resolve(import.meta.dirname, "../../..");
const example = (): unknown[] =>
  parseAllDocuments(readFileSync(path.join(root, "manifests/examples/scenarios/zonal-volumes.yaml"), "utf8")).map(
    (d) => d.toJSON() as unknown,
  );

const zoneOf = (docs: unknown[], pod: string): string | undefined => {
  const scenario = buildScenario(docs, builtinCatalog());
  const result = simulate(scenario.snapshot, scenario.pending);
  const onNode = result.existingPlacements.find((p) => p.pod.name === pod);
  if (onNode !== undefined) return `node ${onNode.node}`;
  return result.newClaims.find((c) => c.pods.some((p) => p.name === pod))?.launch.zone;
};

void describe("kerf simulate scenarios with volumes", () => {
  it("plans each pod in its volume's zone, not on the node in another zone that has room", () => {
    const docs = example();
    assert.equal(zoneOf(docs, "db-0"), "us-east-1b");
    assert.equal(zoneOf(docs, "cache-0"), "us-east-1c");
  });

  it("uses the node once it is in the volume's zone", () => {
    const docs = example().map((d) => {
      const doc = d as { kind: string; metadata: { name: string; labels?: Record<string, string> } };
      if (doc.kind !== "Node") return d;
      return {
        ...doc,
        metadata: { ...doc.metadata, labels: { ...doc.metadata.labels, "topology.kubernetes.io/zone": "us-east-1b" } },
      };
    });
    assert.equal(zoneOf(docs, "db-0"), "node node-a");
  });

  it("honours the node's CSINode attachment count", () => {
    const docs = example().map((d) => {
      const doc = d as { kind: string; metadata: { name: string; labels?: Record<string, string> }; spec?: unknown };
      if (doc.kind === "Node")
        return {
          ...doc,
          metadata: {
            ...doc.metadata,
            labels: { ...doc.metadata.labels, "topology.kubernetes.io/zone": "us-east-1b" },
          },
        };
      if (doc.kind === "CSINode")
        return { ...doc, spec: { drivers: [{ name: "ebs.csi.aws.com", nodeID: "x", allocatable: { count: 0 } }] } };
      return d;
    });
    assert.equal(zoneOf(docs, "db-0"), "us-east-1b", "a node that can attach no more volumes takes no pod with one");
  });

  it("refuses a pod whose claim the scenario does not hold, naming the claim", () => {
    const docs = example().filter((d) => (d as { metadata?: { name?: string } }).metadata?.name !== "cache");
    const scenario = buildScenario(docs, builtinCatalog());
    const result = simulate(scenario.snapshot, scenario.pending);
    assert.deepEqual(
      result.podErrors.map((e) => [e.pod.name, e.reason]),
      [["cache-0", "persistentvolumeclaim default/cache not found"]],
    );
  });

  it("gives a StatefulSet's pods the claims of its volumeClaimTemplates, created from the template where missing", () => {
    const sts = {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: "db", namespace: "default" },
      spec: {
        replicas: 2,
        serviceName: "db",
        selector: { matchLabels: { app: "db" } },
        template: {
          metadata: { labels: { app: "db" } },
          spec: { containers: [{ name: "db", resources: { requests: { cpu: "1" } } }] },
        },
        volumeClaimTemplates: [
          { metadata: { name: "data" }, spec: { storageClassName: "gp3-us-east-1c", accessModes: ["ReadWriteOnce"] } },
        ],
      },
    };
    // data-db-0 is the example's claim bound to the us-east-1b volume; data-db-1 does not exist: the controller
    // creates it from the template, of the class allowed only in us-east-1c.
    const docs = [...example().filter((d) => (d as { kind: string }).kind !== "Pod"), sts];
    const scenario = buildScenario(docs, builtinCatalog());
    const result = simulate(scenario.snapshot, scenario.pending);
    const zones = Object.fromEntries(result.newClaims.flatMap((c) => c.pods.map((p) => [p.name, c.launch.zone])));
    assert.deepEqual(zones, { "db-0": "us-east-1b", "db-1": "us-east-1c" });
  });

  it("takes a scenario claim naming a volume as bound unless its status says it is not", () => {
    const pending = example().map((d) => {
      const doc = d as { kind: string; metadata: { name: string } };
      return doc.kind === "PersistentVolumeClaim" && doc.metadata.name === "data-db-0"
        ? { ...doc, status: { phase: "Pending" } }
        : d;
    });
    const scenario = buildScenario(pending, builtinCatalog());
    const result = simulate(scenario.snapshot, scenario.pending);
    assert.match(
      result.podErrors.find((e) => e.pod.name === "db-0")?.reason ?? "",
      /default\/data-db-0 is not bound yet/,
    );
    assert.equal(zoneOf(example(), "db-0"), "us-east-1b");
  });

  it("names the document and field of a malformed volume object", () => {
    const docs = [
      ...example(),
      {
        apiVersion: "storage.k8s.io/v1",
        kind: "StorageClass",
        metadata: { name: "bad" },
        provisioner: "x",
        volumeBindingMode: "Soon",
      },
    ];
    assert.throws(
      () => buildScenario(docs, builtinCatalog()),
      (error: unknown) =>
        error instanceof ScenarioError &&
        error.document === docs.length - 1 &&
        /reading StorageClass bad: volumeBindingMode must be Immediate or WaitForFirstConsumer/.test(error.message),
    );
  });
});
