import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../../policies/domain/catalog/catalog.ts";
import { simPodFromSpec } from "./pod-spec.ts";
import { simulate } from "./simulate.ts";
import type { DaemonSetView, NodePoolView } from "./types.ts";

const SIZE = "karpenter.k8s.aws/instance-size";

const c5: NodePoolView = {
  name: "default",
  weight: 0,
  labels: {},
  taints: [],
  startupTaints: [],
  instanceTypes: toInstanceTypes(builtinCatalog()),
  requirements: [
    { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["c5"] },
    { key: "karpenter.sh/capacity-type", operator: "In", values: ["on-demand"] },
  ],
};

interface PortSpec {
  hostPort: number;
  protocol?: string;
  hostIP?: string;
}

/** A pod spec with one container using `ports` as host ports, plus `extra` spec fields. */
function spec(ports: readonly PortSpec[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  const container = {
    resources: { requests: { cpu: "100m" } },
    ports: ports.map((p) => ({ containerPort: p.hostPort, ...p })),
  };
  return { containers: [container], ...extra };
}

const daemonSet = (name: string, ports: readonly PortSpec[], extra: Record<string, unknown> = {}): DaemonSetView => ({
  name,
  pod: simPodFromSpec({}, spec(ports, extra), { name, namespace: "kube-system", uid: `daemonset/${name}` }),
});

const onSize = (size: string): Record<string, unknown> => ({ nodeSelector: { [SIZE]: size } });

describe("DaemonSet host ports on new nodes", () => {
  const cases: {
    name: string;
    daemonSets: DaemonSetView[];
    pod: Record<string, unknown>;
    pool?: NodePoolView;
    /** The launch's instance type, undefined when no NodeClaim may be planned. */
    want: string | undefined;
    /** An instance size no option of the NodeClaim may have. */
    offSize?: string;
  }[] = [
    {
      // Karpenter: provisioning/suite_test.go 'should account for daemonset hostports'.
      name: "plans no node for a pod whose host port a DaemonSet on every type uses",
      daemonSets: [daemonSet("ds", [{ hostPort: 8080 }])],
      pod: spec([{ hostPort: 8080 }]),
      want: undefined,
    },
    {
      // Karpenter: provisioning/suite_test.go 'should not account for daemonset hostports when daemonset would not
      // schedule on selected node'.
      name: "ignores the host ports of a DaemonSet that does not run on the types the pod selects",
      daemonSets: [
        daemonSet("large", [{ hostPort: 8080 }], onSize("large")),
        daemonSet("xlarge", [{ hostPort: 8081 }], onSize("xlarge")),
      ],
      pod: spec([{ hostPort: 8080 }], onSize("xlarge")),
      want: "c5.xlarge",
    },
    {
      // Karpenter groups DaemonSets per instance type (scheduler.go buildDaemonOverheadGroups): the port conflict rules
      // out only the types the DaemonSet runs on.
      name: "moves the pod to a type the conflicting DaemonSet does not run on",
      daemonSets: [daemonSet("large", [{ hostPort: 8080 }], onSize("large"))],
      pod: spec([{ hostPort: 8080 }]),
      want: "c5.xlarge",
      offSize: "large",
    },
    {
      name: "lets a pod use the same port number over another protocol",
      daemonSets: [daemonSet("ds", [{ hostPort: 8080, protocol: "UDP" }])],
      pod: spec([{ hostPort: 8080 }]),
      want: "c5.large",
    },
    {
      name: "lets a pod use the same port on another host IP",
      daemonSets: [daemonSet("ds", [{ hostPort: 8080, hostIP: "127.0.0.1" }])],
      pod: spec([{ hostPort: 8080, hostIP: "10.0.0.1" }]),
      want: "c5.large",
    },
    {
      name: "counts a DaemonSet bound to every IP against a pod bound to one",
      daemonSets: [daemonSet("ds", [{ hostPort: 8080 }])],
      pod: spec([{ hostPort: 8080, hostIP: "10.0.0.1" }]),
      want: undefined,
    },
    {
      // Karpenter: provisioning/suite_test.go 'should ignore daemonsets without matching tolerations'.
      name: "ignores a DaemonSet that does not tolerate the NodePool's taint",
      pool: { ...c5, taints: [{ key: "dedicated", value: "x", effect: "NoSchedule" }] },
      daemonSets: [daemonSet("ds", [{ hostPort: 8080 }])],
      pod: spec([{ hostPort: 8080 }], { tolerations: [{ key: "dedicated", operator: "Exists" }] }),
      want: "c5.large",
    },
  ];
  for (const { name, daemonSets, pod, pool, want, offSize } of cases) {
    it(name, () => {
      const p = simPodFromSpec({}, pod, { name: "p", namespace: "default", uid: "p" });
      const r = simulate({ nodes: [], nodePools: [pool ?? c5], daemonSets }, [p]);
      const launched = r.newClaims.map((c) => c.launch.instanceType);
      assert.deepEqual(launched, want === undefined ? [] : [want], r.podErrors[0]?.reason);
      if (want === undefined) assert.match(r.podErrors[0]?.reason ?? "", /hostPort 8080\/TCP is taken by DaemonSet ds/);
      const sizes = new Set(r.newClaims[0]?.instanceTypes.map((t) => t.labels[SIZE]));
      if (offSize !== undefined) assert.equal(sizes.has(offSize), false);
    });
  }
});
