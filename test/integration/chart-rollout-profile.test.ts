/**
 * The chart's audit profile (issue 24 item 2): values-audit.yaml installs every policy at warn with the webhook's
 * periodic audit on, and `--set policyMode=enforce` is the one switch to enforcement. Rendered by helm, and the
 * rendered ConfigMap and flags read by kerf's own config loaders, so the chain from values to verdict is tested.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import type { V1ClusterRole, V1ConfigMap, V1Deployment } from "@kubernetes/client-node";
import { KERF_CHART, renderChart } from "../harness/chart.ts";
import { deploymentContainer, kerfInvocation, only, type ManifestObject } from "../harness/manifests.ts";
import { policyConfigFromConfigMap } from "../../policies/config.ts";
import { evaluate } from "../../policies/evaluate.ts";
import { builtinCatalog } from "../../policies/domain/catalog/builtin.ts";
import { loadWebhookConfig } from "../../webhook/config.ts";

const AUDIT_VALUES = path.join(KERF_CHART, "values-audit.yaml");

/** A NodePool without limits: limits-required denies it at enforce. */
const unlimited = {
  apiVersion: "karpenter.sh/v1",
  kind: "NodePool",
  metadata: { name: "existing" },
  spec: {
    template: {
      spec: {
        nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
        requirements: [{ key: "karpenter.k8s.aws/instance-category", operator: "In", values: ["c", "m", "r"] }],
      },
    },
  },
};

function verdictUnder(objects: readonly ManifestObject[]): { allowed: boolean; limits: string | undefined } {
  const config = policyConfigFromConfigMap(only<V1ConfigMap>(objects, "ConfigMap", "kerf-policy"));
  const verdict = evaluate({
    kind: "NodePool",
    operation: "CREATE",
    object: unlimited,
    context: { catalog: builtinCatalog(), config },
  });
  return { allowed: verdict.allowed, limits: verdict.findings.find((f) => f.policy === "limits-required")?.severity };
}

function webhookFlags(objects: readonly ManifestObject[]): {
  auditIntervalSeconds: number;
  token: boolean | undefined;
} {
  const deployment = only<V1Deployment>(objects, "Deployment", "kerf-webhook");
  const config = loadWebhookConfig(kerfInvocation(deploymentContainer(deployment, "webhook")).argv, {});
  return {
    auditIntervalSeconds: config.auditIntervalSeconds,
    token: deployment.spec?.template.spec?.automountServiceAccountToken,
  };
}

void describe("the chart's audit profile and its switch to enforcement", () => {
  const profiles = [
    { name: "the default values", values: [], set: {}, allowed: false, limits: "deny", audit: 0, auditRole: false },
    {
      name: "values-audit.yaml",
      values: [AUDIT_VALUES],
      set: {},
      allowed: true,
      limits: "warn",
      audit: 300,
      auditRole: true,
    },
    {
      name: "values-audit.yaml with policyMode=enforce",
      values: [AUDIT_VALUES],
      set: { policyMode: "enforce" },
      allowed: false,
      limits: "deny",
      audit: 300,
      auditRole: true,
    },
  ];
  for (const p of profiles) {
    void it(`renders ${p.name}: limits-required ${p.limits}, audit every ${p.audit} s`, async () => {
      const objects = await renderChart({ values: p.values, set: p.set });
      assert.deepEqual(verdictUnder(objects), { allowed: p.allowed, limits: p.limits });
      const flags = webhookFlags(objects);
      assert.equal(flags.auditIntervalSeconds, p.audit);
      assert.equal(flags.token, true, "the default reads the cluster's CRDs; the audit reads the stored objects");
      const role = objects.find(
        (o) => o.kind === "ClusterRole" && o.metadata.name === "kerf-webhook-audit",
      ) as unknown as V1ClusterRole | undefined;
      assert.equal(role !== undefined, p.auditRole);
      if (role !== undefined) {
        assert.deepEqual(role.rules, [
          { apiGroups: ["karpenter.sh"], resources: ["nodepools"], verbs: ["list"] },
          { apiGroups: ["karpenter.k8s.aws"], resources: ["ec2nodeclasses"], verbs: ["list"] },
          { apiGroups: [""], resources: ["events"], verbs: ["create"] },
        ]);
        const binding = only<{ subjects?: Array<{ name: string }> }>(
          objects,
          "ClusterRoleBinding",
          "kerf-webhook-audit",
        );
        assert.deepEqual(
          binding.subjects?.map((s) => s.name),
          ["kerf-webhook"],
        );
      }
    });
  }

  void it("mounts a token for the audit even when the webhook judges against a bundled release", async () => {
    const objects = await renderChart({ values: [AUDIT_VALUES], set: { "webhook.karpenterApi.source": "bundled" } });
    assert.deepEqual(webhookFlags(objects), { auditIntervalSeconds: 300, token: true });
  });

  void it("refuses a policyMode other than enforce or warn, naming the key", async () => {
    await assert.rejects(renderChart({ set: { policyMode: "audit" } }), /policyMode/);
  });
});
