// Evaluates upstream CEL rules through hand-written TypeScript predicates, with CEL's presence and error semantics.
import type { CelRule } from "./api/cel-rules.ts";
import { isTransitionRule } from "./api/cel-rules.ts";
import { isObject } from "./object.ts";
import type { Issue, Kind, Policy, PolicyInput } from "./types.ts";

/** A CEL rule as a predicate over `self` (and `oldSelf` for transition rules). Throwing = CEL evaluation error. */
export type CelPredicate = (self: unknown, oldSelf: unknown) => boolean;

/** Thrown by the helpers where CEL would raise an evaluation error (no such key, bad int(), index out of range). */
export class CelEvaluationError extends Error {}

/** CEL has(x.f): the field is present. */
export function has(value: unknown, field: string): boolean {
  return isObject(value) && value[field] !== undefined;
}

/** CEL x.f: the field's value; a missing field is an evaluation error. */
export function sel(value: unknown, field: string): unknown {
  if (!isObject(value) || value[field] === undefined) throw new CelEvaluationError(`no such key: ${field}`);
  return value[field];
}

/** A list's items or a map's keys, as CEL macros (all/exists/filter) iterate them. */
export function items(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (isObject(value)) return Object.keys(value);
  throw new CelEvaluationError("not a list or map");
}

/** CEL size(). */
export function size(value: unknown): number {
  if (typeof value === "string") return value.length;
  return items(value).length;
}

/** CEL s.find(re): the first match or "". */
export function find(value: unknown, pattern: RegExp): string {
  return pattern.exec(String(value))?.[0] ?? "";
}

/** The domain part CEL computes with `x.find("^([^/]+)")`. */
export function celDomain(key: unknown): string {
  return find(key, /^([^/]+)/);
}

/** CEL int(string): base-10 int64 parse; anything else is an evaluation error. */
export function celInt(value: unknown): number {
  if (typeof value === "number" && Number.isInteger(value)) return value;
  if (typeof value !== "string" || !/^[+-]?\d+$/.test(value)) throw new CelEvaluationError(`cannot convert ${String(value)} to int`);
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) && Math.abs(parsed) > 9223372036854775807) throw new CelEvaluationError("int overflow");
  return parsed;
}

/** The string list literal inside an upstream rule (e.g. the AWS label allow-list), so predicates share the rule's data. */
export function listLiteral(rule: CelRule): ReadonlySet<string> {
  const literal = /\[((?:\s*(?:"[^"]*"|'[^']*')\s*,?)+)\]/.exec(rule.rule)?.[1];
  if (literal === undefined) throw new Error(`reading list literal of ${rule.id}: none found`);
  return new Set([...literal.matchAll(/"([^"]*)"|'([^']*)'/g)].map((m) => m[1] ?? m[2] ?? ""));
}

type Located = { path: string; value: unknown }[];

interface Step { parent: string; name: string; isList: boolean }
const STEPS = new Map<string, Step>();

/** The last step of a location (".a.b[]" → parent ".a", name "b", list); parsed once per distinct location. */
function stepOf(on: string): Step {
  let step = STEPS.get(on);
  if (step === undefined) {
    const cut = on.lastIndexOf(".");
    const part = on.slice(cut + 1);
    const isList = part.endsWith("[]");
    step = { parent: cut <= 0 ? "" : on.slice(0, cut), name: isList ? part.slice(0, -2) : part, isList };
    STEPS.set(on, step);
  }
  return step;
}

/** Every value (with its apiserver path) at a rule location such as ".spec.template.spec.requirements[].key". */
export function nodesAt(root: unknown, on: string, memo: Map<string, Located> = new Map()): Located {
  const cached = memo.get(on);
  if (cached !== undefined) return cached;
  const { parent, name, isList } = stepOf(on);
  const parents = parent === "" ? [{ path: "", value: root }] : nodesAt(root, parent, memo);
  const out: Located = [];
  for (const { path, value } of parents) {
    const child = isObject(value) ? value[name] : undefined;
    if (child === undefined) continue;
    const childPath = path === "" ? name : `${path}.${name}`;
    if (!isList) out.push({ path: childPath, value: child });
    else if (Array.isArray(child)) child.forEach((item, i) => out.push({ path: `${childPath}[${i}]`, value: item }));
  }
  memo.set(on, out);
  return out;
}

function oldValueAt(oldObject: unknown, on: string): { present: boolean; value: unknown } {
  const found = oldObject === undefined ? [] : nodesAt(oldObject, on);
  return found.length === 1 ? { present: true, value: found[0]?.value } : { present: false, value: undefined };
}

function holds(predicate: CelPredicate, self: unknown, oldSelf: unknown): boolean {
  try {
    return predicate(self, oldSelf);
  } catch (error) {
    if (error instanceof CelEvaluationError || error instanceof TypeError) return false; // the apiserver rejects on evaluation errors
    throw error;
  }
}

interface CompiledRule { rule: CelRule; predicate: CelPredicate; transition: boolean }

function compileRules(rules: readonly CelRule[], predicates: Readonly<Record<string, CelPredicate>>): CompiledRule[] {
  return rules.map((rule) => {
    const predicate = predicates[rule.id];
    if (predicate === undefined) throw new Error(`compiling CEL rule ${rule.id}: no predicate`);
    return { rule, predicate, transition: isTransitionRule(rule) };
  });
}

/** Evaluates rules against an object; transition rules only on UPDATE when the old value exists (as the apiserver does). */
export function evaluateRules(rules: readonly CelRule[], predicates: Readonly<Record<string, CelPredicate>>, input: PolicyInput): Issue[] {
  return evaluateCompiled(compileRules(rules, predicates), input);
}

function evaluateCompiled(compiled: readonly CompiledRule[], input: PolicyInput): Issue[] {
  const issues: Issue[] = [];
  const located = new Map<string, Located>();
  for (const { rule, predicate, transition } of compiled) {
    const old = transition && input.operation === "UPDATE" ? oldValueAt(input.oldObject, rule.on) : { present: false, value: undefined };
    if (transition && !old.present) continue;
    for (const { path, value } of nodesAt(input.object, rule.on, located)) {
      if (!holds(predicate, value, old.value)) issues.push({ path, message: rule.message });
    }
  }
  return issues;
}

/** The "cel" policy of a kind: its upstream rules with their exact messages. */
export function celPolicy(kind: Kind, rules: readonly CelRule[], predicates: Readonly<Record<string, CelPredicate>>): Policy {
  const compiled = compileRules(rules, predicates);
  return {
    id: "cel",
    kinds: [kind],
    defaultSeverity: "deny",
    fixed: true,
    description: `the ${rules.length} x-kubernetes-validations rules of the ${kind} CRD`,
    check: (input) => evaluateCompiled(compiled, input),
  };
}
