/**
 * Logs each NodePool and EC2NodeClass that sets a Karpenter field kerf's operator ignores: once when first seen
 * (at start, for what already exists) and again only when the list changes, never per reconcile. The status
 * condition (IgnoredFields) is written by the kinds' status controllers; this controller writes nothing.
 */
import type { CoverageKind } from "../../../policies/operator-coverage.ts";
import { IgnoredFieldsMemo } from "../../core/ignored/ignored-fields.ts";
import type { ControllerDeps } from "../controller-deps.ts";
import type { ControllerSpec, Watched } from "../controller-spec.ts";
import type { Result } from "../runtime.ts";

type Deps = Pick<ControllerDeps, "cluster" | "logger">;

const own = (obj: Watched): readonly string[] => (obj.metadata?.name === undefined ? [] : [obj.metadata.name]);

function controller(deps: Deps, memo: IgnoredFieldsMemo, kind: CoverageKind): ControllerSpec {
  const field = kind === "NodePool" ? "nodepool" : "ec2nodeclass";
  return {
    name: `${field}.ignored-fields`,
    watches: kind === "NodePool" ? { nodepools: own } : { ec2nodeclasses: own },
    reconcile: (name): Promise<Result> => {
      const object = kind === "NodePool" ? deps.cluster.nodePool(name) : deps.cluster.nodeClass(name);
      const uses = memo.next(kind, name, object);
      if (uses !== undefined) {
        const fields = uses.map((u) => ({ path: u.path, karpenter: u.feature }));
        deps.logger.warn({ [field]: name, fields }, "kerf's operator ignores these fields");
      }
      return Promise.resolve({});
    },
  };
}

/** The two log controllers (NodePool, EC2NodeClass), sharing one memo. */
export function ignoredFieldsControllers(deps: Deps): ControllerSpec[] {
  const memo = new IgnoredFieldsMemo();
  return [controller(deps, memo, "NodePool"), controller(deps, memo, "EC2NodeClass")];
}
