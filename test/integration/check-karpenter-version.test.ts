/**
 * `kerf check --karpenter-version`: the same manifest gets different verdicts under two releases, and each verdict is
 * the one a real kube-apiserver serving that release's own CRDs gives (server-side dry-run create). The objects come
 * from diffing the vendored release files: values a later release added, a pattern v1.0 anchored wrongly, a rule on
 * static NodePools.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { eventually } from "../harness/wait.ts";
import { useEnvironment, type TestEnvironment } from "../harness/use-environment.ts";
import { installCrds } from "../harness/crds.ts";
import { generatedCrds, upstreamCrds } from "../harness/karpenter-crds.ts";
import { rawRequest, RawApiError } from "../harness/raw.ts";
import { runCheck } from "../../webhook/cli/check.ts";
import { capture } from "../../webhook/cli/captured-io.ts";

type Manifest = {
  apiVersion: string;
  kind: "NodePool" | "EC2NodeClass";
  metadata: { name: string };
  spec: Record<string, unknown>;
};
type Verdict = "allow" | "deny";

const RESOURCES = {
  NodePool: "/apis/karpenter.sh/v1/nodepools",
  EC2NodeClass: "/apis/karpenter.k8s.aws/v1/ec2nodeclasses",
} as const;

const selectors = {
  subnetSelectorTerms: [{ tags: { "karpenter.sh/discovery": "demo" } }],
  securityGroupSelectorTerms: [{ tags: { "karpenter.sh/discovery": "demo" } }],
};
/** The NodePools' EC2NodeClass, in the same render (kerf checks that the reference resolves). */
const NODE_CLASS: Manifest = {
  apiVersion: "karpenter.k8s.aws/v1",
  kind: "EC2NodeClass",
  metadata: { name: "default" },
  spec: { role: "KarpenterNodeRole-demo", amiSelectorTerms: [{ alias: "al2023@latest" }], ...selectors },
};

function nodePool(
  name: string,
  edit: (spec: Record<string, unknown>, template: Record<string, unknown>) => void,
): Manifest {
  const template: Record<string, unknown> = {
    nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
    requirements: [{ key: "karpenter.k8s.aws/instance-category", operator: "In", values: ["c", "m", "r"] }],
  };
  const spec: Record<string, unknown> = { template: { spec: template }, limits: { cpu: "100", memory: "400Gi" } };
  edit(spec, template);
  return { apiVersion: "karpenter.sh/v1", kind: "NodePool", metadata: { name }, spec };
}

interface Case {
  readonly title: string;
  readonly object: Manifest;
  readonly verdicts: Readonly<Record<string, Verdict>>;
}

const CASES: readonly Case[] = [
  {
    title: "an EC2NodeClass on the windows2025 AMI alias (added in v1.x after v1.0)",
    object: {
      ...NODE_CLASS,
      metadata: { name: "windows" },
      spec: { ...NODE_CLASS.spec, amiSelectorTerms: [{ alias: "windows2025@latest" }] },
    },
    verdicts: { "1.0.8": "deny", "1.14.1": "allow" },
  },
  {
    title: "a NodePool with consolidationPolicy Balanced (added after v1.10)",
    object: nodePool("balanced", (spec) => {
      spec["disruption"] = { consolidationPolicy: "Balanced", consolidateAfter: "5m" };
    }),
    verdicts: { "1.10.2": "deny", "1.15.1": "allow" },
  },
  {
    title: "a NodePool requirement with the Gte operator (added after v1.0)",
    object: nodePool("gte", (_spec, template) => {
      (template["requirements"] as unknown[]).push({
        key: "karpenter.k8s.aws/instance-cpu",
        operator: "Gte",
        values: ["4"],
      });
    }),
    verdicts: { "1.0.8": "deny", "1.14.1": "allow" },
  },
  {
    title: 'a NodePool expiring after "720hx" (v1.0\'s expireAfter pattern anchors one alternative only)',
    object: nodePool("loose-expiry", (_spec, template) => {
      template["expireAfter"] = "720hx";
    }),
    verdicts: { "1.0.8": "allow", "1.14.1": "deny" },
  },
  {
    title:
      "a static NodePool (replicas) limiting cpu (v1.0 has no static NodePools; " +
      "later releases allow only limits.nodes)",
    object: nodePool("static", (spec) => {
      spec["replicas"] = 2;
    }),
    verdicts: { "1.0.8": "allow", "1.14.1": "deny" },
  },
];

async function apiserverVerdict(env: TestEnvironment, object: Manifest): Promise<Verdict> {
  try {
    await rawRequest(env.kubeConfig, { method: "POST", path: `${RESOURCES[object.kind]}?dryRun=All`, body: object });
    return "allow";
  } catch (error) {
    if (error instanceof RawApiError && (error.code === 400 || error.code === 422)) return "deny";
    throw error;
  }
}

/**
 * The apiserver's verdict once it serves the CRDs just installed: Established does not mean its request
 * handler has swapped in the new schema yet, so a verdict other than `expected` is asked again for up to
 * 10 s (a release that truly disagrees still answers otherwise at the end).
 */
async function settledVerdict(env: TestEnvironment, object: Manifest, expected: Verdict | undefined): Promise<Verdict> {
  let last: Verdict = await apiserverVerdict(env, object);
  await eventually(
    "the apiserver to serve the installed CRDs",
    async () => (last = await apiserverVerdict(env, object)) === expected,
    10_000,
    200,
  ).catch(() => undefined);
  return last;
}

async function kerfVerdict(file: string, version: string): Promise<{ verdict: Verdict; output: string }> {
  const c = capture();
  const code = await runCheck(["--karpenter-version", version, file], c.io);
  const output = c.out() + c.err();
  assert.ok(code === 0 || code === 1, output);
  return { verdict: code === 0 ? "allow" : "deny", output };
}

void describe("kerf check --karpenter-version against a real apiserver serving each release's CRDs", () => {
  let env: TestEnvironment;
  let dir = "";
  const files = new Map<Case, string>();

  before(async () => {
    env = await useEnvironment({ kwok: false, moto: false });
    dir = mkdtempSync(path.join(os.tmpdir(), "kerf-check-version-"));
    for (const [index, c] of CASES.entries()) {
      const file = path.join(dir, `case-${index}.yaml`);
      const documents = c.object.kind === "NodePool" ? [NODE_CLASS, c.object] : [c.object];
      writeFileSync(file, documents.map((d) => stringify(d)).join("---\n"));
      files.set(c, file);
    }
  });

  after(async () => {
    // Later test files in a shared environment expect kerf's own CRDs.
    if (env !== undefined) await installCrds(env.kubeConfig, generatedCrds());
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  const versions = [...new Set(CASES.flatMap((c) => Object.keys(c.verdicts)))];
  for (const version of versions) {
    void it(`gives v${version}'s verdicts, as its apiserver does`, async () => {
      await installCrds(env.kubeConfig, await upstreamCrds(version));
      for (const c of CASES.filter((k) => k.verdicts[version] !== undefined)) {
        const expected = c.verdicts[version];
        assert.equal(
          await settledVerdict(env, c.object, expected),
          expected,
          `the v${version} apiserver on ${c.title}`,
        );
        const kerf = await kerfVerdict(files.get(c) ?? "", version);
        assert.equal(
          kerf.verdict,
          expected,
          `kerf check --karpenter-version ${version} on ${c.title}:\n${kerf.output}`,
        );
      }
    });
  }

  void it("with --diff --cluster, judges against the cluster's installed CRDs unless --karpenter-version says otherwise", async () => {
    await installCrds(env.kubeConfig, await upstreamCrds("1.0.8"));
    const windows = CASES[0] as Case;
    const [oldDir, newDir] = [mkdtempSync(path.join(dir, "old-")), mkdtempSync(path.join(dir, "new-"))];
    for (const d of [oldDir, newDir]) writeFileSync(path.join(d, "class.yaml"), stringify(windows.object));
    const cwd = process.cwd();
    const run = async (extra: string[]): Promise<{ code: number; out: string; err: string }> => {
      const c = capture();
      process.chdir(newDir);
      try {
        const code = await runCheck(
          ["--diff", oldDir, "--cluster", "--kubeconfig", env.state.kubeconfig, ...extra, "."],
          c.io,
        );
        return { code, out: c.out(), err: c.err() };
      } finally {
        process.chdir(cwd);
      }
    };
    const cluster = await run([]);
    assert.deepEqual([cluster.code, cluster.err], [1, ""], cluster.out);
    assert.match(
      cluster.out,
      new RegExp(
        "family is not supported, must be one of the following: 'al2', 'al2023', 'bottlerocket', " +
          "'windows2019', 'windows2022'",
      ),
    );
    const pinned = await run(["--karpenter-version", "1.14.1"]);
    assert.deepEqual([pinned.code, pinned.err], [0, ""], pinned.out);
  });

  void it("has, for every case, two releases that disagree", () => {
    for (const c of CASES) assert.deepEqual(new Set(Object.values(c.verdicts)), new Set(["allow", "deny"]), c.title);
  });
});
