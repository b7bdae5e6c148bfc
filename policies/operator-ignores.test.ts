import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { defaultPolicyConfig } from "./config.ts";
import { builtinCatalog } from "./domain/catalog/builtin.ts";
import { evaluate } from "./evaluate.ts";
import { ignoredFeatureGates, ignoredSettings, ignoredUses, ignoredUsesMessage } from "./operator-coverage.ts";
import type { Kind } from "./types.ts";

const context = { catalog: builtinCatalog(), config: defaultPolicyConfig() };

function nodeClass(spec: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: "karpenter.k8s.aws/v1",
    kind: "EC2NodeClass",
    metadata: { name: "c" },
    spec: {
      role: "KarpenterNodeRole",
      amiSelectorTerms: [{ alias: "al2023@latest" }],
      subnetSelectorTerms: [{ tags: { "karpenter.sh/discovery": "x" } }],
      securityGroupSelectorTerms: [{ tags: { "karpenter.sh/discovery": "x" } }],
      ...spec,
    },
  };
}

function nodePool(
  spec: Record<string, unknown>,
  template: Record<string, unknown> = {},
  metadata: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: "karpenter.sh/v1",
    kind: "NodePool",
    metadata: { name: "p" },
    spec: {
      template: {
        metadata,
        spec: {
          nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "c" },
          requirements: [],
          ...template,
        },
      },
      ...spec,
    },
  };
}

/** The operator-ignores findings of a full evaluation (as `kerf check` and the webhook run it). */
function warnings(kind: Kind, object: Record<string, unknown>): { path: string; severity: string; message: string }[] {
  return evaluate({ kind, operation: "CREATE", object, context })
    .findings.filter((f) => f.policy === "operator-ignores")
    .map(({ path, severity, message }) => ({ path, severity, message }));
}

void describe("the operator-ignores policy", () => {
  const cases: [string, Kind, Record<string, unknown>, [string, RegExp][]][] = [
    [
      "says nothing about an EC2NodeClass that sets only what kerf implements",
      "EC2NodeClass",
      nodeClass({ kubelet: { maxPods: 110 } }),
      [],
    ],
    ["says nothing about a NodePool that sets only what kerf implements", "NodePool", nodePool({ weight: 10 }), []],
    [
      "warns once for a whole ignored object field, not for each field under it",
      "EC2NodeClass",
      nodeClass({ placementGroupSelector: { name: "pg", id: "pg-1" } }),
      [
        [
          "spec.placementGroupSelector",
          /spec\.placementGroupSelector is not implemented by kerf: kerf's operator ignores it/,
        ],
      ],
    ],
    [
      "warns at each list item that sets an ignored field",
      "EC2NodeClass",
      nodeClass({
        blockDeviceMappings: [
          { deviceName: "/dev/xvda", ebs: { volumeSize: "20Gi", volumeInitializationRate: 100 } },
          { deviceName: "/dev/xvdb", ebs: { volumeSize: "20Gi" } },
        ],
      }),
      [
        [
          "spec.blockDeviceMappings[0].ebs.volumeInitializationRate",
          /volumeInitializationRate is not implemented by kerf/,
        ],
      ],
    ],
    [
      "says nothing about free-form kubelet keys on AL2023, which passes them through",
      "EC2NodeClass",
      nodeClass({ kubelet: { maxPods: 110, shutdownGracePeriod: "30s", containerLogMaxSize: "10Mi" } }),
      [],
    ],
    [
      "warns for each kubelet key an AL2 class does not write into user data, naming the key",
      "EC2NodeClass",
      nodeClass({
        amiSelectorTerms: [{ alias: "al2@latest" }],
        kubelet: { maxPods: 110, shutdownGracePeriod: "30s", containerLogMaxSize: "10Mi" },
      }),
      [
        ["spec.kubelet.containerLogMaxSize", /spec\.kubelet\.\* is not implemented by kerf/],
        ["spec.kubelet.shutdownGracePeriod", /kerf's operator ignores it/],
      ],
    ],
    [
      "warns for several ignored EC2NodeClass fields in table order",
      "EC2NodeClass",
      nodeClass({ ipPrefixCount: 1, enclaveOptions: { enabled: true }, context: "c" }),
      [
        ["spec.context", /CreateFleet/],
        ["spec.enclaveOptions", /Nitro Enclaves/],
        ["spec.ipPrefixCount", /IPv4 prefixes/],
      ],
    ],
    [
      "warns for a requirement on a label kerf never puts on an instance type",
      "NodePool",
      nodePool(
        {},
        {
          requirements: [
            { key: "kubernetes.io/arch", operator: "In", values: ["amd64"] },
            { key: "karpenter.k8s.aws/placement-group-id", operator: "Exists" },
          ],
        },
      ),
      [
        [
          "spec.template.spec.requirements[1].key",
          new RegExp(
            "^karpenter\\.k8s\\.aws\\/placement-group-id is not implemented by kerf: " +
              "kerf's operator ignores it \\(Karpenter: launching into a placement group\\)",
          ),
        ],
      ],
    ],
    [
      "warns for the Unhealthy budget reason (node repair)",
      "NodePool",
      nodePool({
        disruption: {
          consolidateAfter: "0s",
          budgets: [{ nodes: "10%" }, { nodes: "1", reasons: ["Drifted", "Unhealthy"] }],
        },
      }),
      [
        [
          "spec.disruption.budgets[1].reasons",
          /spec\.disruption\.budgets\[\]\.reasons: Unhealthy is not implemented by kerf.*node repair/,
        ],
      ],
    ],
    [
      "warns for karpenter.sh/do-not-repair in the template's annotations",
      "NodePool",
      nodePool({}, {}, { annotations: { "karpenter.sh/do-not-repair": "true", team: "a" } }),
      [
        [
          "spec.template.metadata.annotations.karpenter.sh/do-not-repair",
          /karpenter\.sh\/do-not-repair is not implemented by kerf/,
        ],
      ],
    ],
  ];
  for (const [title, kind, object, want] of cases) {
    void it(title, () => {
      const got = warnings(kind, object);
      assert.deepEqual(
        got.map((f) => f.path),
        want.map(([path]) => path),
        JSON.stringify(got),
      );
      for (const [i, [, message]] of want.entries()) {
        assert.equal(got[i]?.severity, "warn");
        assert.match(got[i]?.message ?? "", message);
      }
    });
  }

  void it("leaves the object allowed: a warning never denies", () => {
    const verdict = evaluate({
      kind: "NodePool",
      operation: "CREATE",
      object: nodePool({ disruption: { consolidateAfter: "0s", budgets: [{ nodes: "1", reasons: ["Unhealthy"] }] } }),
      context,
    });
    assert.ok(verdict.findings.some((f) => f.policy === "operator-ignores"));
    assert.ok(!verdict.findings.some((f) => f.policy === "operator-ignores" && f.severity === "deny"));
  });
});

void describe("the operator's view of ignored uses", () => {
  void it("names every ignored field with its feature in one message", () => {
    const uses = ignoredUses(
      "EC2NodeClass",
      nodeClass({
        amiSelectorTerms: [{ alias: "bottlerocket@latest" }],
        ipPrefixCount: 1,
        kubelet: { shutdownGracePeriod: "1m" },
      }),
    );
    assert.equal(
      ignoredUsesMessage(uses),
      "kerf's operator ignores spec.ipPrefixCount (IPv4 prefixes assigned to the network interface), " +
        "spec.kubelet.shutdownGracePeriod (a KubeletConfiguration field the Bottlerocket family does not write " +
        "into user data (AL2023 passes every field))",
    );
  });

  const gateCases: [string, Record<string, boolean>, string[], string[]][] = [
    [
      "Karpenter's defaults are neither ignored nor unknown",
      { NodeRepair: false, ReservedCapacity: true, SpotToSpotConsolidation: false },
      [],
      [],
    ],
    [
      "a gate kerf lacks, turned on, is ignored",
      { NodeRepair: true, PodDeletionCostManagement: true, CapacityBuffer: false },
      ["PodDeletionCostManagement"],
      [],
    ],
    [
      "a gate neither Karpenter nor kerf knows is unknown",
      { NodeRepiar: true, SpotToSpotConsolidation: true },
      [],
      ["NodeRepiar"],
    ],
  ];
  for (const [title, gates, ignored, unknown] of gateCases) {
    void it(`feature gates: ${title}`, () => assert.deepEqual(ignoredFeatureGates(gates), { ignored, unknown }));
  }

  void it("reports a Karpenter setting only when its value differs from what kerf does", () => {
    const got = ignoredSettings({
      RESERVED_ENIS: "1",
      VM_MEMORY_OVERHEAD_PERCENT: "0.075",
      ENABLE_ZONAL_SHIFT: "",
      PATH: "/bin",
    });
    assert.deepEqual(
      got.map((s) => [s.env, s.value]),
      [["RESERVED_ENIS", "1"]],
    );
  });
});
