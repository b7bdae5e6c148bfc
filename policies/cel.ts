// Evaluates upstream CEL rules through hand-written TypeScript predicates, with CEL's presence and error semantics.
import type { CelRule } from "./api/cel-rules.ts";
import { isTransitionRule } from "./api/cel-rules.ts";
import { isObject } from "./object.ts";
import type { Fact } from "./facts.ts";
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

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * CEL int(): an int stays itself; a string is parsed base 10 into an int64 (Go's strconv.ParseInt), out of
 * range or malformed being an evaluation error. Exact: doubles would let "9223372036854775808" through.
 */
export function celInt(value: unknown): bigint {
  if (typeof value === "number" && Number.isInteger(value)) return BigInt(value);
  if (typeof value !== "string" || !/^[+-]?\d+$/.test(value)) throw new CelEvaluationError(`cannot convert ${String(value)} to int`);
  const parsed = BigInt(value);
  if (parsed < INT64_MIN || parsed > INT64_MAX) throw new CelEvaluationError(`int overflow converting ${value}`);
  return parsed;
}

/** The string list literal inside an upstream rule (e.g. the AWS label allow-list), so predicates share the rule's data. */
export function listLiteral(rule: CelRule): ReadonlySet<string> {
  const literal = /\[((?:\s*(?:"[^"]*"|'[^']*')\s*,?)+)\]/.exec(rule.rule)?.[1];
  if (literal === undefined) throw new Error(`reading list literal of ${rule.id}: none found`);
  return new Set([...literal.matchAll(/"([^"]*)"|'([^']*)'/g)].map((m) => m[1] ?? m[2] ?? ""));
}

/** One step of a rule location: a property, and whether the property is a list whose items are visited. */
interface Step { readonly name: string; readonly isList: boolean }

/** A value found at a location; its apiserver path is only built when a rule fails there. */
interface Located {
  readonly value: unknown;
  readonly parent: Located | undefined;
  readonly name: string;
  /** The list index of the value, or -1 when the step is not a list. */
  readonly index: number;
}

const ROOT_NAME = "";

/** Parses a location such as ".spec.template.spec.requirements[].key" into steps (once, at compile time). */
function compileLocation(on: string): readonly Step[] {
  return on
    .split(".")
    .filter((part) => part !== "")
    .map((part) => (part.endsWith("[]") ? { name: part.slice(0, -2), isList: true } : { name: part, isList: false }));
}

/** Every value at a compiled location, list items expanded, in document order. */
function walk(root: unknown, steps: readonly Step[]): Located[] {
  let current: Located[] = [{ value: root, parent: undefined, name: ROOT_NAME, index: -1 }];
  for (const { name, isList } of steps) {
    const next: Located[] = [];
    for (const parent of current) {
      const child = isObject(parent.value) ? parent.value[name] : undefined;
      if (child === undefined) continue;
      if (!isList) next.push({ value: child, parent, name, index: -1 });
      else if (Array.isArray(child)) child.forEach((item, index) => next.push({ value: item, parent, name, index }));
    }
    if (next.length === 0) return next;
    current = next;
  }
  return current;
}

/** The apiserver path of a located value ("spec.template.spec.requirements[2].key"). */
function pathOf(node: Located): string {
  const parts: string[] = [];
  for (let n: Located | undefined = node; n?.parent !== undefined; n = n.parent) parts.push(n.index < 0 ? n.name : `${n.name}[${n.index}]`);
  return parts.reverse().join(".");
}

/** Every value (with its apiserver path) at a rule location such as ".spec.template.spec.requirements[].key". */
export function nodesAt(root: unknown, on: string): { path: string; value: unknown }[] {
  return walk(root, compileLocation(on)).map((node) => ({ path: pathOf(node), value: node.value }));
}

function oldValueAt(oldObject: unknown, steps: readonly Step[]): { present: boolean; value: unknown } {
  const found = oldObject === undefined ? [] : walk(oldObject, steps);
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

interface CompiledRule { readonly rule: CelRule; readonly predicate: CelPredicate; readonly transition: boolean; readonly fact: Fact | undefined }

/** Consecutive rules attached to the same location: the location is walked once for all of them. */
interface CompiledLocation { readonly steps: readonly Step[]; readonly rules: readonly CompiledRule[] }

type Predicates = Readonly<Record<string, CelPredicate>>;
type Facts = Readonly<Record<string, Fact>>;

function compileRules(rules: readonly CelRule[], predicates: Predicates, facts: Facts = {}): CompiledLocation[] {
  const groups: { on: string; steps: readonly Step[]; rules: CompiledRule[] }[] = [];
  for (const rule of rules) {
    const predicate = predicates[rule.id];
    if (predicate === undefined) throw new Error(`compiling CEL rule ${rule.id}: no predicate`);
    const compiled = { rule, predicate, transition: isTransitionRule(rule), fact: facts[rule.id] };
    const last = groups.at(-1);
    // Only consecutive rules share a group, so findings keep the rules' order.
    if (last?.on === rule.on) last.rules.push(compiled);
    else groups.push({ on: rule.on, steps: compileLocation(rule.on), rules: [compiled] });
  }
  return groups.map(({ steps, rules: grouped }) => ({ steps, rules: grouped }));
}

/** Evaluates rules against an object; transition rules only on UPDATE when the old value exists (as the apiserver does). */
export function evaluateRules(rules: readonly CelRule[], predicates: Readonly<Record<string, CelPredicate>>, input: PolicyInput): Issue[] {
  return evaluateCompiled(compileRules(rules, predicates), input);
}

function evaluateLocation(location: CompiledLocation, input: PolicyInput, issues: Issue[]): void {
  let nodes: Located[] | undefined;
  for (const { rule, predicate, transition, fact } of location.rules) {
    const old = transition && input.operation === "UPDATE" ? oldValueAt(input.oldObject, location.steps) : undefined;
    if (transition && old?.present !== true) continue;
    nodes ??= walk(input.object, location.steps);
    for (const node of nodes) {
      if (!holds(predicate, node.value, old?.value)) issues.push({ path: pathOf(node), message: rule.message, ...(fact === undefined ? {} : { fact }) });
    }
  }
}

function evaluateCompiled(compiled: readonly CompiledLocation[], input: PolicyInput): Issue[] {
  const issues: Issue[] = [];
  for (const location of compiled) evaluateLocation(location, input, issues);
  return issues;
}

/** The "cel" policy of a kind: its upstream rules with their exact messages; `facts` names the rules runtime validation repeats. */
export function celPolicy(kind: Kind, rules: readonly CelRule[], predicates: Predicates, facts: Facts = {}): Policy {
  const compiled = compileRules(rules, predicates, facts);
  return {
    id: "cel",
    kinds: [kind],
    defaultSeverity: "deny",
    fixed: true,
    description: `the ${rules.length} x-kubernetes-validations rules of the ${kind} CRD`,
    check: (input) => evaluateCompiled(compiled, input),
  };
}
