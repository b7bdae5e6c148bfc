// The differential fuzz against a real kube-apiserver serving Karpenter's own CRDs (v1.14.1, or the release named by
// KERF_FUZZ_KARPENTER, kerf then judging against the same CRDs as a cluster's API): a few thousand generated NodePools
// and EC2NodeClasses per run (KERF_FUZZ_RUNS; `npm run fuzz` runs 20,000 from a random seed), seed printed,
// KERF_FUZZ_SEED replays. Every disagreement is a documented kerf-only check (test/conformance/known-differences.ts).
import { before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync } from "node:fs";
import fc from "fast-check";
import type { V1CustomResourceDefinition } from "@kubernetes/client-node";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { installCrds } from "../harness/crds.ts";
import { upstreamCrds } from "../harness/karpenter-crds.ts";
import { rawRequest, RawApiError } from "../harness/raw.ts";
import { EC2NODECLASS, NODEPOOL, variant } from "../conformance/case.ts";
import { generatedObjects, type SchemaNode } from "../conformance/fuzz/mutations.ts";
import { formatReport, fuzz, type ApiAnswer, type Apiserver } from "../conformance/fuzz/differential.ts";
import type { KarpenterApi } from "../../policies/api/releases/index.ts";
import type { SchemaNode as CrdSchema } from "../../policies/api/schemas/openapi.ts";

const RESOURCES = {
  NodePool: "/apis/karpenter.sh/v1/nodepools",
  EC2NodeClass: "/apis/karpenter.k8s.aws/v1/ec2nodeclasses",
} as const;

/** Valid starting points: a dynamic NodePool plain and fully configured, a static one; two EC2NodeClasses likewise. */
const NODEPOOL_BASES = [
  NODEPOOL,
  variant(NODEPOOL, (o) => {
    o.metadata.labels = { team: "platform" };
    o.metadata.annotations = { "example.com/owner": "platform" };
    o.spec.template.spec.taints = [
      { key: "example.com/gpu", value: "true", effect: "NoSchedule" },
      { key: "dedicated", effect: "NoExecute" },
    ];
    o.spec.template.spec.startupTaints = [
      { key: "example.com/init", effect: "NoSchedule" },
      { key: "cni", value: "x", effect: "NoSchedule" },
    ];
    o.spec.template.spec.expireAfter = "720h";
    o.spec.template.spec.terminationGracePeriod = "1h";
    o.spec.disruption.budgets = [
      { nodes: "10%" },
      { nodes: "0", schedule: "0 9 * * mon-fri", duration: "8h", reasons: ["Drifted", "Underutilized"] },
    ];
    o.spec.weight = 10;
  }),
  variant(NODEPOOL, (o) => {
    o.spec.replicas = 2;
    o.spec.limits = { nodes: "5" };
    delete o.spec.disruption.budgets;
  }),
];
const EC2NODECLASS_BASES = [
  EC2NODECLASS,
  variant(EC2NODECLASS, (o) => {
    o.metadata.labels = { team: "platform" };
    o.spec.blockDeviceMappings = [
      {
        deviceName: "/dev/xvda",
        rootVolume: true,
        ebs: { volumeSize: "20Gi", volumeType: "gp3", encrypted: true, iops: 3000, throughput: 125 },
      },
      { deviceName: "/dev/xvdb", ebs: { snapshotID: "snap-0123456789abcdef0", volumeSize: "100Gi" } },
    ];
    o.spec.amiSelectorTerms = [{ id: "ami-0123456789abcdef0" }, { name: "my-ami", owner: "self" }];
    o.spec.amiFamily = "AL2023";
    o.spec.subnetSelectorTerms.push({ id: "subnet-0123456789abcdef0" });
    o.spec.kubelet = {
      maxPods: 110,
      systemReserved: { cpu: "100m" },
      evictionHard: { "memory.available": "5%" },
      imageGCHighThresholdPercent: 85,
      imageGCLowThresholdPercent: 80,
    };
    o.spec.metadataOptions = { httpEndpoint: "enabled", httpTokens: "required", httpPutResponseHopLimit: 1 };
    o.spec.tags = { team: "platform" };
    o.spec.userData = "#!/bin/bash\n";
  }),
];

function schemaOf(crds: V1CustomResourceDefinition[], kind: string): SchemaNode {
  const crd = crds.find((c) => c.spec.names.kind === kind);
  const schema = crd?.spec.versions.find((v) => v.name === "v1")?.schema?.openAPIV3Schema;
  if (schema === undefined) throw new Error(`Karpenter's CRDs have no v1 schema for ${kind}`);
  return schema as SchemaNode;
}

/** A server-side dry-run create: 2xx accepts, 400/422 reject with the Status message; anything else is an error. */
function dryRunCreate(env: TestEnvironment): Apiserver {
  return async (kind, object): Promise<ApiAnswer> => {
    try {
      await rawRequest(env.kubeConfig, { method: "POST", path: `${RESOURCES[kind]}?dryRun=All`, body: object });
      return { verdict: "accept", message: "" };
    } catch (error) {
      if (!(error instanceof RawApiError) || (error.code !== 400 && error.code !== 422)) throw error;
      let message = error.body;
      try {
        message = (JSON.parse(error.body) as { message?: string }).message ?? error.body;
      } catch {
        /* not a Status */
      }
      return { verdict: "reject", message };
    }
  };
}

/** npm test's seed, fixed so that a run fails only when kerf changes; `npm run fuzz` passes KERF_FUZZ_SEED=random. */
const SUITE_SEED = 20261125;

function seedFromEnv(): number {
  const text = process.env["KERF_FUZZ_SEED"];
  if (text === undefined || text === "") return SUITE_SEED;
  if (text === "random") return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(text);
  if (!Number.isSafeInteger(seed)) throw new Error(`KERF_FUZZ_SEED must be an integer, got ${text}`);
  return seed;
}

const runs = Number(process.env["KERF_FUZZ_RUNS"] ?? "3000");
/** The Karpenter release whose CRDs the apiserver serves and kerf judges against (fetched and cached on first use). */
const karpenterVersion = process.env["KERF_FUZZ_KARPENTER"] ?? "1.14.1";
/** KERF_FUZZ_DUMP=file appends every judgement to the file as a JSON line. */
const dump = process.env["KERF_FUZZ_DUMP"];

describe(`kerf against a real kube-apiserver with Karpenter's own CRDs (v${karpenterVersion}), on generated objects`, () => {
  let env: TestEnvironment;
  let crds: V1CustomResourceDefinition[];
  let karpenter: KarpenterApi;
  before(async () => {
    env = await useEnvironment();
    crds = await upstreamCrds(karpenterVersion);
    await installCrds(env.kubeConfig, crds);
    const schema = (kind: string): CrdSchema => schemaOf(crds, kind) as CrdSchema;
    const schemas = {
      NodePool: schema("NodePool"),
      NodeClaim: schema("NodeClaim"),
      EC2NodeClass: schema("EC2NodeClass"),
    };
    karpenter = { version: karpenterVersion, source: "cluster", schemas };
  });

  it(`every disagreement over ${runs} mutated NodePools and EC2NodeClasses is a documented kerf-only check`, async (t) => {
    const objects = fc.oneof(
      generatedObjects("NodePool", schemaOf(crds, "NodePool"), NODEPOOL_BASES),
      generatedObjects("EC2NodeClass", schemaOf(crds, "EC2NodeClass"), EC2NODECLASS_BASES),
    );
    const report = await fuzz({
      seed: seedFromEnv(),
      runs,
      concurrency: 8,
      apiserver: dryRunCreate(env),
      karpenter,
      objects,
      ...(dump === undefined
        ? {}
        : {
            onJudgement: (j) => {
              const line = { outcome: j.outcome, api: j.api, denials: j.denials, mutations: j.generated.mutations };
              appendFileSync(dump, `${JSON.stringify(line)}\n`);
            },
          }),
    });
    const text = formatReport(report);
    t.diagnostic(text);
    process.stdout.write(`${text}\n`);
    assert.ok(
      report.apiserverRejected > report.objects / 10 && report.apiserverRejected < report.objects * 0.9,
      "the generator mixes accepted and rejected objects",
    );
    assert.equal(report.failures.length, 0, `disagreements no known difference explains:\n${text}`);
  });
});
