// Per-catalog precomputation for the catalog policies: InstanceTypes built once, matches
// memoised by requirement signature.
import type { Catalog } from "./domain/catalog/catalog.ts";
import { toInstanceTypes, windowsVariants } from "./domain/catalog/catalog.ts";
import { incompatibility, offeringMatches, type InstanceType, type Offering } from "./domain/instance-types.ts";
import { Label, WELL_KNOWN_LABELS } from "./domain/labels.ts";
import { Requirement, Requirements } from "./domain/requirements.ts";
import { BoundedMemo, type MemoLimits } from "./memo.ts";
import { asString, get, objects, ownValue, strings } from "./object.ts";
import type { PolicyInput } from "./types.ts";

/** A catalog prepared for admission checks. */
export interface CatalogView {
  readonly region: string;
  /** Every type as a Linux node (kubernetes.io/os=linux, no windows-build). */
  readonly types: readonly InstanceType[];
  /** The amd64 types under each Windows AMI family (os=windows, the family's windows-build), built on first use. */
  readonly windowsTypes: () => readonly InstanceType[];
  readonly matches: BoundedMemo<readonly InstanceType[]>;
  /**
   * The same answers by list identity: a requirement list parsed once is asked about
   * by several policies and reviews.
   */
  readonly matchesByList: WeakMap<readonly Requirement[], readonly InstanceType[]>;
  readonly distinct: BoundedMemo<ReadonlySet<string>>;
}

const views = new WeakMap<Catalog, CatalogView>();

/**
 * What the memos keep between reviews. Keys hold requirement values, so a key's length stands for its
 * entry's size: lists longer than 16 Ki characters (hundreds of values; generated, rarely repeated) are
 * recomputed, and each memo keeps at most 2 Mi key characters, so distinct large inputs cannot pile up
 * (600 distinct 2 MiB lists once held 1.3 GiB).
 */
const MEMO_LIMITS: MemoLimits = { maxEntries: 2000, maxKeyLength: 16 * 1024, maxTotalLength: 2 * 1024 * 1024 };

/** The view of a catalog, built on first use and reused for every later evaluation with the same catalog object. */
export function catalogView(catalog: Catalog): CatalogView {
  let view = views.get(catalog);
  if (view === undefined) {
    let windows: readonly InstanceType[] | undefined;
    const windowsTypes = (): readonly InstanceType[] => (windows ??= windowsVariants(catalog));
    const memos = {
      matches: new BoundedMemo<readonly InstanceType[]>(MEMO_LIMITS),
      distinct: new BoundedMemo<ReadonlySet<string>>(MEMO_LIMITS),
    };
    view = {
      region: catalog.region,
      types: toInstanceTypes(catalog),
      windowsTypes,
      matchesByList: new WeakMap(),
      ...memos,
    };
    views.set(catalog, view);
  }
  return view;
}

/**
 * The memo key of a requirement list: the (cached) signatures of its well-known requirements in list
 * order. Cheaper than a canonical Requirements signature; a reordered list only costs one more entry.
 */
function memoKey(requirements: readonly Requirement[]): string {
  let key = "";
  for (const r of requirements) if (WELL_KNOWN_LABELS.has(r.key)) key += `${r.signature()}|`;
  return key;
}

/**
 * The OS variants to match. A Windows variant differs from its type's Linux variant only in the OS
 * and windows-build labels, so it can add a type only when a requirement names one of them and
 * no OS requirement excludes windows (the common `kubernetes.io/os In [linux]` scans Linux alone).
 */
function variantsFor(view: CatalogView, requirements: readonly Requirement[]): readonly InstanceType[] {
  const osSensitive = requirements.some((r) => r.key === Label.os || r.key === Label.windowsBuild);
  const windowsAllowed = requirements.every((r) => r.key !== Label.os || r.has("windows"));
  return osSensitive && windowsAllowed ? [...view.types, ...view.windowsTypes()] : view.types;
}

/** Every OS variant the requirements allow (a type may appear once for Linux and once per Windows family). */
function matchingVariants(view: CatalogView, requirements: readonly Requirement[]): InstanceType[] {
  const relevant = new Requirements(requirements.filter((r) => WELL_KNOWN_LABELS.has(r.key)));
  return variantsFor(view, requirements).filter((t) => incompatibility(t, relevant) === undefined);
}

function firstPerName(types: readonly InstanceType[]): InstanceType[] {
  const byName = new Map<string, InstanceType>();
  for (const t of types) if (!byName.has(t.name)) byName.set(t.name, t);
  return [...byName.values()];
}

/**
 * The catalog types a set of requirements allows, each name once (its first matching OS variant).
 * Only well-known keys narrow instance types: a custom label (team=a) becomes a node label and never
 * excludes a type, as in Karpenter's scheduler.
 */
export function matchingTypes(view: CatalogView, requirements: readonly Requirement[]): readonly InstanceType[] {
  let found = view.matchesByList.get(requirements);
  if (found !== undefined) return found;
  const key = memoKey(requirements);
  found = view.matches.get(key);
  if (found === undefined) {
    found = firstPerName(matchingVariants(view, requirements));
    view.matches.set(key, found);
  }
  view.matchesByList.set(requirements, found);
  return found;
}

/** One parsed requirement with its index in spec.template.spec.requirements. */
export interface IndexedRequirement {
  readonly index: number;
  readonly requirement: Requirement;
}

/** Parsed lists by content: the same requirements arrive again and again (re-applied manifests, many NodePools). */
const parsedByContent = new BoundedMemo<readonly IndexedRequirement[] | undefined>(MEMO_LIMITS);

/** Exactly the fields parseList reads (non-objects are dropped there too), so lists with equal keys parse alike. */
function contentKey(raw: readonly unknown[]): string {
  const fields = objects(raw).map((item) => {
    const minValues = item["minValues"];
    return [
      asString(item["key"]) ?? null,
      asString(item["operator"]) ?? null,
      strings(item["values"]),
      typeof minValues === "number" ? String(minValues) : null,
    ];
  });
  return JSON.stringify(fields);
}

const requirementLists = new WeakMap<readonly IndexedRequirement[], readonly Requirement[]>();

/** The requirements of a parsed list as one array per list (so matchingTypes recognises the list by identity). */
export function requirementsOf(indexed: readonly IndexedRequirement[]): readonly Requirement[] {
  let list = requirementLists.get(indexed);
  if (list === undefined) {
    list = indexed.map((r) => r.requirement);
    requirementLists.set(indexed, list);
  }
  return list;
}

/** Parses a requirement list; undefined when any entry is malformed (the runtime policy reports those). */
export function parseRequirements(raw: unknown): readonly IndexedRequirement[] | undefined {
  const list = Array.isArray(raw) ? raw : [];
  const key = contentKey(list);
  if (parsedByContent.has(key)) return parsedByContent.get(key);
  const result = parseList(list);
  parsedByContent.set(key, result);
  return result;
}

/**
 * The last evaluation's parse: every policy of one evaluate() call gets the same input object, and
 * evaluations run one at a time. (A single entry rather than a WeakMap: one new key per evaluation
 * would churn the GC's weak tables on a busy webhook.)
 */
let lastInput: PolicyInput | undefined;
let lastParse: readonly IndexedRequirement[] | undefined;

/** The NodePool's spec.template.spec.requirements, parsed once per evaluation (undefined when malformed). */
export function templateRequirements(input: PolicyInput): readonly IndexedRequirement[] | undefined {
  if (input !== lastInput) {
    lastParse = parseRequirements(get(input.object, "spec", "template", "spec", "requirements"));
    lastInput = input;
  }
  return lastParse;
}

function parseList(raw: readonly unknown[]): IndexedRequirement[] | undefined {
  try {
    return objects(raw).map((r, index) => ({
      index,
      requirement: Requirement.fromSelector({
        key: asString(r["key"]) ?? "",
        operator: asString(r["operator"]) ?? "",
        values: strings(r["values"]),
        minValues: typeof r["minValues"] === "number" ? r["minValues"] : undefined,
      }),
    }));
  } catch {
    return undefined;
  }
}

const OFFERING_VALUE: Readonly<Record<string, (o: Offering) => string | undefined>> = {
  [Label.zone]: (o) => o.zone,
  [Label.zoneId]: (o) => o.zoneId,
  [Label.capacityType]: (o) => o.capacityType,
};

/** The distinct values a key takes over the types the requirements allow (offering keys read compatible offerings). */
export function distinctValues(
  view: CatalogView,
  key: string,
  requirements: readonly Requirement[],
): ReadonlySet<string> {
  const distinctKey = `${memoKey(requirements)}#${key}`;
  let out = view.distinct.get(distinctKey);
  if (out !== undefined) return out;
  const relevant = new Requirements(requirements.filter((r) => WELL_KNOWN_LABELS.has(r.key)));
  const values = new Set<string>();
  const offeringValue = ownValue(OFFERING_VALUE, key);
  for (const t of matchingVariants(view, requirements)) {
    if (offeringValue === undefined) {
      if (t.labels[key] !== undefined) values.add(t.labels[key]);
      continue;
    }
    for (const o of t.offerings) {
      const value = o.available && offeringMatches(o, relevant) ? offeringValue(o) : undefined;
      if (value !== undefined) values.add(value);
    }
  }
  out = values;
  view.distinct.set(distinctKey, out);
  return out;
}
