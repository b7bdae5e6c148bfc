// Structural schema of EC2NodeClass spec.kubelet (typed, as released in v1.14.1; HEAD makes it schemaless).
import * as P from "../patterns.ts";
import type { RulesAt } from "./common.ts";
import { arr, bool, int, map, obj, str, withRules, type SchemaNode } from "./openapi.ts";

/** The kubelet block with its 10 CEL rules. */
export function kubelet(at: RulesAt): SchemaNode {
  const eviction = (on: string): SchemaNode => withRules(map(str({ pattern: P.EVICTION_VALUE })), at(on));
  const reserved = (on: string): SchemaNode => withRules(map(str({ pattern: P.QUANTITY })), at(on));
  const node = obj({
    clusterDNS: arr(str()),
    cpuCFSQuota: bool(),
    evictionHard: eviction(".spec.kubelet.evictionHard"),
    evictionMaxPodGracePeriod: int({ format: "int32" }),
    evictionSoft: eviction(".spec.kubelet.evictionSoft"),
    evictionSoftGracePeriod: withRules(map(str()), at(".spec.kubelet.evictionSoftGracePeriod")),
    imageGCHighThresholdPercent: int({ format: "int32", maximum: 100, minimum: 0 }),
    imageGCLowThresholdPercent: int({ format: "int32", maximum: 100, minimum: 0 }),
    kubeReserved: reserved(".spec.kubelet.kubeReserved"),
    maxPods: int({ format: "int32", minimum: 0 }),
    podsPerCore: int({ format: "int32", minimum: 0 }),
    systemReserved: reserved(".spec.kubelet.systemReserved"),
  });
  return withRules(node, at(".spec.kubelet"));
}
