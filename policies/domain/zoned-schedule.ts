// The hits of a cron schedule read in a time zone's wall-clock time: every whole minute whose local time matches.
//
// So a wall time skipped when clocks go forward does not fire that day, and one repeated when clocks go back fires
// twice: robfig/cron's behaviour with a location (what Karpenter would do if it took a zone, core#1446), and a
// definition that does not depend on where the iteration starts. cron-parser's own `tz` option was measured and not
// used: its next() depends on the start instant across a transition (from before a skipped 02:30 it yields 03:30,
// from 03:29 it skips the day; from inside a repeated hour it yields the second 02:30, from before it only the
// first), so whether a budget is active would change with the instant it is asked at. Here cron-parser only ever
// iterates in UTC; each stretch of constant UTC offset is mapped onto it.
import { CronExpressionParser } from "cron-parser";
import type { CronExpression } from "cron-parser";
import { firstTransition, utcOffsetMinutes } from "./time-zone.ts";

/** A schedule in cron-parser's 5-field syntax (robfig semantics already normalised) and the zone it is read in. */
export interface ZonedSchedule {
  readonly expression: string;
  readonly zone: string;
}

const MINUTE_MS = 60_000;
/** More offset changes than any zone has between two hits of a schedule that fires at least every 8 years. */
const MAX_SEGMENTS = 64;

function offsetMs(zone: string, instantMs: number): number {
  return zone === "UTC" ? 0 : utcOffsetMinutes(zone, instantMs) * MINUTE_MS;
}

function utcIterator(expression: string, afterWallMs: number): CronExpression {
  return CronExpressionParser.parse(expression, { currentDate: new Date(afterWallMs), tz: "UTC" });
}

/** The next-hit function of a walk: each call returns the next hit, ascending, all strictly after `afterMs`. */
export type Hits = () => number;

/**
 * Walks the schedule's hits strictly after `afterMs`. Throws cron-parser's errors
 * (e.g. a schedule that never fires).
 */
export function hitsAfter(schedule: ZonedSchedule, afterMs: number): Hits {
  const { expression, zone } = schedule;
  // The walk maps one stretch of constant offset at a time: from `segmentStart` (exclusive) the offset is `offset`.
  let segmentStart = afterMs;
  let offset = offsetMs(zone, afterMs + 1);
  let cron = utcIterator(expression, afterMs + offset);
  return () => {
    for (let i = 0; i < MAX_SEGMENTS; i++) {
      const hit = cron.next().getTime() - offset;
      const change = zone === "UTC" ? undefined : firstTransition(zone, segmentStart, hit);
      if (change === undefined) {
        segmentStart = hit;
        return hit;
      }
      // The candidate lies past an offset change: read the schedule again from the change, with the new offset.
      offset = offsetMs(zone, change);
      cron = utcIterator(expression, change - 1 + offset);
      segmentStart = change;
    }
    throw new Error(`no hit within ${MAX_SEGMENTS} offset changes of ${zone}`);
  };
}

/** The first hit strictly after `afterMs`. */
export function nextHit(schedule: ZonedSchedule, afterMs: number): number {
  return hitsAfter(schedule, afterMs)();
}
