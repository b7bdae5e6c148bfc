// Instance selection and minValues (Karpenter scheduling/instance_selection_test.go). Karpenter's assorted fake
// types become the default NodePool's families on the real catalog; "the cheapest" is computed from the catalog by
// the harness (cheapestLaunch), not taken from kerf. Windows cases wait for the EC2NodeClass AMI family in
// scenarios (issue 22 cause 2, another helper's scenario.ts work): every bundled type is Linux until then.
import {
  ARCH,
  CAPACITY_TYPE,
  CPU_LABEL,
  FAMILY,
  INSTANCE_TYPE,
  OS,
  ZONE,
  ZONES,
  deployment,
  minValues,
  nodeClass,
  nodePool,
  pod,
  req,
  type Doc,
  type ParityCase,
  type PoolSpec,
  type Source,
} from "./harness.ts";

const sel = (it: string): Source => ({ file: "scheduling/instance_selection_test.go", it });
const [Z1, Z2] = ZONES;
const withPool = (spec: PoolSpec, ...docs: Doc[]): Doc[] => [nodeClass(), nodePool("default", spec), ...docs];

export const cases: ParityCase[] = [
  {
    name: "an unconstrained pod launches at the lowest price of any allowed offering",
    from: sel("should schedule on one of the cheapest instances"),
    scenario: withPool({}, pod("p")),
    expect: { cheapestLaunch: {} },
  },
  {
    name: "a pod requiring amd64 launches at the lowest amd64 price, every option amd64",
    from: sel("should schedule on one of the cheapest instances (pod arch = amd64)"),
    scenario: withPool({}, pod("p", { required: [[req(ARCH, "In", "amd64")]] })),
    expect: { cheapestLaunch: { labels: { [ARCH]: "amd64" } }, everyOption: { [ARCH]: "amd64" } },
  },
  {
    name: "a pod requiring arm64 launches at the lowest arm64 price, every option arm64",
    from: sel("should schedule on one of the cheapest instances (pod arch = arm64)"),
    scenario: withPool({}, pod("p", { required: [[req(ARCH, "In", "arm64")]] })),
    expect: { cheapestLaunch: { labels: { [ARCH]: "arm64" } }, everyOption: { [ARCH]: "arm64" } },
  },
  {
    name: "an amd64 NodePool launches at the lowest amd64 price",
    from: sel("should schedule on one of the cheapest instances (prov arch = amd64)"),
    scenario: withPool({ requirements: [req(ARCH, "In", "amd64")] }, pod("p")),
    expect: { cheapestLaunch: { labels: { [ARCH]: "amd64" } }, everyOption: { [ARCH]: "amd64" } },
  },
  {
    name: "an arm64 NodePool launches at the lowest arm64 price",
    from: sel("should schedule on one of the cheapest instances (prov arch = arm64)"),
    scenario: withPool({ requirements: [req(ARCH, "In", "arm64")] }, pod("p")),
    expect: { cheapestLaunch: { labels: { [ARCH]: "arm64" } }, everyOption: { [ARCH]: "arm64" } },
  },
  {
    name: "a pod requiring linux launches at the lowest linux price",
    from: [sel("should schedule on one of the cheapest instances (pod os = linux)")],
    scenario: withPool({}, pod("p", { required: [[req(OS, "In", "linux")]] })),
    expect: { cheapestLaunch: { labels: { [OS]: "linux" } }, everyOption: { [OS]: "linux" } },
  },
  {
    name: "a zone 2 NodePool launches at the lowest price offered in zone 2",
    from: sel("should schedule on one of the cheapest instances (prov zone = test-zone-2)"),
    scenario: withPool({ requirements: [req(ZONE, "In", Z2)] }, pod("p")),
    expect: { cheapestLaunch: { zones: [Z2] }, nodeLabels: { p: { [ZONE]: Z2 } } },
  },
  {
    name: "a pod requiring zone 2 launches at the lowest price offered in zone 2",
    from: sel("should schedule on one of the cheapest instances (pod zone = test-zone-2)"),
    scenario: withPool({}, pod("p", { required: [[req(ZONE, "In", Z2)]] })),
    expect: { cheapestLaunch: { zones: [Z2] }, nodeLabels: { p: { [ZONE]: Z2 } } },
  },
  {
    name: "a spot NodePool launches at the lowest spot price",
    from: sel("should schedule on one of the cheapest instances (prov ct = spot)"),
    scenario: withPool({ requirements: [req(CAPACITY_TYPE, "In", "spot")] }, pod("p")),
    expect: { cheapestLaunch: { capacityTypes: ["spot"] }, nodeLabels: { p: { [CAPACITY_TYPE]: "spot" } } },
  },
  {
    name: "a pod requiring spot launches at the lowest spot price",
    from: sel("should schedule on one of the cheapest instances (pod ct = spot)"),
    scenario: withPool({}, pod("p", { required: [[req(CAPACITY_TYPE, "In", "spot")]] })),
    expect: { cheapestLaunch: { capacityTypes: ["spot"] }, nodeLabels: { p: { [CAPACITY_TYPE]: "spot" } } },
  },
  {
    name: "an on-demand NodePool in zone 1 launches at the lowest on-demand price there",
    from: sel("should schedule on one of the cheapest instances (prov ct = ondemand, prov zone = test-zone-1)"),
    scenario: withPool({ requirements: [req(CAPACITY_TYPE, "In", "on-demand"), req(ZONE, "In", Z1)] }, pod("p")),
    expect: {
      cheapestLaunch: { capacityTypes: ["on-demand"], zones: [Z1] },
      nodeLabels: { p: { [CAPACITY_TYPE]: "on-demand", [ZONE]: Z1 } },
    },
  },
  {
    name: "a pod requiring spot in zone 1 launches at the lowest spot price there",
    from: sel("should schedule on one of the cheapest instances (pod ct = spot, pod zone = test-zone-1)"),
    scenario: withPool({}, pod("p", { required: [[req(CAPACITY_TYPE, "In", "spot"), req(ZONE, "In", Z1)]] })),
    expect: {
      cheapestLaunch: { capacityTypes: ["spot"], zones: [Z1] },
      nodeLabels: { p: { [CAPACITY_TYPE]: "spot", [ZONE]: Z1 } },
    },
  },
  {
    name: "a spot NodePool and a pod requiring zone 2 launch at the lowest spot price in zone 2",
    from: sel("should schedule on one of the cheapest instances (prov ct = spot, pod zone = test-zone-2)"),
    scenario: withPool(
      { requirements: [req(CAPACITY_TYPE, "In", "spot")] },
      pod("p", { required: [[req(ZONE, "In", Z2)]] }),
    ),
    expect: { cheapestLaunch: { capacityTypes: ["spot"], zones: [Z2] } },
  },
  {
    name: "a spot zone 2 NodePool and an amd64 linux pod launch at the lowest such price",
    from: sel("should schedule on one of the cheapest instances (prov = spot/test-zone-2, pod = amd64/linux)"),
    scenario: withPool(
      { requirements: [req(CAPACITY_TYPE, "In", "spot"), req(ZONE, "In", Z2)] },
      pod("p", { required: [[req(ARCH, "In", "amd64"), req(OS, "In", "linux")]] }),
    ),
    expect: {
      cheapestLaunch: { capacityTypes: ["spot"], zones: [Z2], labels: { [ARCH]: "amd64" } },
      everyOption: { [ARCH]: "amd64" },
    },
  },
  {
    name: "a pod requiring spot, zone 2, amd64 and linux launches at the lowest such price",
    from: sel("should schedule on one of the cheapest instances (pod ct = spot/test-zone-2/amd64/linux)"),
    scenario: withPool(
      {},
      pod("p", {
        required: [
          [req(CAPACITY_TYPE, "In", "spot"), req(ZONE, "In", Z2), req(ARCH, "In", "amd64"), req(OS, "In", "linux")],
        ],
      }),
    ),
    expect: { cheapestLaunch: { capacityTypes: ["spot"], zones: [Z2], labels: { [ARCH]: "amd64" } } },
  },
  {
    name: "an arm64 pod is unschedulable when no arm64 type is allowed",
    from: sel("should not schedule if no instance type matches selector (pod arch = arm)"),
    scenario: withPool(
      { requirements: [req(ARCH, "In", "amd64")] },
      pod("p", { required: [[req(ARCH, "In", "arm64")]] }),
    ),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "an arm64 pod in zone 2 is unschedulable when arm64 types are offered only in zone 1",
    from: [
      sel("should not schedule if no instance type matches selector (pod arch = arm zone=test-zone-2)"),
      sel("should not schedule if no instance type matches selector (prov arch = arm / pod zone=test-zone-2)"),
    ],
    scenario: [
      nodeClass(),
      nodePool("amd", { requirements: [req(ARCH, "In", "amd64")] }),
      nodePool("arm", { requirements: [req(ARCH, "In", "arm64"), req(ZONE, "In", Z1)] }),
      pod("p", { required: [[req(ARCH, "In", "arm64"), req(ZONE, "In", Z2)]] }),
    ],
    expect: { unschedulable: ["p"] },
  },
  {
    name: "every option of the NodeClaim holds all three pods it is planned for",
    from: sel("should schedule on an instance with enough resources"),
    scenario: withPool({}, deployment("p", 3, { cpu: "2500m", memory: "4Gi" })),
    expect: { newNodes: 1, optionsHold: { cpu: "7500m", memory: "12Gi" } },
  },
  {
    name: "an on-demand NodePool picks the type cheapest on demand, whatever the spot prices",
    from: sel(
      "should schedule on cheaper on-demand instance even when spot price ordering would place other " +
        "instance types first",
    ),
    scenario: withPool({ requirements: [req(CAPACITY_TYPE, "In", "on-demand")] }, pod("p")),
    expect: { cheapestLaunch: { capacityTypes: ["on-demand"] } },
  },
  // MinValues
  {
    name: "minValues on the instance type keeps at least that many types among the options",
    from: sel("should schedule respecting the minValues from instance-type requirements"),
    scenario: withPool({ requirements: [minValues(req(INSTANCE_TYPE, "Exists"), 3)] }, pod("p")),
    expect: { scheduled: ["p"], optionValues: { [INSTANCE_TYPE]: 3 } },
  },
  {
    name: "minValues on a Gt requirement keeps that many values of the label among the options",
    from: sel("should schedule respecting the minValues in Gt operator"),
    scenario: withPool({ requirements: [minValues(req(CPU_LABEL, "Gt", "4"), 3)] }, pod("p")),
    expect: { scheduled: ["p"], optionValues: { [CPU_LABEL]: 3 } },
  },
  {
    name: "minValues on a Gt requirement more values than exist above the bound leaves the pod unschedulable",
    from: sel("scheduler should fail if the minValues in Gt operator is not satisfied"),
    scenario: withPool({ requirements: [minValues(req(CPU_LABEL, "Gt", "48"), 5)] }, pod("p")),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "minValues on an Lt requirement keeps that many values of the label among the options",
    from: sel("should schedule respecting the minValues in Lt operator"),
    scenario: withPool({ requirements: [minValues(req(CPU_LABEL, "Lt", "16"), 3)] }, pod("p")),
    expect: { scheduled: ["p"], optionValues: { [CPU_LABEL]: 3 } },
  },
  {
    name: "minValues on an Lt requirement more values than exist below the bound leaves the pod unschedulable",
    from: sel("scheduler should fail if the minValues in Lt operator is not satisfied"),
    scenario: withPool({ requirements: [minValues(req(CPU_LABEL, "Lt", "4"), 3)] }, pod("p")),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "In and NotIn on the same key with minValues: the larger minValues holds",
    from: [
      sel(
        "should schedule considering the max of the minValues of In and NotIn operators in the instance-type " +
          "requirements",
      ),
      sel(
        "should schedule and pick the max of minValues of InstanceTypes if multiple operators are used for the " +
          "same requirement.",
      ),
    ],
    scenario: withPool(
      {
        requirements: [
          minValues(req(INSTANCE_TYPE, "In", "m5.large", "m5.xlarge", "c5.large", "c5.xlarge"), 2),
          minValues(req(INSTANCE_TYPE, "NotIn", "m5.2xlarge"), 3),
        ],
      },
      pod("p"),
    ),
    expect: { scheduled: ["p"], optionValues: { [INSTANCE_TYPE]: 3 } },
  },
  {
    name: "Gt and Lt on the same key with minValues: the larger minValues holds",
    from: sel("should schedule considering the max of the minValues of Gt and Lt operators."),
    scenario: withPool(
      { requirements: [minValues(req(CPU_LABEL, "Gt", "1"), 2), minValues(req(CPU_LABEL, "Lt", "64"), 4)] },
      pod("p"),
    ),
    expect: { scheduled: ["p"], optionValues: { [CPU_LABEL]: 4 } },
  },
  {
    name: "minValues above the number of allowed instance types leaves the pod unschedulable",
    from: sel(
      "schedule should fail if minimum number of InstanceTypes is not met as per the minValues in the " + "requirement",
    ),
    scenario: withPool(
      { onlyRequirements: [req(FAMILY, "In", "m5"), minValues(req(INSTANCE_TYPE, "Exists"), 11)] },
      pod("p"),
    ),
    expect: { unschedulable: ["p"] },
  },
  {
    name: "minValues the options no longer meet once truncated to the maximum kept leaves the pods unschedulable",
    from: sel(
      "schedule should fail if minimum number of InstanceTypes is not met as per the minValues in the " +
        "requirement after truncation",
    ),
    scenario: withPool(
      { requirements: [minValues(req(INSTANCE_TYPE, "In", "m6g.medium", "m6g.xlarge"), 2)] },
      pod("a", { cpu: "900m", memory: "900Mi" }),
      pod("b", { cpu: "900m", memory: "900Mi" }),
    ),
    expect: { unschedulable: ["a", "b"] },
    options: { maxInstanceTypes: 1 },
  },
  {
    name: "minValues on two keys (family and instance type) both hold",
    from: sel("should schedule and respect multiple requirement keys with minValues"),
    scenario: withPool(
      { requirements: [minValues(req(FAMILY, "Exists"), 3), minValues(req(INSTANCE_TYPE, "Exists"), 10)] },
      pod("p"),
    ),
    expect: { scheduled: ["p"], optionValues: { [FAMILY]: 3, [INSTANCE_TYPE]: 10 } },
  },
];
