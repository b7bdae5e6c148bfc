import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { versionController } from "../../controllers/providers/version.ts";
import type { Logger } from "../../observability/logger.ts";
import { KubernetesVersionError, KubernetesVersionProvider, type ApiserverVersion } from "./cluster-facts.ts";

/** A /version that answers what `answers` holds now (an Error is thrown). */
type Answer = ApiserverVersion | Error;

function apiserver(first: Answer): { read: () => Promise<ApiserverVersion>; set: (v: Answer) => void } {
  let answer = first;
  return {
    read: async () => {
      if (answer instanceof Error) throw answer;
      return answer;
    },
    set: (v) => {
      answer = v;
    },
  };
}

function logger(): Pick<Logger, "info" | "warn"> & { warnings: string[] } {
  const warnings: string[] = [];
  const warn = ((_o: unknown, m: string) => {
    warnings.push(m);
  }) as Logger["warn"];
  return { info: (() => undefined) as Logger["info"], warn, warnings };
}

void describe("the Kubernetes version AMI aliases resolve for", () => {
  void it("should follow the apiserver's version from one refresh to the next", async () => {
    const server = apiserver({ major: "1", minor: "35+" });
    const version = await KubernetesVersionProvider.start(server.read, logger(), "1.36");
    assert.equal(version.get(), "1.35");
    server.set({ major: "1", minor: "36" });
    assert.deepEqual(await version.refresh(), { version: "1.36", previous: "1.35", changed: true });
    assert.equal(version.get(), "1.36");
    assert.deepEqual(await version.refresh(), { version: "1.36", previous: "1.36", changed: false });
  });

  void it("should keep the last good version when a refresh fails, and say why", async () => {
    const server = apiserver({ major: "1", minor: "35" });
    const version = await KubernetesVersionProvider.start(server.read, logger(), "1.36");
    server.set(new Error("connect ECONNREFUSED"));
    const refused = /^reading the Kubernetes version: connect ECONNREFUSED$/;
    await assert.rejects(
      version.refresh(),
      (e: unknown) => e instanceof KubernetesVersionError && refused.test(e.message),
    );
    server.set({ major: "1", minor: "" });
    await assert.rejects(version.refresh(), /the apiserver answered major "1", minor ""/);
    assert.equal(version.get(), "1.35");
  });

  void it("should start on the fallback when the apiserver cannot tell, then take the real one", async () => {
    const server = apiserver(new Error("connect ECONNREFUSED"));
    const log = logger();
    const version = await KubernetesVersionProvider.start(server.read, log, "1.36");
    assert.equal(version.get(), "1.36");
    assert.match(log.warnings[0] ?? "", /AMI aliases resolve for 1\.36 until it is read/);
    server.set({ major: "1", minor: "37" });
    await version.refresh();
    assert.equal(version.get(), "1.37");
  });

  void it("should re-read every 5 minutes by default, as Karpenter's providers.version does", async () => {
    const server = apiserver({ major: "1", minor: "35" });
    const provider = await KubernetesVersionProvider.start(server.read, logger(), "1.36");
    server.set({ major: "1", minor: "36" });
    const spec = versionController({ provider });
    assert.deepEqual(await spec.reconcile("version", new AbortController().signal), { requeueAfter: 300_000 });
    assert.equal(provider.get(), "1.36");
    const fast = versionController({ provider, periodMs: 500 });
    assert.deepEqual(await fast.reconcile("version", new AbortController().signal), { requeueAfter: 500 });
  });
});
