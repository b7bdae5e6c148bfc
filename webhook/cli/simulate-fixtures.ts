/**
 * Test fixtures for the `kerf simulate` CLI tests (simulate*.test.ts, used by them only): the documents their
 * scenarios are made of, a scenario written to a file, and `kerf simulate` run with its streams captured.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { capture } from "./captured-io.ts";
import { run } from "./main.ts";
import type { Plan } from "./simulate.ts";

/** Writes `text` (a scenario, a config) as `name` in a new temporary directory, one per call; returns the path. */
export function writeTempFile(text: string, name = "scenario.yaml"): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "kerf-simulate-")), name);
  writeFileSync(file, text);
  return file;
}

/** YAML documents as one scenario text: `---` between them, one newline at the end. */
export function documents(...docs: readonly string[]): string {
  return docs.map((d) => d.trimEnd()).join("\n---\n") + "\n";
}

/** The `default` EC2NodeClass, on the al2023 alias. */
export const DEFAULT_NODE_CLASS = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec: {amiSelectorTerms: [{alias: al2023@latest}]}`;

/** What a NodePool has beyond its name and requirements, each the inside of a YAML flow mapping (`key: value, …`). */
export interface NodePoolOptions {
  /** metadata.annotations */
  readonly annotations?: string;
  /** spec.disruption */
  readonly disruption?: string;
}

/** A NodePool of on-demand m5 types on the `default` EC2NodeClass. */
export function m5NodePool(name: string, o: NodePoolOptions = {}): string {
  const metadata = o.annotations === undefined ? `{name: ${name}}` : `{name: ${name}, annotations: {${o.annotations}}}`;
  return `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: ${metadata}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5]}
${o.disruption === undefined ? "" : `  disruption: {${o.disruption}}`}`;
}

/** A Node of `nodePool` in us-east-1a. */
export function node(name: string, nodePool: string, instanceType: string): string {
  const labels =
    `{karpenter.sh/nodepool: ${nodePool}, node.kubernetes.io/instance-type: ${instanceType}, ` +
    "topology.kubernetes.io/zone: us-east-1a}";
  return `apiVersion: v1\nkind: Node\nmetadata: {name: ${name}, labels: ${labels}}`;
}

export interface PodOptions {
  readonly nodeName?: string;
  readonly app?: string;
}

/** A pod in namespace `default` of one container that requests `memory`; on `nodeName` and labelled `app` if given. */
export function pod(name: string, memory: string, o: PodOptions = {}): string {
  const labels = o.app === undefined ? "" : `, labels: {app: ${o.app}}`;
  const nodeName = o.nodeName === undefined ? "" : `nodeName: ${o.nodeName}, `;
  return `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: default${labels}}
spec: {${nodeName}containers: [{name: c, resources: {requests: {memory: ${memory}}}}]}`;
}

/** A Deployment of `replicas` pods that request 100m CPU each, at `priority` if given. */
export function deployment(name: string, replicas: number, priority?: number): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:${priority === undefined ? "" : `\n      priority: ${priority}`}
      containers: [{name: app, resources: {requests: {cpu: 100m}}}]`;
}

/** `kerf simulate` with `args`; asserts that it exits 0 (stderr as the message) and returns its stdout. */
export async function simulate(args: readonly string[]): Promise<string> {
  const c = capture();
  assert.equal(await run(["simulate", ...args], c.io), 0, c.err());
  return c.out();
}

/** simulate() with `--format json` after `args`: the plan. */
export async function simulatePlan(args: readonly string[]): Promise<Plan> {
  return JSON.parse(await simulate([...args, "--format", "json"])) as Plan;
}

/** `kerf simulate` with arguments it refuses: asserts exit 2 without a stack trace, returns stderr. */
export async function simulateRefused(args: readonly string[]): Promise<string> {
  const c = capture();
  assert.equal(await run(["simulate", ...args], c.io), 2);
  assert.doesNotMatch(c.err(), /\n\s+at /, "no stack trace");
  return c.err();
}
