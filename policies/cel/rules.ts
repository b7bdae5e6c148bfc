// Compiles the x-kubernetes-validations of a CRD schema once (per schema object) into a tree of the nodes that have
// rules or lead to some: evaluation walks only those.
import type { SchemaNode, ValidationRule } from "../api/schemas/openapi.ts";
import { ownValue } from "../object.ts";
import { CelCompileError, compileExpression, type CompiledExpression } from "./expression.ts";

export interface CompiledRule {
  readonly rule: ValidationRule;
  /** Where the rule sits in the schema: ".spec.requirements[].key" ("[]" list items, "{}" map values). */
  readonly location: string;
  /** The rule, or undefined when kerf cannot evaluate it (then `unsupported` says why). */
  readonly expression: CompiledExpression | undefined;
  readonly messageExpression: CompiledExpression | undefined;
  readonly unsupported: string | undefined;
  /** Reads oldSelf: evaluated only on UPDATE where an old value correlates. */
  readonly transition: boolean;
  /** The rule's fieldPath as the apiserver appends it to the node's path ("" when unset). */
  readonly fieldPath: string;
}

export interface CompiledNode {
  readonly schema: SchemaNode;
  readonly rules: readonly CompiledRule[];
  readonly properties: ReadonlyMap<string, CompiledNode>;
  readonly items: CompiledNode | undefined;
  readonly additionalProperties: CompiledNode | undefined;
}

/** Thrown when a rule's fieldPath does not name a field of the schema (the apiserver rejects such a CRD). */
export class FieldPathError extends Error {}

/**
 * The apiserver's normalized fieldPath (ValidFieldPath): ".a['b.c']" → "a.b.c" for properties, "a[k]" for map keys.
 * Quoted names are unescaped only for \' and \\ (enough for names; the apiserver rejects the CRD otherwise).
 */
export function normalizeFieldPath(fieldPath: string, schema: SchemaNode): string {
  let node: SchemaNode | undefined = schema;
  let out = "";
  const token = /\.([^.[\]']+)|\['((?:[^'\\]|\\.)*)'\]/gy;
  for (let match = token.exec(fieldPath); match !== null; match = token.exec(fieldPath)) {
    const step = stepInto(node, match[1] ?? (match[2] ?? "").replace(/\\(.)/g, "$1"), match[2] !== undefined);
    if (step === undefined)
      throw new FieldPathError(`fieldPath ${fieldPath}: ${match[1] ?? match[2] ?? ""} is not a field`);
    out += step.named ? (out === "" ? step.name : `.${step.name}`) : `[${step.name}]`;
    node = step.node;
    if (token.lastIndex === fieldPath.length) return out;
  }
  if (fieldPath !== "") throw new FieldPathError(`fieldPath ${fieldPath}: not a path of fields`);
  return out;
}

/** One fieldPath step: a property, or (quoted only) a map key. */
type Step = { name: string; named: boolean; node: SchemaNode };

function stepInto(node: SchemaNode | undefined, name: string, quoted: boolean): Step | undefined {
  const property = ownValue(node?.properties, name);
  if (property !== undefined) return { name, named: true, node: property };
  if (quoted && node?.additionalProperties !== undefined)
    return { name, named: false, node: node.additionalProperties };
  return undefined;
}

function compileRule(rule: ValidationRule, location: string, schema: SchemaNode): CompiledRule {
  try {
    const expression = compileExpression(rule.rule);
    const { messageExpression: messageSource } = rule;
    const messageExpression = messageSource === undefined ? undefined : compileExpression(messageSource);
    const fieldPath = rule.fieldPath === undefined ? "" : normalizeFieldPath(rule.fieldPath, schema);
    // optionalOldSelf binds oldSelf to a CEL optional, a type @bufbuild/cel does not have.
    const optional = rule.optionalOldSelf === true && expression.readsOldSelf;
    const unsupported = optional ? "optionalOldSelf (CEL optional values) is not supported" : undefined;
    const usable = unsupported === undefined ? expression : undefined;
    const transition = expression.readsOldSelf;
    return { rule, location, expression: usable, messageExpression, unsupported, transition, fieldPath };
  } catch (error) {
    if (!(error instanceof CelCompileError || error instanceof FieldPathError)) throw error;
    const none = { expression: undefined, messageExpression: undefined, transition: false, fieldPath: "" };
    return { rule, location, ...none, unsupported: error.message };
  }
}

function compileNode(schema: SchemaNode, location: string): CompiledNode | undefined {
  const rules = (schema["x-kubernetes-validations"] ?? []).map((rule) => compileRule(rule, location, schema));
  const properties = new Map<string, CompiledNode>();
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    const compiled = compileNode(child, `${location}.${name}`);
    if (compiled !== undefined) properties.set(name, compiled);
  }
  const items = schema.items === undefined ? undefined : compileNode(schema.items, `${location}[]`);
  const values = schema.additionalProperties;
  const additionalProperties = values === undefined ? undefined : compileNode(values, `${location}{}`);
  const empty =
    rules.length === 0 && properties.size === 0 && items === undefined && additionalProperties === undefined;
  if (empty) return undefined;
  return { schema, rules, properties, items, additionalProperties };
}

const COMPILED = new WeakMap<SchemaNode, CompiledNode | null>();

/**
 * The compiled rules of a CRD schema (its openAPIV3Schema), or undefined when it has
 * none; compiled once per object.
 */
export function compiledRules(schema: SchemaNode): CompiledNode | undefined {
  let compiled = COMPILED.get(schema);
  if (compiled === undefined) {
    compiled = compileNode(schema, "") ?? null;
    COMPILED.set(schema, compiled);
  }
  return compiled ?? undefined;
}

/** Every rule of a compiled schema, in schema order. */
export function allRules(node: CompiledNode | undefined): CompiledRule[] {
  if (node === undefined) return [];
  return [
    ...node.rules,
    ...[...node.properties.values()].flatMap(allRules),
    ...allRules(node.items),
    ...allRules(node.additionalProperties),
  ];
}
