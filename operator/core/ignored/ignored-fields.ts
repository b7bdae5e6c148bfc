/**
 * The IgnoredFields status condition and the once-per-object log of what kerf's operator does not act on in a
 * NodePool or EC2NodeClass (the list is policies/operator-coverage.ts, shared with `kerf check` and the webhook).
 * Pure: the controllers write the condition and the log.
 */
import {
  ignoredUses,
  ignoredUsesMessage,
  type CoverageKind,
  type IgnoredUse,
} from "../../../policies/operator-coverage.ts";

/** kerf's condition type: True while the object sets something kerf ignores; absent otherwise. */
export const IGNORED_FIELDS_CONDITION = "IgnoredFields";

/** The condition's reason. */
export const IGNORED_FIELDS_REASON = "NotImplemented";

/** The IgnoredFields condition for an object, or undefined when it sets nothing kerf ignores. */
export function ignoredFieldsCondition(
  kind: CoverageKind,
  object: unknown,
): { type: string; status: "True"; reason: string; message: string } | undefined {
  const uses = ignoredUses(kind, object);
  if (uses.length === 0) return undefined;
  return {
    type: IGNORED_FIELDS_CONDITION,
    status: "True",
    reason: IGNORED_FIELDS_REASON,
    message: ignoredUsesMessage(uses),
  };
}

/**
 * Remembers what was last logged per object, so each NodePool and EC2NodeClass is logged when first seen using an
 * ignored field and again only when that list changes, not on every reconcile.
 */
export class IgnoredFieldsMemo {
  private readonly logged = new Map<string, string>();

  /** The uses to log now for this object (undefined: nothing new). Forgets an object that no longer uses any. */
  next(kind: CoverageKind, name: string, object: unknown): readonly IgnoredUse[] | undefined {
    const key = `${kind}/${name}`;
    const uses = object === undefined ? [] : ignoredUses(kind, object);
    const signature = uses.map((u) => u.path).join("\n");
    if (signature === "") {
      this.logged.delete(key);
      return undefined;
    }
    if (this.logged.get(key) === signature) return undefined;
    this.logged.set(key, signature);
    return uses;
  }
}
