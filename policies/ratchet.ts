// Validation ratcheting (KEP-4008, GA in Kubernetes 1.33): on UPDATE the apiserver drops a schema or CEL error
// whose value is unchanged from the stored object, so objects stored under an older or looser CRD stay updatable
// as long as the update leaves their invalid parts alone. This module answers "ratcheted?" for a JSON location.
import type { SchemaNode } from "./api/schemas/openapi.ts";
import type { Segment } from "./field-path.ts";
import { jsonEqual } from "./json-patch.ts";
import { isObject } from "./object.ts";

const NO_CORRELATION = (): undefined => undefined;

/**
 * How the apiserver finds the old item of a list item (ratcheting, CEL transition rules): by the values of
 * x-kubernetes-list-map-keys for a list-type=map list; items of other lists never correlate.
 */
export function correlateItems(schema: SchemaNode | undefined, old: unknown): (item: unknown) => unknown {
  const keys = schema?.["x-kubernetes-list-map-keys"];
  if (schema?.["x-kubernetes-list-type"] !== "map" || keys === undefined || !Array.isArray(old)) return NO_CORRELATION;
  const keyOf = (item: unknown): string =>
    JSON.stringify(keys.map((k) => (isObject(item) ? item[k] : undefined) ?? null));
  const byKey = new Map(old.map((item) => [keyOf(item), item]));
  return (item) => byKey.get(keyOf(item));
}

function childSchema(schema: SchemaNode | undefined, key: string): SchemaNode | undefined {
  return schema?.properties !== undefined && Object.hasOwn(schema.properties, key)
    ? schema.properties[key]
    : schema?.additionalProperties;
}

/**
 * Whether an error at `segments` of `object` is ratcheted: the value there, or one of its ancestors, equals the old
 * value correlated with it. The apiserver correlates object properties and map values by key and list-type=map items
 * by their keys; items of atomic and set lists never correlate, so an error inside such a list is ratcheted only while
 * the whole list is unchanged. False when there is no old value (a CREATE).
 */
export function ratchetedAt(schema: SchemaNode, object: unknown, old: unknown, segments: readonly Segment[]): boolean {
  let node: SchemaNode | undefined = schema;
  let value = object;
  let previous = old;
  for (const segment of segments) {
    if (previous === undefined) return false;
    if (jsonEqual(value, previous)) return true;
    if (Array.isArray(value)) {
      value = value[Number(segment)];
      previous = correlateItems(node, previous)(value);
      node = node?.items;
    } else if (isObject(value)) {
      const key = String(segment);
      value = Object.hasOwn(value, key) ? value[key] : undefined;
      previous = isObject(previous) && Object.hasOwn(previous, key) ? previous[key] : undefined;
      node = childSchema(node, key);
    } else {
      return false;
    }
  }
  return previous !== undefined && jsonEqual(value, previous);
}
