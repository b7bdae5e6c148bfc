// Structural schema of NodeClaim (karpenter.sh/v1) at v1.14.1, AWS copy: the single source for ajv and the CRD.
import { upstreamRulesAt } from "../upstream-rules.ts";
import * as P from "../patterns.ts";
import { conditions, envelope, nodeClassRef, requirements, resourceList, taints } from "./common.ts";
import { obj, str, withRules, type SchemaNode, type ValidationRule } from "./openapi.ts";

const at = (on: string): ValidationRule[] => upstreamRulesAt("NodeClaim", on);

function spec(): SchemaNode {
  const node = obj(
    {
      expireAfter: str({ default: "720h", pattern: P.DURATION }),
      nodeClassRef: nodeClassRef(at, ".spec.nodeClassRef"),
      requirements: requirements(at, ".spec.requirements"),
      resources: obj({ requests: resourceList() }),
      startupTaints: taints(),
      taints: taints(),
      terminationGracePeriod: str({ pattern: P.TERMINATION_GRACE_PERIOD }),
    },
    { required: ["nodeClassRef", "requirements"] },
  );
  return withRules(node, at(".spec"));
}

function status(): SchemaNode {
  return obj({
    allocatable: resourceList(),
    capacity: resourceList(),
    conditions: conditions({ nodeClaim: true, listMap: true }),
    imageID: str(),
    lastPodEventTime: str({ format: "date-time" }),
    nodeName: str(),
    providerID: str(),
  });
}

/** openAPIV3Schema of the NodeClaim CRD. */
export const NODECLAIM_SCHEMA: SchemaNode = envelope(spec(), status(), ["spec"]);
