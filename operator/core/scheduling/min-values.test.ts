import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { builtinCatalog } from "../../../policies/domain/catalog/builtin.ts";
import { toInstanceTypes } from "../../../policies/domain/catalog/catalog.ts";
import { typesMinValuesGap, type InstanceType } from "../../../policies/domain/instance-types.ts";
import { Requirements, type NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";
import { simPodFromSpec } from "./pod-spec.ts";
import { simulate } from "./simulate.ts";
import type { NodePoolView } from "./types.ts";

const catalogTypes = toInstanceTypes(builtinCatalog());
const ZONE = "topology.kubernetes.io/zone";
const CAPACITY_TYPE = "karpenter.sh/capacity-type";
const ZONE_A = "us-east-1a";
const family: NodeSelectorRequirement = { key: "karpenter.k8s.aws/instance-family", operator: "In", values: ["c5"] };
const threeZones: NodeSelectorRequirement = {
  key: ZONE,
  operator: "In",
  values: ["us-east-1a", "us-east-1b", "us-east-1c"],
  minValues: 3,
};

/** The catalog's types, each offered only in `zones` (as Karpenter's fake instance types with two offerings). */
const onlyIn = (zones: readonly string[]): InstanceType[] =>
  catalogTypes.map((t) => ({ ...t, offerings: t.offerings.filter((o) => zones.includes(o.zone)) }));

describe("minValues on offering labels (zone, capacity type) in the simulation", () => {
  const cases: {
    name: string;
    requirements: NodeSelectorRequirement[];
    nodeSelector?: Record<string, string>;
    types?: InstanceType[];
    schedules: boolean;
  }[] = [
    {
      // Karpenter: provisioning/suite_test.go 'with zone requirements': types offered in every required zone
      // meet a zone minValues (the counterpart of 'should not schedule when zone minValues requirement is not met').
      name: "plans a NodeClaim when its types are offered in as many allowed zones as minValues asks",
      requirements: [family, { key: ZONE, operator: "In", values: ["us-east-1a", "us-east-1b"], minValues: 2 }],
      schedules: true,
    },
    {
      name: "counts the zones of a NodePool that leaves the zone open (Exists)",
      requirements: [family, { key: ZONE, operator: "Exists", minValues: 3 }],
      schedules: true,
    },
    {
      // Karpenter: provisioning/suite_test.go 'should not schedule when zone minValues requirement is not met'.
      name: "plans nothing when the types are offered in fewer allowed zones than minValues asks",
      requirements: [family, threeZones],
      types: onlyIn(["us-east-1a", "us-east-1b"]),
      schedules: false,
    },
    {
      // Karpenter: provisioning/suite_test.go 'should not schedule when pod volume topology narrows zones below
      // minValues' (here the pod's zone selector narrows them, as the volume's topology does there).
      name: "plans nothing when the pod narrows the zones below minValues",
      requirements: [family, threeZones],
      nodeSelector: { [ZONE]: "us-east-1a" },
      schedules: false,
    },
    {
      name: "plans a NodeClaim for a capacity-type minValues of 2 when its types sell both",
      requirements: [family, { key: CAPACITY_TYPE, operator: "In", values: ["spot", "on-demand"], minValues: 2 }],
      schedules: true,
    },
    {
      name: "plans nothing for a capacity-type minValues of 2 when the pod asks for spot only",
      requirements: [family, { key: CAPACITY_TYPE, operator: "In", values: ["spot", "on-demand"], minValues: 2 }],
      nodeSelector: { [CAPACITY_TYPE]: "spot" },
      schedules: false,
    },
  ];
  for (const { name, requirements, nodeSelector, types, schedules } of cases) {
    it(name, () => {
      const pool: NodePoolView = {
        name: "default",
        weight: 0,
        labels: {},
        taints: [],
        startupTaints: [],
        requirements,
        instanceTypes: types ?? catalogTypes,
      };
      const spec = { nodeSelector: nodeSelector ?? {}, containers: [{ resources: { requests: { cpu: "900m" } } }] };
      const pod = simPodFromSpec({}, spec, { name: "p", namespace: "default", uid: "p" });
      const r = simulate({ nodes: [], nodePools: [pool], daemonSets: [] }, [pod]);
      assert.equal(r.newClaims.length, schedules ? 1 : 0, r.podErrors[0]?.reason);
      if (!schedules) assert.match(r.podErrors[0]?.reason ?? "", /minValues requirement is not met for label/);
    });
  }
});

describe("typesMinValuesGap", () => {
  const c5 = catalogTypes.filter((t) => t.name === "c5.large");
  const reqs = (...rs: NodeSelectorRequirement[]): Requirements => Requirements.fromSelectors(rs);
  const cases: {
    name: string;
    types: InstanceType[];
    requirements: Requirements;
    want: ReturnType<typeof typesMinValuesGap>;
  }[] = [
    {
      name: "counts only the zones the requirement allows",
      types: c5,
      // c5.large is not sold in us-east-1e.
      requirements: reqs({ ...threeZones, values: ["us-east-1a", "us-east-1b", "us-east-1e"] }),
      want: { key: ZONE, needed: 3, found: 2 },
    },
    {
      // Karpenter counts a type's zone requirement, which lists every zone it is sold in, unavailable offerings too.
      name: "counts a zone whose offerings are unavailable for now",
      types: c5.map((t) => ({ ...t, offerings: t.offerings.map((o) => ({ ...o, available: o.zone === ZONE_A })) })),
      requirements: reqs({ key: ZONE, operator: "In", values: ["us-east-1a", "us-east-1b"], minValues: 2 }),
      want: undefined,
    },
    {
      name: "counts labels of the types as before",
      types: catalogTypes.filter((t) => ["c5.large", "m5.large", "c5.xlarge"].includes(t.name)),
      requirements: reqs({ key: "karpenter.k8s.aws/instance-family", operator: "Exists", minValues: 3 }),
      want: { key: "karpenter.k8s.aws/instance-family", needed: 3, found: 2 },
    },
  ];
  for (const { name, types, requirements, want } of cases) {
    it(name, () => assert.deepEqual(typesMinValuesGap(types, requirements), want));
  }
});
