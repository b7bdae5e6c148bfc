// budget-schedule: cron validity (Karpenter fails a bad budget closed), schedule/duration pairing,
// always-active budgets, and the kerf.dev/budget-timezone annotation. Schedules are read as the operator
// reads them (domain/budgets.ts).
import { BUDGET_TIMEZONE_ANNOTATION, isValidTimeZone, ScheduleError, schedulePeriods } from "../domain/budgets.ts";
import type { SchedulePeriods } from "../domain/budgets.ts";
import { formatDuration, tryParseDuration } from "../domain/duration.ts";
import { suggestTimeZone } from "../domain/time-zone.ts";
import { joinPath } from "../field-path.ts";
import { asString, get, objects, strings } from "../object.ts";
import type { Issue, Policy, PolicyInput } from "../types.ts";

const ZERO_NODES = /^0+%?$/;
const ANNOTATION_PATH = joinPath("metadata", "annotations", BUDGET_TIMEZONE_ANNOTATION);

function reasonsText(budget: Record<string, unknown>): string {
  const reasons = strings(budget["reasons"]);
  return reasons.length === 0 ? "every disruption reason" : reasons.join(", ");
}

/** The advisory for a duration longer than a gap between hits; undefined when windows never overlap. */
function overlapIssue(
  duration: string,
  durationMs: number,
  periods: SchedulePeriods,
  at: { path: string; zone: string },
): Issue | undefined {
  if (durationMs <= periods.minPeriodMs) return undefined;
  const path = `${at.path}.duration`;
  if (durationMs >= periods.maxPeriodMs) {
    const message =
      `duration ${duration} exceeds the schedule's period (${formatDuration(periods.maxPeriodMs)} at most): ` +
      `the budget never becomes inactive`;
    return { path, message, advisory: true };
  }
  if (durationMs > periods.clockMinPeriodMs) {
    const message =
      `duration ${duration} exceeds the schedule's period (${formatDuration(periods.clockMinPeriodMs)}): ` +
      `consecutive windows overlap`;
    return { path, message, advisory: true };
  }
  // Only a clock change brings two hits this close: a wall time that happens twice, or a shorter night.
  const message =
    `duration ${duration} exceeds the ${formatDuration(periods.minPeriodMs)} between two hits ` +
    `on a day ${at.zone} changes its clocks (a wall time repeated when clocks go back fires twice): ` +
    "consecutive windows overlap on that day";
  return { path, message, advisory: true };
}

function scheduleIssues(
  budget: Record<string, unknown>,
  at: { path: string; zone: string },
): { issues: Issue[]; alwaysActive: boolean } {
  const { path } = at;
  const schedule = asString(budget["schedule"]);
  const duration = asString(budget["duration"]);
  if (schedule === undefined && duration === undefined) return { issues: [], alwaysActive: true };
  if (schedule === undefined)
    return {
      issues: [{ path: `${path}.duration`, message: "duration is set without schedule; set both or neither" }],
      alwaysActive: false,
    };
  if (duration === undefined)
    return {
      issues: [{ path: `${path}.schedule`, message: "schedule is set without duration; set both or neither" }],
      alwaysActive: false,
    };
  try {
    const periods = schedulePeriods(schedule, at.zone);
    const durationMs = tryParseDuration(duration);
    if (typeof durationMs !== "number") return { issues: [], alwaysActive: false };
    const issue = overlapIssue(duration, durationMs, periods, at);
    return { issues: issue === undefined ? [] : [issue], alwaysActive: durationMs >= periods.maxPeriodMs };
  } catch (error) {
    if (!(error instanceof ScheduleError)) throw error;
    const message = `${error.message}; Karpenter would treat this budget as allowing 0 disruptions (fails closed)`;
    return { issues: [{ path: `${path}.schedule`, message }], alwaysActive: false };
  }
}

/** The annotation's zone ("UTC" when absent or unusable) and the issue for an unusable one. */
function timeZoneOf(object: Record<string, unknown>): { zone: string; issue?: Issue } {
  const value = get(object, "metadata", "annotations", BUDGET_TIMEZONE_ANNOTATION);
  if (value === undefined) return { zone: "UTC" };
  const zone = asString(value) ?? "";
  if (isValidTimeZone(zone)) return { zone };
  const suggestion = suggestTimeZone(zone);
  const hint = suggestion === undefined ? ' such as "Europe/Berlin"' : ` ("${suggestion}"?)`;
  const message =
    `annotation ${BUDGET_TIMEZONE_ANNOTATION}: unknown time zone "${zone}"; expected an IANA zone${hint}. ` +
    "kerf's operator would allow 0 disruptions under every scheduled budget of this NodePool (fails closed)";
  return { zone: "UTC", issue: { path: ANNOTATION_PATH, message } };
}

/** Problems in spec.disruption.budgets of a (defaulted) NodePool, and in its budget time zone annotation. */
export function budgetIssues(input: PolicyInput): Issue[] {
  const { zone, issue } = timeZoneOf(input.object);
  const budgetProblems = objects(get(input.object, "spec", "disruption", "budgets")).flatMap((budget, i) => {
    const path = `spec.disruption.budgets[${i}]`;
    const { issues, alwaysActive } = scheduleIssues(budget, { path, zone });
    const nodes = asString(budget["nodes"]);
    if (alwaysActive && nodes !== undefined && ZERO_NODES.test(nodes)) {
      const message = `budget nodes: "${nodes}" is never inactive: it blocks ${reasonsText(budget)} permanently`;
      issues.push({ path: `${path}.nodes`, message, advisory: true });
    }
    return issues;
  });
  return issue === undefined ? budgetProblems : [issue, ...budgetProblems];
}

/** The budget-schedule policy. */
export const BUDGET_SCHEDULE_POLICY: Policy = {
  id: "budget-schedule",
  kinds: ["NodePool"],
  defaultSeverity: "deny",
  description:
    "disruption budget schedules parse as Karpenter's cron (UTC, or the IANA zone of kerf.dev/budget-timezone), " +
    "pair with a duration, and are not always active",
  check: budgetIssues,
};
