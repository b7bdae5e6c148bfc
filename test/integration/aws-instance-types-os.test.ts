/**
 * The instance types the operator offers follow the EC2NodeClass's AMI family and images (moto for
 * subnets and AMIs): a Windows class offers the amd64 types as kubernetes.io/os=windows with its
 * windows-build, a Linux class its types as linux, so a Windows NodePool that `kerf check` accepts also
 * provisions; and only types one of the class's images boots, so no plan is made of arm64 types for a
 * class whose images are all x86_64 (such a NodeClaim never launched).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { nodeClass, providers, seedAl2023Alias, testClock } from "./aws-fixtures.ts";
import { useMotoSuite } from "./aws-moto-suite.ts";

void describe("instance types by AMI family", () => {
  // Seeded once: the second test reads the arm64 alias the first one publishes.
  const moto = useMotoSuite({ scope: "suite", al2023: true, zones: ["us-east-1a", "us-east-1b"] });

  void it("should offer no arm64 type while the class's images are all x86_64, and both architectures once it has both", async () => {
    const arches = async (): Promise<Set<string>> => {
      const graph = providers(moto.aws(), testClock(), new Map([["linux", nodeClass("linux")]]));
      return new Set(
        (await graph.cloudProvider.getInstanceTypes("linux")).map((t) => t.labels["kubernetes.io/arch"] ?? ""),
      );
    };
    assert.deepEqual([...(await arches())], ["amd64"]);
    await seedAl2023Alias(moto.aws(), "arm64");
    assert.deepEqual([...(await arches())].sort(), ["amd64", "arm64"]);
  });

  void it("should offer amd64 types as windows under a Windows AMI family and every type as linux otherwise", async () => {
    const classes = new Map([
      ["linux", nodeClass("linux")],
      [
        "windows",
        nodeClass("windows", { amiFamily: "Windows2022", amiSelectorTerms: [{ alias: "windows2022@latest" }] }),
      ],
    ]);
    const graph = providers(moto.aws(), testClock(), classes);
    const linux = await graph.cloudProvider.getInstanceTypes("linux");
    const windows = await graph.cloudProvider.getInstanceTypes("windows");
    assert.ok(
      linux.every(
        (t) => t.labels["kubernetes.io/os"] === "linux" && t.labels["node.kubernetes.io/windows-build"] === undefined,
      ),
    );
    assert.ok(linux.some((t) => t.labels["kubernetes.io/arch"] === "arm64"));
    assert.ok(
      windows.length > 0 &&
        windows.every((t) => t.labels["kubernetes.io/os"] === "windows" && t.labels["kubernetes.io/arch"] === "amd64"),
    );
    assert.ok(windows.every((t) => t.labels["node.kubernetes.io/windows-build"] === "10.0.20348"));
  });
});
