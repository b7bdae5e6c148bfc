// Per-catalog precomputation for the catalog policies: InstanceTypes built once, matches memoised by requirement signature.
import type { Catalog } from "./domain/catalog/catalog.ts";
import { toInstanceTypes } from "./domain/catalog/catalog.ts";
import { incompatibility, offeringMatches, type InstanceType, type Offering } from "./domain/instance-types.ts";
import { Label, WELL_KNOWN_LABELS } from "./domain/labels.ts";
import { Requirement, Requirements } from "./domain/requirements.ts";
import { asString, objects, strings } from "./object.ts";

/** A catalog prepared for admission checks. */
export interface CatalogView {
  readonly region: string;
  readonly types: readonly InstanceType[];
  readonly matches: Map<string, readonly InstanceType[]>;
  readonly distinct: Map<string, ReadonlySet<string>>;
}

const views = new WeakMap<Catalog, CatalogView>();
const MAX_MEMO = 2000;

/** The view of a catalog, built on first use and reused for every later evaluation with the same catalog object. */
export function catalogView(catalog: Catalog): CatalogView {
  let view = views.get(catalog);
  if (view === undefined) {
    view = { region: catalog.region, types: toInstanceTypes(catalog), matches: new Map(), distinct: new Map() };
    views.set(catalog, view);
  }
  return view;
}

/**
 * The catalog types a set of requirements allows. Only well-known keys narrow instance types: a
 * custom label (team=a) becomes a node label and never excludes a type, as in Karpenter's scheduler.
 */
export function matchingTypes(view: CatalogView, requirements: readonly Requirement[]): readonly InstanceType[] {
  const relevant = new Requirements(requirements.filter((r) => WELL_KNOWN_LABELS.has(r.key)));
  const key = relevant.signature();
  let found = view.matches.get(key);
  if (found === undefined) {
    found = view.types.filter((t) => incompatibility(t, relevant) === undefined);
    if (view.matches.size >= MAX_MEMO) view.matches.clear();
    view.matches.set(key, found);
  }
  return found;
}

/** One parsed requirement with its index in spec.template.spec.requirements. */
export interface IndexedRequirement {
  readonly index: number;
  readonly requirement: Requirement;
}

/** Parses a requirement list; undefined when any entry is malformed (the runtime policy reports those). */
export function parseRequirements(raw: unknown): IndexedRequirement[] | undefined {
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
export function distinctValues(view: CatalogView, key: string, requirements: readonly Requirement[]): ReadonlySet<string> {
  const relevant = new Requirements(requirements.filter((r) => WELL_KNOWN_LABELS.has(r.key)));
  const memoKey = `${relevant.signature()}#${key}`;
  let out = view.distinct.get(memoKey);
  if (out !== undefined) return out;
  const values = new Set<string>();
  const offeringValue = OFFERING_VALUE[key];
  for (const t of matchingTypes(view, requirements)) {
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
  if (view.distinct.size >= MAX_MEMO) view.distinct.clear();
  view.distinct.set(memoKey, out);
  return out;
}
