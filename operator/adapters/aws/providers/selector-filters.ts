/** EC2 Describe* filters for one selector term: fields AND within a term; tag value "*" matches any value. */
import type { Filter } from "@aws-sdk/client-ec2";
import type { SelectorTerm } from "../../../core/launch-template/node-class.ts";

/** Filter names for a resource's id and name fields. */
export interface FilterNames {
  readonly id: string;
  readonly name?: string | undefined;
}

/** The filters selecting what one term describes. */
export function termFilters(term: SelectorTerm, names: FilterNames): Filter[] {
  const filters: Filter[] = [];
  if (term.id !== undefined) filters.push({ Name: names.id, Values: [term.id] });
  if (term.name !== undefined && names.name !== undefined) filters.push({ Name: names.name, Values: [term.name] });
  for (const [key, value] of Object.entries(term.tags ?? {})) {
    filters.push(value === "*" ? { Name: "tag-key", Values: [key] } : { Name: `tag:${key}`, Values: [value] });
  }
  return filters;
}

/** Tags as a record. */
export function tagRecord(
  tags: readonly { Key?: string | undefined; Value?: string | undefined }[] | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of tags ?? []) if (t.Key !== undefined) out[t.Key] = t.Value ?? "";
  return out;
}
