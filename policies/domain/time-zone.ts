// IANA time zones through the runtime's Intl (ICU) data: validity, UTC offsets and offset transitions.

/**
 * Zone names as IANA spells them ("Europe/Berlin", "UTC", "EST5EDT"); excludes the
 * offsets Intl also takes ("+01:00").
 */
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

const formats = new Map<string, Intl.DateTimeFormat | undefined>();

function offsetFormat(zone: string): Intl.DateTimeFormat | undefined {
  if (!formats.has(zone)) {
    let format: Intl.DateTimeFormat | undefined;
    try {
      format = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" });
    } catch {
      format = undefined;
    }
    if (formats.size > 1000) formats.clear();
    formats.set(zone, format);
  }
  return formats.get(zone);
}

/**
 * Whether `zone` is an IANA time zone this runtime knows. Intl also takes numeric offsets and any letter case; Go's
 * time.LoadLocation (what Karpenter would use) takes neither, so "+01:00" and "europe/berlin" are refused here too.
 * Links such as "US/Pacific" are accepted.
 */
export function isValidTimeZone(zone: string): boolean {
  if (!IANA_NAME.test(zone)) return false;
  const resolved = offsetFormat(zone)?.resolvedOptions().timeZone;
  if (resolved === undefined) return false;
  return resolved === zone || resolved.toLowerCase() !== zone.toLowerCase();
}

/**
 * The zone Intl reads `zone` as when it is not a valid spelling ("europe/berlin"
 * → "Europe/Berlin"), else undefined.
 */
export function suggestTimeZone(zone: string): string | undefined {
  if (!IANA_NAME.test(zone) || isValidTimeZone(zone)) return undefined;
  return offsetFormat(zone)?.resolvedOptions().timeZone;
}

/** The zone's offset from UTC at `instantMs`, in minutes east of Greenwich; throws RangeError for an unknown zone. */
export function utcOffsetMinutes(zone: string, instantMs: number): number {
  const format = offsetFormat(zone);
  if (format === undefined) throw new RangeError(`unknown time zone "${zone}"`);
  const name = format.formatToParts(instantMs).find((p) => p.type === "timeZoneName")?.value ?? "GMT";
  const match = /^GMT([+-])(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(name);
  if (match === null) return 0; // "GMT": UTC itself
  const minutes = Number(match[2]) * 60 + Number(match[3]) + Number(match[4] ?? 0) / 60;
  return match[1] === "-" ? -minutes : minutes;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * The instants in [fromMs, toMs) at which the zone's UTC offset changes (DST starts and ends), each to the minute.
 * Scans day by day, so two changes less than a day apart would be missed (no zone has them).
 */
export function offsetTransitions(zone: string, fromMs: number, toMs: number): number[] {
  const out: number[] = [];
  for (let day = fromMs; day < toMs; day += DAY_MS) {
    const end = Math.min(day + DAY_MS, toMs);
    if (utcOffsetMinutes(zone, day) === utcOffsetMinutes(zone, end)) continue;
    // In whole minutes; invariant: the offset at low differs from the offset at high.
    let low = Math.floor(day / MINUTE_MS);
    let high = Math.ceil(end / MINUTE_MS);
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (utcOffsetMinutes(zone, middle * MINUTE_MS) === utcOffsetMinutes(zone, low * MINUTE_MS)) low = middle;
      else high = middle;
    }
    out.push(high * MINUTE_MS);
  }
  return out;
}

/** A margin around a transition wide enough for any offset change (at most 2 hours in the tz database). */
export const TRANSITION_MARGIN_MS = 3 * HOUR_MS;

const yearTransitions = new Map<string, readonly number[]>();

function transitionsOfYear(zone: string, year: number): readonly number[] {
  const key = `${zone} ${year}`;
  let found = yearTransitions.get(key);
  if (found === undefined) {
    found = offsetTransitions(zone, Date.UTC(year, 0, 1), Date.UTC(year + 1, 0, 1));
    if (yearTransitions.size > 10_000) yearTransitions.clear();
    yearTransitions.set(key, found);
  }
  return found;
}

/** The first offset change in (afterMs, untilMs], or undefined. Years are scanned once per zone and memoised. */
export function firstTransition(zone: string, afterMs: number, untilMs: number): number | undefined {
  const last = new Date(untilMs).getUTCFullYear();
  for (let year = new Date(afterMs).getUTCFullYear(); year <= last; year++) {
    const change = transitionsOfYear(zone, year).find((t) => t > afterMs);
    if (change !== undefined) return change <= untilMs ? change : undefined;
  }
  return undefined;
}
