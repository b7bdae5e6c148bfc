// Readers for EC2NodeClass fields shared by its policies (re-exports the generic JSON readers).
export { asObject, asString, get, objects } from "../object.ts";

/** Whether a field is present on an object (CEL has() semantics). */
export function has(value: Record<string, unknown>, field: string): boolean {
  return value[field] !== undefined;
}
