// budget-schedule: cron validity (Karpenter fails a bad budget closed), schedule/duration pairing, always-active budgets.
import { formatDuration, tryParseDuration } from "../domain/duration.ts";
import { asString, get, objects, strings } from "../object.ts";
import type { Issue, Policy, PolicyInput } from "../types.ts";
import { parseSchedule, ScheduleError } from "./cron.ts";

const ZERO_NODES = /^0+%?$/;

function reasonsText(budget: Record<string, unknown>): string {
  const reasons = strings(budget["reasons"]);
  return reasons.length === 0 ? "every disruption reason" : reasons.join(", ");
}

function scheduleIssues(budget: Record<string, unknown>, path: string): { issues: Issue[]; alwaysActive: boolean } {
  const schedule = asString(budget["schedule"]);
  const duration = asString(budget["duration"]);
  if (schedule === undefined && duration === undefined) return { issues: [], alwaysActive: true };
  if (schedule === undefined) return { issues: [{ path: `${path}.duration`, message: "duration is set without schedule; set both or neither" }], alwaysActive: false };
  if (duration === undefined) return { issues: [{ path: `${path}.schedule`, message: "schedule is set without duration; set both or neither" }], alwaysActive: false };
  try {
    const { minPeriodMs, maxPeriodMs } = parseSchedule(schedule);
    const durationMs = tryParseDuration(duration);
    if (typeof durationMs !== "number" || durationMs <= minPeriodMs) return { issues: [], alwaysActive: false };
    const alwaysActive = durationMs >= maxPeriodMs;
    const effect = alwaysActive ? "the budget never becomes inactive" : "consecutive windows overlap";
    const message = `duration ${duration} exceeds the schedule's period (${formatDuration(minPeriodMs)}): ${effect}`;
    return { issues: [{ path: `${path}.duration`, message, advisory: true }], alwaysActive };
  } catch (error) {
    if (!(error instanceof ScheduleError)) throw error;
    const message = `${error.message}; Karpenter would treat this budget as allowing 0 disruptions (fails closed)`;
    return { issues: [{ path: `${path}.schedule`, message }], alwaysActive: false };
  }
}

/** Problems in spec.disruption.budgets of a (defaulted) NodePool. */
export function budgetIssues(input: PolicyInput): Issue[] {
  return objects(get(input.object, "spec", "disruption", "budgets")).flatMap((budget, i) => {
    const path = `spec.disruption.budgets[${i}]`;
    const { issues, alwaysActive } = scheduleIssues(budget, path);
    const nodes = asString(budget["nodes"]);
    if (alwaysActive && nodes !== undefined && ZERO_NODES.test(nodes)) {
      const message = `budget nodes: "${nodes}" is never inactive: it blocks ${reasonsText(budget)} permanently`;
      issues.push({ path: `${path}.nodes`, message, advisory: true });
    }
    return issues;
  });
}

/** The budget-schedule policy. */
export const BUDGET_SCHEDULE_POLICY: Policy = {
  id: "budget-schedule",
  kinds: ["NodePool"],
  defaultSeverity: "deny",
  description: "disruption budget schedules parse as Karpenter's cron (UTC), pair with a duration, and are not always active",
  check: budgetIssues,
};
