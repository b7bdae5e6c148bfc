import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { Writable } from "node:stream";
import { KubeConfig } from "@kubernetes/client-node";
import { pino } from "pino";
import { bundledKarpenterApi, type KarpenterApi } from "../../policies/api/releases/index.ts";
import { ClusterKarpenterApi, selectCrds, type CrdState } from "./cluster-crds.ts";

const names = ["nodepools.karpenter.sh", "nodeclaims.karpenter.sh", "ec2nodeclasses.karpenter.k8s.aws"] as const;
const crd = (name: string, generation: number): CrdState => ({
  state: "present",
  crd: { metadata: { name, uid: `uid-${name}`, generation } },
});

void describe("selecting the cluster's Karpenter CRDs", () => {
  const cases: [string, CrdState[], string | RegExp][] = [
    [
      "all three read",
      names.map((n) => crd(n, 1)),
      "uid-nodepools.karpenter.sh/1,uid-nodeclaims.karpenter.sh/1,uid-ec2nodeclasses.karpenter.k8s.aws/1",
    ],
    [
      "a newer generation of one",
      [crd(names[0], 2), crd(names[1], 1), crd(names[2], 1)],
      /^uid-nodepools\.karpenter\.sh\/2,/,
    ],
    [
      "one not installed",
      [crd(names[0], 1), { state: "absent" }, crd(names[2], 1)],
      "CRDs not installed: nodeclaims.karpenter.sh",
    ],
    [
      "one not read yet",
      [crd(names[0], 1), crd(names[1], 1), { state: "unknown" }],
      "reading CRDs ec2nodeclasses.karpenter.k8s.aws: not read yet",
    ],
    [
      "none readable",
      names.map(() => ({ state: "unknown", error: new Error("connect ECONNREFUSED 127.0.0.1:1\nmore") })),
      `reading CRDs ${names.join(", ")}: connect ECONNREFUSED 127.0.0.1:1`,
    ],
  ];
  for (const [title, states, expected] of cases) {
    void it(`${title}: ${typeof expected === "string" && !expected.startsWith("uid") ? "falls back" : "builds the API"}`, () => {
      const selection = selectCrds(new Map(names.map((n, i) => [n, states[i]!])));
      const text = "reason" in selection ? selection.reason : selection.key;
      if (typeof expected === "string") assert.equal(text, expected);
      else assert.match(text, expected);
    });
  }
});

void describe("the cluster's Karpenter API when the apiserver is unreachable", () => {
  void it("serves the fallback release, logs why once, and stops its retries on stop()", async () => {
    // A port that was free a moment ago: connections are refused, as with an apiserver that is down.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: "c", server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: "u" }],
      contexts: [{ name: "x", cluster: "c", user: "u" }],
      currentContext: "x",
    });
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const fallback = bundledKarpenterApi("1.0.8");
    const used: KarpenterApi[] = [];
    const api = new ClusterKarpenterApi({
      kubeConfig,
      fallback,
      logger: pino({ level: "info" }, stream),
      onChange: (a) => used.push(a),
      backoff: { initialMs: 20, maxMs: 40 },
    });
    await api.start(5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await api.stop();
    assert.equal(api.current, fallback);
    assert.deepEqual(used, [fallback]);
    const warnings = lines.filter((l) => l["level"] === 40);
    assert.equal(warnings.length, 1, JSON.stringify(lines));
    assert.match(
      String(warnings[0]?.["reason"]),
      new RegExp(
        "^reading CRDs nodepools\\.karpenter\\.sh, nodeclaims\\.karpenter\\.sh, " +
          "ec2nodeclasses\\.karpenter\\.k8s\\.aws: .*ECONNREFUSED",
      ),
    );
    assert.deepEqual(warnings[0]?.["karpenterApi"], { source: "bundled", version: "1.0.8" });
    assert.ok(lines.some((l) => l["msg"] === "judging Karpenter objects against this API"));
  });
});
