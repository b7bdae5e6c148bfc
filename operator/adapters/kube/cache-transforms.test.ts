import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import type { V1Node, V1Pod } from "@kubernetes/client-node";
import { slimNode, slimObject, slimPod } from "./cache-transforms.ts";

const managed = [{ manager: "kubectl", operation: "Apply", fieldsV1: {} }];

function pod(): V1Pod {
  return {
    metadata: {
      name: "p",
      namespace: "default",
      managedFields: managed,
      annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{…}", "karpenter.sh/do-not-disrupt": "true" },
      ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "u", controller: true }],
    },
    spec: {
      priority: 10,
      nodeSelector: { "kubernetes.io/arch": "arm64" },
      tolerations: [{ key: "gpu", operator: "Exists" }],
      initContainers: [
        {
          name: "sidecar",
          image: "envoy",
          restartPolicy: "Always",
          resources: { requests: { cpu: "100m" } },
          env: [{ name: "A", value: "1" }],
        },
      ],
      containers: [
        {
          name: "app",
          image: "app:1",
          resources: { requests: { cpu: "1", memory: "1Gi" } },
          ports: [{ containerPort: 80, hostPort: 8080 }],
          env: [{ name: "B", value: "2" }],
          command: ["/app"],
          args: ["--serve"],
          livenessProbe: { httpGet: { port: 80 } },
          volumeMounts: [{ name: "v", mountPath: "/v" }],
          securityContext: { runAsNonRoot: true },
        },
      ],
      volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data" } }],
    },
    status: {
      phase: "Running",
      conditions: [{ type: "Ready", status: "True" }],
      containerStatuses: [{ name: "app", image: "app:1", imageID: "x", ready: true, restartCount: 0 }],
    },
  };
}

void describe("the informer cache transforms", () => {
  void it("should keep every pod field scheduling, drain and metrics read", () => {
    const slim = slimPod(pod());
    const container = slim.spec?.containers[0];
    assert.deepEqual(container, {
      name: "app",
      image: "app:1",
      resources: { requests: { cpu: "1", memory: "1Gi" } },
      ports: [{ containerPort: 80, hostPort: 8080 }],
    });
    assert.deepEqual(slim.spec?.initContainers?.[0], {
      name: "sidecar",
      image: "envoy",
      restartPolicy: "Always",
      resources: { requests: { cpu: "100m" } },
    });
    assert.deepEqual(slim.spec?.nodeSelector, { "kubernetes.io/arch": "arm64" });
    assert.equal(slim.spec?.priority, 10);
    assert.equal(slim.spec?.volumes?.[0]?.persistentVolumeClaim?.claimName, "data");
    assert.deepEqual(slim.metadata?.annotations, { "karpenter.sh/do-not-disrupt": "true" });
    assert.equal(slim.metadata?.ownerReferences?.[0]?.kind, "ReplicaSet");
    assert.deepEqual(slim.status, { phase: "Running", conditions: [{ type: "Ready", status: "True" }] });
  });

  void it("should drop managed fields, last-applied configuration and unread container fields from pods", () => {
    const slim = slimPod(pod());
    assert.equal(slim.metadata?.managedFields, undefined);
    assert.equal(JSON.stringify(slim).includes("livenessProbe"), false);
    assert.equal(JSON.stringify(slim).includes("--serve"), false);
  });

  void it("should drop a node's image list but keep its capacity, labels and conditions", () => {
    const node: V1Node = {
      metadata: { name: "n", labels: { a: "b" }, managedFields: managed },
      status: {
        capacity: { cpu: "4" },
        conditions: [{ type: "Ready", status: "True" }],
        images: [{ names: ["big:1"], sizeBytes: 1 }],
      },
    };
    const slim = slimNode(node);
    assert.deepEqual(slim, {
      metadata: { name: "n", labels: { a: "b" } },
      status: { capacity: { cpu: "4" }, conditions: [{ type: "Ready", status: "True" }] },
    });
  });

  void it("should leave an object without the slimmed parts as it was", () => {
    assert.deepEqual(slimObject({ metadata: { name: "x" } }), { metadata: { name: "x" } });
    assert.deepEqual(slimPod({ metadata: { name: "x" } }), { metadata: { name: "x" } });
  });

  void it("should leave the parts it trims in V8's fast mode, not as dictionaries (delete would)", () => {
    // %HasFastProperties needs --allow-natives-syntax, so the check runs in a child process.
    const url = JSON.stringify(new URL("./cache-transforms.ts", import.meta.url).href);
    const podJson = JSON.stringify(pod());
    const nodeJson = '{"metadata":{"name":"n","managedFields":[{}],"labels":{}},"status":{"images":[],"capacity":{}}}';
    const script = `const { slimNode, slimPod } = await import(${url});
      const fast = new Function("o", "return %HasFastProperties(o)");
      const p = slimPod(JSON.parse(${JSON.stringify(podJson)}));
      const n = slimNode(JSON.parse('${nodeJson}'));
      console.log(JSON.stringify([fast(p.metadata), fast(p.metadata.annotations), fast(p.spec.containers[0]),
        fast(p.spec.initContainers[0]), fast(p.status), fast(n.metadata), fast(n.status)]));`;
    const child = spawnSync(process.execPath, ["--allow-natives-syntax", "--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    assert.equal(child.status, 0, child.stderr);
    assert.deepEqual(JSON.parse(child.stdout), [true, true, true, true, true, true, true]);
  });
});
