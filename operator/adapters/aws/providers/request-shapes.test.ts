import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { buildLaunchTemplate } from "../../../core/launch-template/template.ts";
import { aliasParameters, AliasError } from "./ami-paths.ts";
import { createFleetInput, toCloudInstance } from "./instance.ts";
import { toLaunchTemplateData } from "./launchtemplate.ts";
import { termFilters } from "./selector-filters.ts";

void describe("selector filters", () => {
  const cases = [
    { term: { id: "subnet-1" }, want: [{ Name: "subnet-id", Values: ["subnet-1"] }] },
    {
      term: { tags: { a: "1", b: "*" } },
      want: [
        { Name: "tag:a", Values: ["1"] },
        { Name: "tag-key", Values: ["b"] },
      ],
    },
    { term: { name: "default" }, want: [{ Name: "group-name", Values: ["default"] }] },
  ];
  for (const c of cases) {
    void it(`should turn ${JSON.stringify(c.term)} into ANDed filters`, () => {
      assert.deepEqual(
        termFilters(c.term, { id: c.term.id === undefined ? "group-id" : "subnet-id", name: "group-name" }),
        c.want,
      );
    });
  }
});

void describe("AMI alias parameters", () => {
  void it("should read al2023 recommended images per arch and variant under the configured prefix", () => {
    const paths = aliasParameters("al2023@latest", "/kerf-test/aws/service", "1.36").map((p) => p.path);
    assert.deepEqual(paths, [
      "/kerf-test/aws/service/eks/optimized-ami/1.36/amazon-linux-2023/x86_64/standard/recommended/image_id",
      "/kerf-test/aws/service/eks/optimized-ami/1.36/amazon-linux-2023/x86_64/nvidia/recommended/image_id",
      "/kerf-test/aws/service/eks/optimized-ami/1.36/amazon-linux-2023/x86_64/neuron/recommended/image_id",
      "/kerf-test/aws/service/eks/optimized-ami/1.36/amazon-linux-2023/arm64/standard/recommended/image_id",
      "/kerf-test/aws/service/eks/optimized-ami/1.36/amazon-linux-2023/arm64/nvidia/recommended/image_id",
    ]);
  });

  void it("should pin al2023 and bottlerocket versions in the parameter path", () => {
    assert.equal(
      aliasParameters("al2023@v20240807", "/aws/service", "1.30")[0]?.path,
      "/aws/service/eks/optimized-ami/1.30/amazon-linux-2023/x86_64/standard/" +
        "amazon-eks-node-al2023-x86_64-standard-1.30-v20240807/image_id",
    );
    assert.equal(
      aliasParameters("bottlerocket@v1.20.3", "/aws/service", "1.30")[0]?.path,
      "/aws/service/bottlerocket/aws-k8s-1.30/x86_64/1.20.3/image_id",
    );
    assert.equal(
      aliasParameters("windows2022@latest", "/aws/service", "1.30")[0]?.path,
      "/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.30/image_id",
    );
  });

  void it("should refuse AL2 on Kubernetes 1.33 and later and unknown families", () => {
    assert.throws(() => aliasParameters("al2@latest", "/aws/service", "1.33"), AliasError);
    assert.equal(aliasParameters("al2@latest", "/aws/service", "1.32").length, 3);
    assert.throws(() => aliasParameters("ubuntu@latest", "/aws/service", "1.32"), AliasError);
  });
});

void describe("request shapes", () => {
  const plan = {
    kind: "launch" as const,
    capacityType: "spot" as const,
    allocationStrategy: "price-capacity-optimized" as const,
    overrides: [
      { instanceType: "m5.large", zone: "us-east-1b", subnetId: "subnet-b", priority: 0.03 },
      { instanceType: "m6g.large", zone: "us-east-1a", subnetId: "subnet-a", priority: 0.035 },
    ],
  };

  void it("should build an instant fleet with one config per launch template and tags for instance and volume", () => {
    const input = createFleetInput({
      plan,
      tags: { "karpenter.sh/nodeclaim": "c" },
      templates: [
        { launchTemplateId: "lt-x86", launchTemplateName: "a", instanceTypes: ["m5.large"] },
        { launchTemplateId: "lt-arm", launchTemplateName: "b", instanceTypes: ["m6g.large"] },
      ],
    });
    assert.equal(input.Type, "instant");
    assert.deepEqual(input.TargetCapacitySpecification, { TotalTargetCapacity: 1, DefaultTargetCapacityType: "spot" });
    assert.deepEqual(input.SpotOptions, { AllocationStrategy: "price-capacity-optimized" });
    assert.equal(input.OnDemandOptions, undefined);
    assert.deepEqual(
      input.LaunchTemplateConfigs?.map((c) => [
        c.LaunchTemplateSpecification?.LaunchTemplateId,
        c.Overrides?.map((o) => [o.InstanceType, o.SubnetId, o.AvailabilityZone, o.Priority]),
      ]),
      [
        ["lt-x86", [["m5.large", "subnet-b", "us-east-1b", 0.03]]],
        ["lt-arm", [["m6g.large", "subnet-a", "us-east-1a", 0.035]]],
      ],
    );
    assert.deepEqual(
      input.TagSpecifications?.map((t) => t.ResourceType),
      ["instance", "volume"],
    );
  });

  void it("should base64 the user data and carry devices and IMDS into the launch-template data", () => {
    const spec = buildLaunchTemplate({
      clusterName: "c",
      clusterEndpoint: "https://c",
      nodeClass: {
        amiSelectorTerms: [{ alias: "al2023@latest" }],
        subnetSelectorTerms: [],
        securityGroupSelectorTerms: [],
        instanceProfile: "prof",
      },
      imageId: "ami-1",
      securityGroupIds: ["sg-1"],
      labels: {},
      taints: [],
    });
    const data = toLaunchTemplateData(spec);
    assert.equal(Buffer.from(data.UserData ?? "", "base64").toString("utf8"), spec.userData);
    assert.deepEqual(data.SecurityGroupIds, ["sg-1"]);
    assert.deepEqual(data.IamInstanceProfile, { Name: "prof" });
    assert.deepEqual(data.MetadataOptions, {
      HttpEndpoint: "enabled",
      HttpProtocolIpv6: "disabled",
      HttpPutResponseHopLimit: 1,
      HttpTokens: "required",
    });
    assert.equal(data.BlockDeviceMappings?.[0]?.Ebs?.VolumeSize, 20);
  });
});

void describe("reserved launch request shapes", () => {
  const reservedPlan = (type: "default" | "capacity-block", interruptible: boolean) => ({
    kind: "launch" as const,
    capacityType: "reserved" as const,
    allocationStrategy: "lowest-price" as const,
    overrides: [
      {
        instanceType: "m5.large",
        zone: "us-east-1a",
        subnetId: "subnet-a",
        priority: 1e-8,
        reservation: { id: "cr-1", type, interruptible },
      },
      {
        instanceType: "m5.large",
        zone: "us-east-1b",
        subnetId: "subnet-b",
        priority: 1e-8,
        reservation: { id: "cr-2", type, interruptible },
      },
    ],
  });
  const templates = [
    { launchTemplateId: "lt-1", launchTemplateName: "a", instanceTypes: ["m5.large"], reservationId: "cr-1" },
    { launchTemplateId: "lt-2", launchTemplateName: "b", instanceTypes: ["m5.large"], reservationId: "cr-2" },
  ];
  const markets = [
    {
      name: "a default reservation launches on-demand with lowest-price",
      type: "default" as const,
      interruptible: false,
      target: "on-demand",
      onDemand: { AllocationStrategy: "lowest-price" },
      reserved: undefined,
    },
    {
      name: "a capacity block launches in the capacity-block market",
      type: "capacity-block" as const,
      interruptible: false,
      target: "capacity-block",
      onDemand: undefined,
      reserved: undefined,
    },
    {
      name: "an interruptible reservation launches as reserved-capacity",
      type: "default" as const,
      interruptible: true,
      target: "reserved-capacity",
      onDemand: undefined,
      reserved: { ReservationTypes: ["interruptible-capacity-reservation"] },
    },
  ];
  for (const m of markets) {
    void it(`should say so in CreateFleet: ${m.name}, each reservation's override under its own template`, () => {
      const input = createFleetInput({ plan: reservedPlan(m.type, m.interruptible), templates, tags: {} });
      assert.deepEqual(input.TargetCapacitySpecification, {
        TotalTargetCapacity: 1,
        DefaultTargetCapacityType: m.target,
      });
      assert.deepEqual(input.OnDemandOptions, m.onDemand);
      assert.deepEqual(input.ReservedCapacityOptions, m.reserved);
      assert.equal(input.SpotOptions, undefined);
      assert.deepEqual(
        input.LaunchTemplateConfigs?.map((c) => [
          c.LaunchTemplateSpecification?.LaunchTemplateId,
          c.Overrides?.map((o) => o.AvailabilityZone),
        ]),
        [
          ["lt-1", ["us-east-1a"]],
          ["lt-2", ["us-east-1b"]],
        ],
      );
    });
  }

  const lt = (capacityReservation?: { id: string; type: "default" | "capacity-block"; interruptible: boolean }) =>
    buildLaunchTemplate({
      clusterName: "c",
      clusterEndpoint: "https://c",
      nodeClass: {
        amiSelectorTerms: [{ alias: "al2023@latest" }],
        subnetSelectorTerms: [],
        securityGroupSelectorTerms: [],
        instanceProfile: "prof",
      },
      imageId: "ami-1",
      securityGroupIds: ["sg-1"],
      labels: {},
      taints: [],
      capacityReservation,
    });
  void it("should target the reservation only (capacity-reservations-only) in the reserved launch template, in its market", () => {
    assert.deepEqual(
      toLaunchTemplateData(lt({ id: "cr-1", type: "default", interruptible: false })).CapacityReservationSpecification,
      {
        CapacityReservationPreference: "capacity-reservations-only",
        CapacityReservationTarget: { CapacityReservationId: "cr-1" },
      },
    );
    assert.equal(
      toLaunchTemplateData(lt({ id: "cr-1", type: "default", interruptible: false })).InstanceMarketOptions,
      undefined,
    );
    assert.deepEqual(
      toLaunchTemplateData(lt({ id: "cr-1", type: "capacity-block", interruptible: false })).InstanceMarketOptions,
      { MarketType: "capacity-block" },
    );
    assert.deepEqual(
      toLaunchTemplateData(lt({ id: "cr-1", type: "default", interruptible: true })).InstanceMarketOptions,
      { MarketType: "interruptible-capacity-reservation" },
    );
  });

  void it("should keep a template per reservation and leave spot and on-demand templates as they were", () => {
    assert.notEqual(
      lt({ id: "cr-1", type: "default", interruptible: false }).name,
      lt({ id: "cr-2", type: "default", interruptible: false }).name,
    );
    assert.equal(toLaunchTemplateData(lt()).CapacityReservationSpecification, undefined);
    assert.equal(lt().name, lt(undefined).name);
  });
});

void describe("instances in a capacity reservation", () => {
  const base = {
    InstanceId: "i-1",
    InstanceType: "m5.large" as const,
    Placement: { AvailabilityZone: "us-east-1a" },
    State: { Name: "running" as const },
  };
  const cases = [
    {
      name: "an instance launched into a reservation only is reserved, with the reservation",
      i: {
        ...base,
        CapacityReservationId: "cr-1",
        CapacityReservationSpecification: { CapacityReservationPreference: "capacity-reservations-only" as const },
      },
      capacityType: "reserved",
      reservation: { id: "cr-1", type: "default", interruptible: false },
    },
    {
      name: "a capacity-block instance says its reservation is a block",
      i: {
        ...base,
        InstanceLifecycle: "capacity-block" as const,
        CapacityReservationId: "cr-1",
        CapacityReservationSpecification: { CapacityReservationPreference: "capacity-reservations-only" as const },
      },
      capacityType: "reserved",
      reservation: { id: "cr-1", type: "capacity-block", interruptible: false },
    },
    {
      name: "an on-demand instance EC2 matched to an open reservation stays on-demand (as in Karpenter)",
      i: {
        ...base,
        CapacityReservationId: "cr-1",
        CapacityReservationSpecification: { CapacityReservationPreference: "open" as const },
      },
      capacityType: "on-demand",
      reservation: undefined,
    },
  ];
  for (const c of cases) {
    void it(`should read ${c.name}`, () => {
      const got = toCloudInstance(c.i);
      assert.equal(got.capacityType, c.capacityType);
      assert.deepEqual(got.capacityReservation, c.reservation);
    });
  }
});
