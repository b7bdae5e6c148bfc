import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { EC2NodeClassLike } from "../../core/launch-template/node-class.ts";
import type { OperatorEvent } from "../../observability/events.ts";
import { NODE_CLASS_FINALIZER, finalizeNodeClass, type NodeClassTerminationDeps } from "./termination.ts";

const deleted: EC2NodeClassLike = {
  metadata: { name: "default", finalizers: [NODE_CLASS_FINALIZER], deletionTimestamp: "2000-01-01T00:00:00Z" },
  spec: { amiSelectorTerms: [], subnetSelectorTerms: [], securityGroupSelectorTerms: [], role: "NodeRole" },
};

function fakes(claims: string[]): { deps: NodeClassTerminationDeps; calls: string[]; events: OperatorEvent[] } {
  const calls: string[] = [];
  const events: OperatorEvent[] = [];
  const deps: NodeClassTerminationDeps = {
    cloud: {
      deleteResources: async (nc) => {
        calls.push(`delete ${nc.metadata.name}`);
      },
    },
    finalizers: {
      addNodeClassFinalizer: async () => {
        calls.push("add");
      },
      removeNodeClassFinalizer: async (_, f) => {
        calls.push(`remove ${f}`);
      },
    },
    nodeClaimsOf: () => claims,
    events: {
      publish: (e) => {
        events.push(e);
      },
    },
  };
  return { deps, calls, events };
}

void describe("EC2NodeClass termination", () => {
  void it("should keep the finalizer and say why while NodeClaims still reference the node class", async () => {
    const { deps, calls, events } = fakes(["b", "a"]);
    const result = await finalizeNodeClass(deps, deleted);
    assert.ok((result.requeueAfter ?? 0) > 0);
    assert.deepEqual(calls, []);
    assert.deepEqual(
      events.map((e) => [e.involved.kind, e.reason, e.message]),
      [["EC2NodeClass", "WaitingOnNodeClaimTermination", "Waiting on NodeClaim termination for a, b"]],
    );
  });

  void it("should delete the cloud resources before removing the finalizer once no NodeClaim is left", async () => {
    const { deps, calls } = fakes([]);
    assert.deepEqual(await finalizeNodeClass(deps, deleted), {});
    assert.deepEqual(calls, ["delete default", `remove ${NODE_CLASS_FINALIZER}`]);
  });

  void it("should keep the finalizer when deleting the cloud resources fails", async () => {
    const { deps, calls } = fakes([]);
    const failing = {
      ...deps,
      cloud: {
        deleteResources: async () => {
          throw new Error("deleting instance profile demo_1: AccessDenied");
        },
      },
    };
    await assert.rejects(finalizeNodeClass(failing, deleted), /AccessDenied/);
    assert.deepEqual(calls, []);
  });

  void it("should do nothing for a node class without kerf's finalizer", async () => {
    const { deps, calls } = fakes([]);
    assert.deepEqual(
      await finalizeNodeClass(deps, { ...deleted, metadata: { ...deleted.metadata, finalizers: [] } }),
      {},
    );
    assert.deepEqual(calls, []);
  });
});
