// Evaluates a compiled schema's rules against an object the way the apiserver's CEL validator walks it
// (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go): every rule at every node with a value,
// for each list item and map value; transition rules only where an old value correlates.
import { jsonEqual } from "../json-patch.ts";
import { correlateItems } from "../ratchet.ts";
import { BoundedMemo } from "../memo.ts";
import type { CompiledNode, CompiledRule } from "./rules.ts";
import { newConverter, type Converter } from "./values.ts";

/** A rule that did not hold (or failed to evaluate, or could not be evaluated by kerf: `unsupported`). */
export interface RuleFailure {
  /** Apiserver field path: "spec.requirements[2].key", map values "spec.tags[key]". */
  readonly path: string;
  readonly message: string;
  readonly rule: CompiledRule;
  /** The rule raised an evaluation error (the apiserver rejects the object then too). */
  readonly evaluationError?: string;
  /** kerf could not evaluate the rule: not a verdict. */
  readonly unsupported?: string;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A path built only when a rule fails (most nodes pass). */
interface PathNode {
  readonly parent: PathNode | undefined;
  readonly text: string;
}

function render(node: PathNode | undefined): string {
  const parts: string[] = [];
  for (let n = node; n !== undefined; n = n.parent) parts.push(n.text);
  return parts.reverse().join("").replace(/^\./, "");
}

const MESSAGE_EXPRESSION_MAX_BYTES = 5 * 1024;

/** What the apiserver reports for a rule without a (usable) message expression. */
function ruleMessage(rule: CompiledRule): string {
  const message = rule.rule.message?.trim() ?? "";
  return message !== "" ? message : `failed rule: ${rule.rule.rule.trim()}`;
}

/**
 * The messageExpression's string, or undefined where the apiserver falls back to the
 * message (its error or bad value).
 */
function evaluatedMessage(rule: CompiledRule, bindings: { self: unknown; oldSelf?: unknown }): string | undefined {
  const outcome = rule.messageExpression?.evaluate(bindings as never);
  if (outcome?.ok !== true || typeof outcome.value !== "string") return undefined;
  const message = outcome.value.trim();
  const tooLong = new TextEncoder().encode(message).length > MESSAGE_EXPRESSION_MAX_BYTES;
  return message === "" || message.includes("\n") || tooLong ? undefined : message;
}

interface Walk {
  readonly convert: Converter;
  readonly convertOld: Converter;
  readonly update: boolean;
  readonly failures: RuleFailure[];
}

/** A value being validated, its correlated old value (undefined when none) and its path. */
interface At {
  readonly value: unknown;
  readonly old: unknown;
  readonly path: PathNode | undefined;
}

/** A rule's verdict on one value, before it is placed at a path: undefined when the rule held (or was skipped). */
interface Verdict {
  readonly rule: CompiledRule;
  readonly message: string;
  /** The rule returned false: its fieldPath applies. */
  readonly failed?: true;
  readonly evaluationError?: string;
  readonly unsupported?: string;
}

function evaluateRule(rule: CompiledRule, node: CompiledNode, at: At, walk: Walk): Verdict | undefined {
  // optionalOldSelf rules run without an old value too (oldSelf is then optional.none()).
  if (rule.transition && at.old === undefined && rule.rule.optionalOldSelf !== true) return undefined;
  if (rule.expression === undefined) {
    return { rule, message: ruleMessage(rule), unsupported: rule.unsupported ?? "not compiled" };
  }
  const bindings = rule.transition
    ? { self: walk.convert(at.value, node.schema), oldSelf: walk.convertOld(at.old, node.schema) }
    : { self: walk.convert(at.value, node.schema) };
  const outcome = rule.expression.evaluate(bindings);
  // kerf reports the rule's message where the apiserver writes "<error> evaluating rule: <message>".
  if (!outcome.ok) return { rule, message: ruleMessage(rule), evaluationError: outcome.error };
  if (outcome.value === true) return undefined;
  return { rule, message: evaluatedMessage(rule, bindings) ?? ruleMessage(rule), failed: true };
}

function place(verdict: Verdict, path: PathNode | undefined): RuleFailure {
  const base = render(path);
  const { rule, failed, ...rest } = verdict;
  const at =
    failed !== true || rule.fieldPath === "" ? base : base === "" ? rule.fieldPath : `${base}.${rule.fieldPath}`;
  return { path: at, rule, ...rest };
}

/**
 * Verdicts of a node's rules that do not read oldSelf, by the value's JSON: they depend on nothing else, and label
 * keys, requirement lists and specs recur across reviews. Bounded per node (policies/memo.ts).
 */
const MEMOS = new WeakMap<CompiledNode, BoundedMemo<readonly Verdict[]>>();
const MEMO_LIMITS = { maxEntries: 256, maxKeyLength: 4096, maxTotalLength: 64 * 1024 };

function memoOf(node: CompiledNode): BoundedMemo<readonly Verdict[]> {
  let memo = MEMOS.get(node);
  if (memo === undefined) {
    memo = new BoundedMemo(MEMO_LIMITS);
    MEMOS.set(node, memo);
  }
  return memo;
}

/** What is left of `budget` after the JSON of `value` (roughly: strings, keys and punctuation), or -1 once spent. */
function jsonBudgetLeft(value: unknown, budget: number): number {
  if (typeof value === "string") return budget - value.length - 2;
  if (typeof value !== "object" || value === null) return budget - 24;
  let left = budget - 2;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && left >= 0; i++) left = jsonBudgetLeft(value[i], left - 1);
    return left;
  }
  for (const key in value) {
    if (left < 0) break;
    left = jsonBudgetLeft((value as Json)[key], left - key.length - 4);
  }
  return left;
}

/**
 * The memo key of a value: its JSON, or undefined when that would pass the memo's key
 * limit (never serialised then).
 */
function memoKey(value: unknown): string | undefined {
  return jsonBudgetLeft(value, MEMO_LIMITS.maxKeyLength) < 0 ? undefined : JSON.stringify(value);
}

function evaluateRules(node: CompiledNode, at: At, walk: Walk): void {
  const transition = node.rules.filter((r) => r.transition);
  const stateless = transition.length === 0 ? node.rules : node.rules.filter((r) => !r.transition);
  if (stateless.length > 0) {
    const key = memoKey(at.value);
    const memo = memoOf(node);
    let verdicts = key === undefined ? undefined : memo.get(key);
    if (verdicts === undefined) {
      verdicts = stateless.map((rule) => evaluateRule(rule, node, at, walk)).filter((v) => v !== undefined);
      if (key !== undefined) memo.set(key, verdicts);
    }
    for (const verdict of verdicts) walk.failures.push(place(verdict, at.path));
  }
  for (const rule of transition) {
    const verdict = evaluateRule(rule, node, at, walk);
    if (verdict !== undefined) walk.failures.push(place(verdict, at.path));
  }
}

/** The old list items by their x-kubernetes-list-map-keys; other lists' items never correlate. */

function visitItems(node: CompiledNode, items: readonly unknown[], at: At, walk: Walk): void {
  const itemNode = node.items;
  if (itemNode === undefined) return;
  const oldOf = correlateItems(node.schema, walk.update ? at.old : undefined);
  items.forEach((item, index) => {
    visit(itemNode, { value: item, old: oldOf(item), path: { parent: at.path, text: `[${index}]` } }, walk);
  });
}

function visitFields(node: CompiledNode, value: Json, at: At, walk: Walk): void {
  const oldMap = isObject(at.old) ? at.old : undefined;
  const declared = node.schema.properties;
  for (const key of Object.keys(value)) {
    const property = node.properties.get(key);
    if (property !== undefined) {
      visit(property, { value: value[key], old: oldMap?.[key], path: { parent: at.path, text: `.${key}` } }, walk);
    } else if (node.additionalProperties !== undefined && (declared === undefined || !Object.hasOwn(declared, key))) {
      const path = { parent: at.path, text: `[${key}]` };
      visit(node.additionalProperties, { value: value[key], old: oldMap?.[key], path }, walk);
    }
  }
}

function visit(node: CompiledNode, at: At, walk: Walk): void {
  // Null and absent values are not validated: rules on a field only see it set.
  if (at.value === undefined || at.value === null) return;
  // Ratcheting (KEP-4008, policies/ratchet.ts): on UPDATE a value equal to its correlated old one is not
  // validated again, nor is anything under it (where list items stop correlating, the unchanged list still counts).
  if (walk.update && at.old !== undefined && at.old !== null && jsonEqual(at.value, at.old)) return;
  const here = at.old === null ? { ...at, old: undefined } : at;
  if (node.rules.length > 0) evaluateRules(node, here, walk);
  if (Array.isArray(here.value)) visitItems(node, here.value, here, walk);
  else if (isObject(here.value)) visitFields(node, here.value, here, walk);
}

/**
 * The rule failures of `object` (and, on UPDATE, its transition against `oldObject`) under a compiled schema.
 * `root` is compiled from the resource root, whose metadata rules see as name and
 * generateName only (as the apiserver does).
 */
export function validateRules(root: CompiledNode, object: unknown, oldObject: unknown): RuleFailure[] {
  const update = oldObject !== undefined;
  const walk: Walk = {
    convert: newConverter(root.schema),
    convertOld: newConverter(root.schema),
    update,
    failures: [],
  };
  visit(root, { value: object, old: update ? oldObject : undefined, path: undefined }, walk);
  return walk.failures;
}
