// consolidate-empty-after: kerf's NodePool annotation kerf.dev/consolidate-empty-after is read as the operator reads it
// (domain/empty-after.ts): an unusable value is ignored there, so it is denied here; one that cannot act is a warning.
import { CONSOLIDATE_EMPTY_AFTER_ANNOTATION, emptyAfterOf } from "../domain/empty-after.ts";
import { formatDuration, NEVER, tryParseDuration } from "../domain/duration.ts";
import { joinPath } from "../field-path.ts";
import { asObject, get } from "../object.ts";
import type { Issue, Policy, PolicyInput } from "../types.ts";

const PATH = joinPath("metadata", "annotations", CONSOLIDATE_EMPTY_AFTER_ANNOTATION);

/** Problems of the annotation on a (defaulted) NodePool. */
export function emptyAfterIssues(input: PolicyInput): Issue[] {
  const delay = emptyAfterOf(asObject(get(input.object, "metadata", "annotations")));
  if (delay.kind === "absent") return [];
  if (delay.kind === "invalid") {
    return [{ path: PATH, message: `annotation ${CONSOLIDATE_EMPTY_AFTER_ANNOTATION}: ${delay.message}; kerf's operator would ignore it` }];
  }
  const consolidateAfter = tryParseDuration(get(input.object, "spec", "disruption", "consolidateAfter"));
  if (consolidateAfter === undefined || consolidateAfter === NEVER || delay.ms < consolidateAfter) return [];
  const message = `annotation ${CONSOLIDATE_EMPTY_AFTER_ANNOTATION}: ${formatDuration(delay.ms)} is not shorter than ` +
    `consolidateAfter (${formatDuration(consolidateAfter)}), which already lets empty nodes go then: it has no effect`;
  return [{ path: PATH, message, advisory: true }];
}

/** The consolidate-empty-after policy. */
export const CONSOLIDATE_EMPTY_AFTER_POLICY: Policy = {
  id: "consolidate-empty-after",
  kinds: ["NodePool"],
  defaultSeverity: "deny",
  description: "the kerf.dev/consolidate-empty-after annotation is a duration (emptiness removes empty nodes after it) shorter than consolidateAfter",
  check: emptyAfterIssues,
};
