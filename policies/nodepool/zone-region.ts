/**
 * zone-region: a NodePool's requirements name zones, zone IDs or a region of the region kerf checks
 * against (the catalog's: `kerf check --region`, the webhook's region, the operator's AWS_REGION).
 * A zone of another region matches no subnet and no offering there, so nodes never launch for it;
 * the message names the zone's region so a copy-paste from another cluster is obvious.
 *
 * `foreignLocations` is the one implementation: the policy calls it with the evaluation's catalog,
 * and the operator can call it with its own region's catalog.
 */
import { Label, NORMALIZED_LABELS } from "../domain/labels.ts";
import { asObject, asString, get, strings } from "../object.ts";
import type { Catalog } from "../domain/catalog/catalog.ts";
import type { Issue, Policy, PolicyInput } from "../types.ts";

const REQUIREMENTS_PATH = "spec.template.spec.requirements";

/**
 * The region an AZ name belongs to: `eu-west-1a` → eu-west-1; Local and Wavelength Zones too
 * (`us-east-1-bos-1a`, `ap-northeast-1-wl1-nrt-wlz-1` → their parent region). undefined for
 * anything else.
 */
export function regionOfZone(zone: string): string | undefined {
  return /^([a-z]{2}-(?:gov-)?[a-z]+-\d+)(?:[a-z]|-[a-z0-9-]+)$/.exec(zone)?.[1];
}

/** The zone-ID prefix of a catalog's region (`use1` for us-east-1), from its zone IDs; undefined without any. */
function zoneIdPrefix(catalog: Pick<Catalog, "zoneIds">): string | undefined {
  const first = Object.values(catalog.zoneIds)[0];
  return first === undefined ? undefined : first.split("-")[0];
}

function zonesText(catalog: Pick<Catalog, "region" | "zones">): string {
  return `${catalog.region}'s zones are ${catalog.zones.join(", ")}`;
}

/** One requirement value naming another region. */
export interface ForeignLocation {
  /** apiserver-style path of the value, e.g. spec.template.spec.requirements[1].values[0]. */
  readonly path: string;
  readonly message: string;
}

/** What the policy reads of a catalog. */
type RegionFacts = Pick<Catalog, "region" | "zones" | "zoneIds">;

function foreignValue(key: string, value: string, catalog: RegionFacts): string | undefined {
  const checked = `kerf checks against region ${catalog.region}`;
  if (key === Label.zone && !catalog.zones.includes(value)) {
    const region = regionOfZone(value);
    if (region === undefined || region === catalog.region) return undefined;
    return (
      `zone ${value} is in region ${region}, but ${checked} (${zonesText(catalog)}): no node can launch there; ` +
      `use this region's zones, or check with --region ${region} if the cluster runs in ${region}`
    );
  }
  if (key === Label.zoneId) {
    const prefix = zoneIdPrefix(catalog);
    const own = Object.values(catalog.zoneIds);
    if (prefix === undefined || own.includes(value) || value.split("-")[0] === prefix) return undefined;
    return (
      `zone ID ${value} is not of region ${catalog.region}, whose zone IDs start with ${prefix}- (${checked}): ` +
      "no node can launch there"
    );
  }
  if (key === Label.region && value !== catalog.region) {
    return (
      `region ${value} is not the cluster's region: ${checked}; ` +
      `a node of this NodePool would be in ${catalog.region}`
    );
  }
  return undefined;
}

/**
 * The `In` requirement values (zone, zone ID, region; beta keys too) that name another region than
 * `catalog.region`. Values of `NotIn` and the other operators never do harm and are not reported. A
 * region requirement allowing the catalog's region among others is fine.
 */
export function foreignLocations(requirements: unknown, catalog: RegionFacts): ForeignLocation[] {
  const list: readonly unknown[] = Array.isArray(requirements) ? requirements : [];
  return list.flatMap((item, index) => {
    const requirement = asObject(item);
    if (requirement === undefined) return [];
    const raw = asString(requirement["key"]) ?? "";
    const key = NORMALIZED_LABELS[raw] ?? raw;
    if (requirement["operator"] !== "In") return [];
    const values = strings(requirement["values"]);
    if (key === Label.region && values.includes(catalog.region)) return [];
    return values.flatMap((value, at) => {
      const message = foreignValue(key, value, catalog);
      return message === undefined ? [] : [{ path: `${REQUIREMENTS_PATH}[${index}].values[${at}]`, message }];
    });
  });
}

function check(input: PolicyInput): Issue[] {
  const requirements = get(input.object, "spec", "template", "spec", "requirements");
  return foreignLocations(requirements, input.context.catalog).map(({ path, message }) => ({ path, message }));
}

/** zone-region: the NodePool's zone, zone-ID and region requirements name the checked region only. */
export const ZONE_REGION_POLICY: Policy = {
  id: "zone-region",
  kinds: ["NodePool"],
  defaultSeverity: "deny",
  description: "zone, zone-ID and region requirements name the cluster's region (another region's zone never launches)",
  check,
};
