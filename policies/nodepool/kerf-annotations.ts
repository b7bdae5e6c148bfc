// kerf-annotations: kerf's NodePool annotations kerf.dev/consolidate-empty-after, kerf.dev/spot-to-spot-consolidation
// and kerf.dev/drift-rollout and kerf.dev/off-schedule are read as the operator reads them (domain/empty-after.ts,
// domain/spot-to-spot.ts, domain/drift-waves.ts, domain/off-schedule.ts): an unusable value is ignored there, so it
// is denied here; one that cannot act is a warning. (kerf.dev/budget-timezone belongs to budget-schedule.)
import { CONSOLIDATE_EMPTY_AFTER_ANNOTATION, emptyAfterOf } from "../domain/empty-after.ts";
import { formatDuration, NEVER, tryParseDuration } from "../domain/duration.ts";
import { DRIFT_ROLLOUT_ANNOTATION, driftRolloutOf } from "../domain/drift-waves.ts";
import { OFF_SCHEDULE_ANNOTATION, offScheduleOf } from "../domain/off-schedule.ts";
import { SPOT_TO_SPOT_ANNOTATION, spotToSpotOf } from "../domain/spot-to-spot.ts";
import { joinPath } from "../field-path.ts";
import { asObject, get } from "../object.ts";
import type { Issue, Policy, PolicyInput } from "../types.ts";

const PATH = joinPath("metadata", "annotations", CONSOLIDATE_EMPTY_AFTER_ANNOTATION);
const SPOT_PATH = joinPath("metadata", "annotations", SPOT_TO_SPOT_ANNOTATION);
const ROLLOUT_PATH = joinPath("metadata", "annotations", DRIFT_ROLLOUT_ANNOTATION);
const OFF_PATH = joinPath("metadata", "annotations", OFF_SCHEDULE_ANNOTATION);

function emptyAfterIssues(input: PolicyInput): Issue[] {
  const delay = emptyAfterOf(asObject(get(input.object, "metadata", "annotations")));
  if (delay.kind === "absent") return [];
  if (delay.kind === "invalid") {
    return [
      {
        path: PATH,
        message: `annotation ${CONSOLIDATE_EMPTY_AFTER_ANNOTATION}: ${delay.message}; kerf's operator would ignore it`,
      },
    ];
  }
  const consolidateAfter = tryParseDuration(get(input.object, "spec", "disruption", "consolidateAfter"));
  if (consolidateAfter === undefined || consolidateAfter === NEVER || delay.ms < consolidateAfter) return [];
  const message =
    `annotation ${CONSOLIDATE_EMPTY_AFTER_ANNOTATION}: ${formatDuration(delay.ms)} is not shorter than ` +
    `consolidateAfter (${formatDuration(consolidateAfter)}), which already lets empty nodes go then: it has no effect`;
  return [{ path: PATH, message, advisory: true }];
}

function spotToSpotIssues(input: PolicyInput): Issue[] {
  const setting = spotToSpotOf(asObject(get(input.object, "metadata", "annotations")));
  if (setting.kind !== "invalid") return [];
  return [
    {
      path: SPOT_PATH,
      message:
        `annotation ${SPOT_TO_SPOT_ANNOTATION}: ${setting.message}; ` +
        `kerf's operator would ignore it (the feature gate decides)`,
    },
  ];
}

function driftRolloutIssues(input: PolicyInput): Issue[] {
  const setting = driftRolloutOf(asObject(get(input.object, "metadata", "annotations")));
  if (setting.kind !== "invalid") return [];
  return [
    {
      path: ROLLOUT_PATH,
      message:
        `annotation ${DRIFT_ROLLOUT_ANNOTATION}: ${setting.message}; kerf's operator ` +
        "would ignore it and replace drifted nodes as fast as the budgets allow",
    },
  ];
}

function offScheduleIssues(input: PolicyInput): Issue[] {
  const schedule = offScheduleOf(asObject(get(input.object, "metadata", "annotations")));
  if (schedule.kind !== "invalid") return [];
  const message =
    `annotation ${OFF_SCHEDULE_ANNOTATION}: ${schedule.message}; ` +
    "kerf's operator would ignore it and keep the pool on";
  return [{ path: OFF_PATH, message }];
}

/** Problems of kerf's annotations on a (defaulted) NodePool. */
export function kerfAnnotationIssues(input: PolicyInput): Issue[] {
  return [
    ...emptyAfterIssues(input),
    ...spotToSpotIssues(input),
    ...driftRolloutIssues(input),
    ...offScheduleIssues(input),
  ];
}

/** The kerf-annotations policy. */
export const KERF_ANNOTATIONS_POLICY: Policy = {
  id: "kerf-annotations",
  kinds: ["NodePool"],
  defaultSeverity: "deny",
  description:
    "kerf's NodePool annotations are usable: " +
    "kerf.dev/consolidate-empty-after a duration shorter than consolidateAfter, " +
    'kerf.dev/spot-to-spot-consolidation "true" or "false", kerf.dev/drift-rollout "waves", ' +
    "kerf.dev/off-schedule a list of cron windows with durations",
  check: kerfAnnotationIssues,
};
