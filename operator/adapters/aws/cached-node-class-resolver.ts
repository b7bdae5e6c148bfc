/**
 * A NodeClassResolver that remembers what an EC2NodeClass's selectors resolved to for a minute
 * (Karpenter caches subnets, security groups and AMIs the same way), so a provisioning batch and each
 * launch cost no Describe calls. Concurrent lookups of the same selectors share one call. Facts with
 * a failed part are not kept: the next caller asks AWS again. `fresh` bypasses and refreshes the
 * entry (the EC2NodeClass status controller uses it, so the status never shows cached facts).
 */
import type { EC2NodeClassLike } from "../../core/launch-template/node-class.ts";
import type { NodeClassFacts, NodeClassResolver, ResolveOptions } from "../../ports/node-class-resolver.ts";

/** Karpenter's cache TTL for subnets, security groups and AMIs. */
export const NODE_CLASS_FACTS_TTL_MS = 60_000;

interface Entry {
  readonly facts: Promise<NodeClassFacts>;
  readonly at: number;
}

/** Caches another resolver's answers by selector terms. */
export class CachedNodeClassResolver implements NodeClassResolver {
  private readonly inner: NodeClassResolver;
  private readonly now: () => number;
  private readonly ttlMs: number;
  private readonly entries = new Map<string, Entry>();

  constructor(options: { inner: NodeClassResolver; now: () => number; ttlMs?: number }) {
    this.inner = options.inner;
    this.now = options.now;
    this.ttlMs = options.ttlMs ?? NODE_CLASS_FACTS_TTL_MS;
  }

  resolve(nodeClass: EC2NodeClassLike, options?: ResolveOptions): Promise<NodeClassFacts> {
    const key = selectorKey(nodeClass);
    const now = this.now();
    const hit = this.entries.get(key);
    if (options?.fresh !== true && hit !== undefined && now - hit.at < this.ttlMs) return hit.facts;
    const facts = this.inner.resolve(nodeClass, options);
    const entry = { facts, at: now };
    this.entries.set(key, entry);
    void facts.then(
      (f) => {
        if (hasErrors(f)) this.forget(key, entry);
      },
      () => this.forget(key, entry),
    );
    return facts;
  }

  private forget(key: string, entry: Entry): void {
    if (this.entries.get(key) === entry) this.entries.delete(key);
  }
}

function hasErrors(facts: NodeClassFacts): boolean {
  return Object.keys(facts.errors).length > 0;
}

/** The parts of the spec the facts depend on. */
function selectorKey(nodeClass: EC2NodeClassLike): string {
  const s = nodeClass.spec;
  return JSON.stringify([
    s.subnetSelectorTerms,
    s.securityGroupSelectorTerms,
    s.amiSelectorTerms,
    s.capacityReservationSelectorTerms ?? [],
  ]);
}
