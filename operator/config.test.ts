import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ConfigError, loadConfig, usage } from "./config.ts";

const base = { CLUSTER_NAME: "demo", AWS_REGION: "us-east-1" };

void describe("operator configuration", () => {
  void it("should apply Karpenter's defaults when only the cluster and region are given", () => {
    const cfg = loadConfig({ argv: [], env: base, hostname: "h", pid: 7 });
    assert.equal(cfg.batchMaxDurationMs, 10_000);
    assert.equal(cfg.batchIdleDurationMs, 1_000);
    assert.equal(cfg.leaderElectionName, "karpenter-leader-election");
    assert.equal(cfg.leaseDurationMs, 15_000);
    assert.equal(cfg.renewDeadlineMs, 10_000);
    assert.equal(cfg.retryPeriodMs, 2_000);
    assert.equal(cfg.launchTimeoutMs, 300_000);
    assert.equal(cfg.registrationTimeoutMs, 900_000);
    assert.equal(cfg.leaderElectionNamespace, "kube-system");
    assert.equal(cfg.leaderElectionIdentity, "h_7");
    assert.equal(cfg.featureGates["SpotToSpotConsolidation"], false);
    assert.equal(cfg.maxPriceRatio, 20);
    assert.equal(Object.isFrozen(cfg), true);
  });

  void it("should keep Karpenter's default for each feature gate --feature-gates does not name", () => {
    const cases: [string, Record<string, boolean>][] = [
      [
        "NodeRepair=true,StaticCapacity=true",
        { NodeRepair: true, StaticCapacity: true, ReservedCapacity: true, SpotToSpotConsolidation: false },
      ],
      [
        "ReservedCapacity=false",
        { ReservedCapacity: false, NodeRepair: false, NodeOverlay: false, CapacityBuffer: false },
      ],
      // A gate kerf does not implement parses like the others; the operator names it in a warning at start.
      ["NodeRepair=true,TerminateFirstRepair=true", { NodeRepair: true, TerminateFirstRepair: true }],
    ];
    for (const [gates, want] of cases) {
      const cfg = loadConfig({ argv: ["--feature-gates", gates], env: base });
      for (const [name, on] of Object.entries(want)) assert.equal(cfg.featureGates[name], on, `${gates}: ${name}`);
    }
  });

  void it("should let a flag win over its environment variable", () => {
    const cfg = loadConfig({
      argv: ["--batch-idle-duration", "500ms", "--cluster-name=flagged"],
      env: { ...base, BATCH_IDLE_DURATION: "3s" },
    });
    assert.equal(cfg.batchIdleDurationMs, 500);
    assert.equal(cfg.clusterName, "flagged");
  });

  void it("should read every flag from its upper-snake-case environment variable", () => {
    const cfg = loadConfig({
      argv: [],
      env: {
        ...base,
        INTERRUPTION_QUEUE: "q",
        AWS_ENDPOINT_URL: "http://127.0.0.1:5000",
        DISABLE_LEADER_ELECTION: "true",
        POD_NAMESPACE: "karpenter",
      },
    });
    assert.equal(cfg.interruptionQueue, "q");
    assert.equal(cfg.awsEndpoint, "http://127.0.0.1:5000");
    assert.equal(cfg.disableLeaderElection, true);
    assert.equal(cfg.leaderElectionNamespace, "karpenter");
  });

  void it("should leave the cluster endpoint and CA bundle to discovery and assume a reachable EKS API by default", () => {
    const cfg = loadConfig({ argv: [], env: base });
    assert.equal(cfg.clusterEndpoint, "");
    assert.equal(cfg.clusterCABundle, "");
    assert.equal(cfg.isolatedVPC, false);
  });

  void it("should read Karpenter's cluster endpoint, CA bundle and isolated-VPC settings from flags or their environment variables", () => {
    const fromEnv = loadConfig({
      argv: [],
      env: {
        ...base,
        CLUSTER_ENDPOINT: "https://ABC.gr7.us-east-1.eks.amazonaws.com",
        CLUSTER_CA_BUNDLE: "Q0E=",
        ISOLATED_VPC: "true",
      },
    });
    assert.deepEqual(
      [fromEnv.clusterEndpoint, fromEnv.clusterCABundle, fromEnv.isolatedVPC],
      ["https://ABC.gr7.us-east-1.eks.amazonaws.com", "Q0E=", true],
    );
    const fromFlags = loadConfig({
      argv: ["--cluster-endpoint", "https://10.0.1.5:6443", "--isolated-vpc"],
      env: { ...base, CLUSTER_ENDPOINT: "https://ignored.example" },
    });
    assert.deepEqual([fromFlags.clusterEndpoint, fromFlags.isolatedVPC], ["https://10.0.1.5:6443", true]);
  });

  void it("should turn node repair on with NodeRepair=true and accept Karpenter's --legacy-node-repair", () => {
    assert.equal(loadConfig({ argv: [], env: base }).featureGates["NodeRepair"], false);
    const on = loadConfig({ argv: ["--feature-gates", "NodeRepair=true", "--legacy-node-repair"], env: base });
    assert.deepEqual([on.featureGates["NodeRepair"], on.legacyNodeRepair], [true, true]);
  });

  void it("should leave the expendable-pods priority cutoff off by default and read it from the flag or its env var", () => {
    assert.equal(loadConfig({ argv: [], env: base }).expendablePodsPriorityCutoff, undefined);
    assert.equal(
      loadConfig({ argv: ["--expendable-pods-priority-cutoff=-10"], env: base }).expendablePodsPriorityCutoff,
      -10,
    );
    assert.equal(
      loadConfig({ argv: [], env: { ...base, EXPENDABLE_PODS_PRIORITY_CUTOFF: "100" } }).expendablePodsPriorityCutoff,
      100,
    );
  });

  const bad: { name: string; argv: string[]; env: Record<string, string>; message: RegExp }[] = [
    { name: "a missing cluster name", argv: [], env: { AWS_REGION: "us-east-1" }, message: /clusterName/ },
    { name: "a malformed region", argv: ["--region", "mars"], env: { CLUSTER_NAME: "c" }, message: /region/ },
    { name: "a bad duration", argv: ["--batch-max-duration", "10 s"], env: base, message: /--batch-max-duration/ },
    { name: "an unknown flag", argv: ["--nope"], env: base, message: /nope/ },
    { name: "a bad feature gate", argv: ["--feature-gates", "NodeRepair=yes"], env: base, message: /feature-gates/ },
    {
      name: "a priority cutoff that is not an integer",
      argv: ["--expendable-pods-priority-cutoff", "low"],
      env: base,
      message: /--expendable-pods-priority-cutoff \(EXPENDABLE_PODS_PRIORITY_CUTOFF\): "low" is not a 32-bit integer/,
    },
    {
      name: "a priority cutoff out of a pod priority's range",
      argv: [],
      env: { ...base, EXPENDABLE_PODS_PRIORITY_CUTOFF: "3000000000" },
      message: /EXPENDABLE_PODS_PRIORITY_CUTOFF/,
    },
    {
      name: "a cluster endpoint that is not an http(s) URL",
      argv: [],
      env: { ...base, CLUSTER_ENDPOINT: "ABC.gr7.us-east-1.eks.amazonaws.com" },
      message: /--cluster-endpoint \(CLUSTER_ENDPOINT\): "ABC\.gr7/,
    },
    {
      name: "a cluster endpoint without a host",
      argv: ["--cluster-endpoint", "https://"],
      env: base,
      message: /--cluster-endpoint/,
    },
    {
      name: "a CA bundle that is PEM rather than base64",
      argv: [],
      env: { ...base, CLUSTER_CA_BUNDLE: "-----BEGIN CERTIFICATE-----" },
      message: /clusterCABundle/,
    },
    {
      name: "an isolated VPC without a cluster endpoint",
      argv: ["--isolated-vpc"],
      env: base,
      message: /--cluster-endpoint \(CLUSTER_ENDPOINT\) is required with --isolated-vpc/,
    },
    {
      name: "an interruption queue that is neither an SQS queue name nor a URL",
      argv: ["--interruption-queue", "arn:aws:sqs:us-east-1:123456789012:q"],
      env: base,
      message: /interruptionQueue/,
    },
    {
      name: "a max price ratio that is not a number",
      argv: ["--max-price-ratio", "lots"],
      env: base,
      message: /--max-price-ratio \(MAX_PRICE_RATIO\): "lots" is not a number/,
    },
    {
      name: "a max price ratio below 1",
      argv: [],
      env: { ...base, MAX_PRICE_RATIO: "0.5" },
      message: /maxPriceRatio must be >= 1/,
    },
    { name: "a port out of range", argv: ["--metrics-port", "70000"], env: base, message: /metrics-port/ },
    // Karpenter's DRA simulation (issue 22 item 8) is not implemented: refused, never accepted and ignored.
    {
      name: "IGNORE_DRA_REQUESTS=false (Karpenter's DRA simulation)",
      argv: [],
      env: { ...base, IGNORE_DRA_REQUESTS: "false" },
      message: new RegExp(
        "--ignore-dra-requests \\(IGNORE_DRA_REQUESTS\\): " +
          "false asks for Karpenter's DRA simulation, which kerf does not implement",
      ),
    },
    {
      name: "--ignore-dra-requests=false",
      argv: ["--ignore-dra-requests=false"],
      env: base,
      message: /--ignore-dra-requests .*does not implement/,
    },
    {
      name: "an --ignore-dra-requests that is not a boolean",
      argv: ["--ignore-dra-requests=maybe"],
      env: base,
      message: /"maybe" is not true or false/,
    },
    // Default topology spread constraints (issue 22 item 9), validated as Karpenter validates --scheduler-config.
    {
      name: "a scheduler config that is not YAML",
      argv: ["--scheduler-config", "podTopologySpread: ["],
      env: base,
      message: /--scheduler-config \(SCHEDULER_CONFIG\)/,
    },
    {
      name: "a default constraint with a labelSelector",
      argv: [],
      env: {
        ...base,
        SCHEDULER_CONFIG:
          "podTopologySpread:\n  defaultConstraints:\n  - {maxSkew: 1, " +
          "topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {}}",
      },
      message: /SCHEDULER_CONFIG.*defaultConstraints\[0\]\.labelSelector must not be set/,
    },
    {
      name: "a default constraint with maxSkew 0",
      argv: [
        "--scheduler-config",
        '{"podTopologySpread":{"defaultConstraints":[{"maxSkew":0,"topologyKey":"kubernetes.io/hostname",' +
          '"whenUnsatisfiable":"DoNotSchedule"}]}}',
      ],
      env: base,
      message: /maxSkew must be greater than 0/,
    },
  ];
  for (const c of bad) {
    void it(`should reject ${c.name}`, () =>
      assert.throws(
        () => loadConfig({ argv: c.argv, env: c.env }),
        (e: Error) => e instanceof ConfigError && c.message.test(e.message),
      ));
  }

  void it("should accept an interruption queue by name or by URL", () => {
    assert.equal(
      loadConfig({ argv: [], env: { ...base, INTERRUPTION_QUEUE: "prod-eu" } }).interruptionQueue,
      "prod-eu",
    );
    assert.equal(
      loadConfig({
        argv: ["--interruption-queue", "https://sqs.eu-west-1.amazonaws.com/123456789012/prod-eu"],
        env: base,
      }).interruptionQueue,
      "https://sqs.eu-west-1.amazonaws.com/123456789012/prod-eu",
    );
  });

  void it("should read the scheduling guard's price ratio from its flag or MAX_PRICE_RATIO", () => {
    assert.equal(loadConfig({ argv: ["--max-price-ratio", "4.5"], env: base }).maxPriceRatio, 4.5);
    assert.equal(loadConfig({ argv: [], env: { ...base, MAX_PRICE_RATIO: "8" } }).maxPriceRatio, 8);
  });

  void it("should ignore DRA requests as Karpenter does by default, and accept it said explicitly", () => {
    assert.equal(loadConfig({ argv: [], env: base }).ignoreDRARequests, true);
    assert.equal(loadConfig({ argv: ["--ignore-dra-requests=true"], env: base }).ignoreDRARequests, true);
    assert.equal(
      loadConfig({ argv: ["--ignore-dra-requests"], env: { ...base, IGNORE_DRA_REQUESTS: "false" } }).ignoreDRARequests,
      true,
    );
    assert.equal(loadConfig({ argv: [], env: { ...base, IGNORE_DRA_REQUESTS: "true" } }).ignoreDRARequests, true);
  });

  void it("should read default topology spread constraints from --scheduler-config or SCHEDULER_CONFIG, frozen", () => {
    assert.deepEqual(loadConfig({ argv: [], env: base }).schedulerConfig.defaultConstraints, []);
    const yaml =
      "podTopologySpread:\n  defaultConstraints:\n  - maxSkew: 1\n    topologyKey: topology.kubernetes.io/zone\n" +
      "    whenUnsatisfiable: ScheduleAnyway\n";
    const cfg = loadConfig({ argv: [], env: { ...base, SCHEDULER_CONFIG: yaml } });
    assert.deepEqual(cfg.schedulerConfig.defaultConstraints, [
      { maxSkew: 1, topologyKey: "topology.kubernetes.io/zone", whenUnsatisfiable: "ScheduleAnyway" },
    ]);
    assert.equal(Object.isFrozen(cfg.schedulerConfig.defaultConstraints), true);
    const system = loadConfig({
      argv: ["--scheduler-config", '{"podTopologySpread":{"defaultingType":"System"}}'],
      env: base,
    });
    assert.equal(system.schedulerConfig.defaultConstraints.length, 2);
  });

  void it("should document every flag with its environment variable", () => {
    assert.match(usage(), /--interruption-queue .*env INTERRUPTION_QUEUE/);
    assert.match(usage(), /--cluster-endpoint .*DescribeCluster.*env CLUSTER_ENDPOINT/);
  });
});
