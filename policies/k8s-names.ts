// Kubernetes name syntax as apimachinery validates it (IsQualifiedName, IsValidLabelValue), returning error texts.

const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const NAME_HINT =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

const MAX_MEMO = 4096;
/** Longer strings (never valid names or values) are checked directly rather than held in the memo. */
const MAX_MEMO_LENGTH = 320;

/**
 * `check` memoised per string: label keys and values repeat across objects and
 * requests (bounded; cleared when full).
 */
function memoised(check: (value: string) => readonly string[]): (value: string) => readonly string[] {
  const memo = new Map<string, readonly string[]>();
  return (value) => {
    if (value.length > MAX_MEMO_LENGTH) return check(value);
    let errors = memo.get(value);
    if (errors === undefined) {
      errors = check(value);
      if (memo.size >= MAX_MEMO) memo.clear();
      memo.set(value, errors);
    }
    return errors;
  };
}

/** Problems with a qualified name ("prefix/name" or "name"); [] when valid. */
export const qualifiedNameErrors = memoised(checkQualifiedName);

/** Problems with a label value; [] when valid (the empty string is valid). */
export const labelValueErrors = memoised(checkLabelValue);

function checkQualifiedName(value: string): string[] {
  const parts = value.split("/");
  if (parts.length > 2) return [`a qualified name ${NAME_HINT}, with an optional DNS subdomain prefix and '/'`];
  const name = parts.length === 2 ? (parts[1] ?? "") : value;
  const errors: string[] = [];
  if (parts.length === 2) {
    const prefix = parts[0] ?? "";
    if (prefix.length === 0) errors.push("prefix part must be non-empty");
    else if (prefix.length > 253) errors.push("prefix part must be no more than 253 characters");
    else if (!DNS1123_SUBDOMAIN.test(prefix))
      errors.push(
        "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'",
      );
  }
  if (name.length === 0) errors.push("name part must be non-empty");
  else if (name.length > 63) errors.push("name part must be no more than 63 characters");
  else if (!NAME.test(name)) errors.push(`name part ${NAME_HINT}`);
  return errors;
}

function checkLabelValue(value: string): string[] {
  if (value.length > 63) return ["must be no more than 63 characters"];
  return LABEL_VALUE.test(value) ? [] : [`a valid label ${NAME_HINT}`];
}
