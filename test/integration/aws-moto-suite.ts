/**
 * The set-up the moto-only aws-* integration tests share: the test environment's moto, reset and seeded before each
 * test (or once, for a suite whose tests build on each other's state), an optional fault proxy in front of it, and
 * the node classes the provider graph reads. useMotoSuite registers the node:test hooks; a test file's own hooks,
 * registered after it in the same describe, run after its seeding.
 */
import { after, before, beforeEach } from "node:test";
import type { AwsProviderGraph } from "../../operator/adapters/aws/factory.ts";
import type { EC2NodeClassLike, EC2NodeClassSpec } from "../../operator/core/launch-template/node-class.ts";
import { startFaultProxy, type FaultProxy } from "../harness/fault-proxy.ts";
import { useEnvironment, type AwsTestConfig, type TestEnvironment } from "../harness/use-environment.ts";
import {
  nodeClass,
  providers,
  seedAl2023Alias,
  seedNodeRole,
  tagDefaultSubnets,
  testClock,
  type TestClock,
} from "./aws-fixtures.ts";

export interface MotoSuiteOptions {
  /** A fault proxy in front of moto: started before the suite, stopped after it, cleared before each test. */
  readonly faultProxy?: boolean;
  /**
   * When moto is reset and seeded: "test" (the default) before each test; "suite" once, after the reset
   * useEnvironment does, for tests that build on each other's state (the fault proxy is then never cleared).
   */
  readonly scope?: "test" | "suite";
  /** Seeds the al2023 `standard` alias's x86_64 AMI (seedAl2023Alias). */
  readonly al2023?: boolean;
  /** Tags the default subnets of these zones for discovery (tagDefaultSubnets). */
  readonly zones?: readonly string[];
  /** Creates the node class's role, NODE_ROLE (seedNodeRole). */
  readonly nodeRole?: boolean;
  /** The spec of the `default` node class each test starts with; without it the node classes start empty. */
  readonly defaultNodeClass?: Partial<EC2NodeClassSpec>;
}

/** What a suite's tests use; every member but nodeClasses throws before the suite's `before` hook ran. */
export class MotoSuite {
  private environment: TestEnvironment | undefined;
  private faultProxy: FaultProxy | undefined;
  /** The node classes providers() reads, by name; seeded afresh with the moto state. */
  nodeClasses = new Map<string, EC2NodeClassLike>();
  private readonly options: MotoSuiteOptions;

  constructor(options: MotoSuiteOptions) {
    this.options = options;
  }

  get env(): TestEnvironment {
    if (this.environment === undefined) throw new Error("the moto suite is used before its before hook ran");
    return this.environment;
  }

  /** The fault proxy; throws for a suite without one. */
  get proxy(): FaultProxy {
    if (this.faultProxy === undefined) throw new Error("the moto suite runs no fault proxy (options.faultProxy)");
    return this.faultProxy;
  }

  /** moto itself. */
  aws(): AwsTestConfig {
    return this.env.aws();
  }

  /** moto through the fault proxy, which records and can fail the requests. */
  viaProxy(): AwsTestConfig {
    return { ...this.aws(), endpoint: this.proxy.url };
  }

  /** A new provider graph (a restarted operator keeps nothing of the last) over the suite's node classes. */
  providers(aws: AwsTestConfig, clock: TestClock = testClock()): AwsProviderGraph {
    return providers(aws, clock, this.nodeClasses);
  }

  /** The `before` hook: attaches to the environment (which resets it), starts the fault proxy, seeds scope "suite". */
  async setUpSuite(): Promise<void> {
    this.environment = await useEnvironment({ moto: true });
    if (this.options.faultProxy === true) this.faultProxy = await startFaultProxy(this.environment.aws().endpoint);
    if (this.options.scope === "suite") await this.seed();
  }

  /** The `beforeEach` hook of scope "test": a clean moto, a clean proxy, the seeding. */
  async setUpTest(): Promise<void> {
    await this.env.reset();
    this.faultProxy?.clear();
    await this.seed();
  }

  /** The `after` hook. */
  async tearDownSuite(): Promise<void> {
    await this.faultProxy?.stop();
  }

  private async seed(): Promise<void> {
    const { al2023 = false, zones = [], nodeRole = false, defaultNodeClass } = this.options;
    if (al2023) await seedAl2023Alias(this.aws(), "x86_64");
    if (zones.length > 0) await tagDefaultSubnets(this.aws(), zones);
    if (nodeRole) await seedNodeRole(this.aws());
    this.nodeClasses = new Map();
    if (defaultNodeClass !== undefined) this.nodeClasses.set("default", nodeClass("default", defaultNodeClass));
  }
}

/** A MotoSuite whose hooks are registered in the describe whose body calls this (synchronously, as hooks must be). */
export function useMotoSuite(options: MotoSuiteOptions = {}): MotoSuite {
  const suite = new MotoSuite(options);
  before(() => suite.setUpSuite());
  if (options.scope !== "suite") beforeEach(() => suite.setUpTest());
  after(() => suite.tearDownSuite());
  return suite;
}
