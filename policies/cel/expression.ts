// Compiles one CEL expression against the Kubernetes environment (self, oldSelf and the Kubernetes library).
import { celEnv, isCelError, parse, plan, type CelInput, type CelValue } from "@bufbuild/cel";
import { KUBERNETES_FUNCTIONS } from "./kubernetes-library.ts";

type Expr = NonNullable<ReturnType<typeof parse>["expr"]>;

const ENV = celEnv({ funcs: [...KUBERNETES_FUNCTIONS] });

/** Calls the planner evaluates itself rather than through the function resolver. */
const PLANNER_CALLS: ReadonlySet<string> = new Set([
  "_&&_",
  "_||_",
  "_?_:_",
  "_[_]",
  "@not_strictly_false",
  "_[?_]",
  "_?._",
]);

/**
 * A rule (or messageExpression) cel-go accepts that kerf cannot evaluate (a syntax or a
 * function @bufbuild/cel lacks).
 */
export class CelCompileError extends Error {
  constructor(expression: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`compiling CEL expression ${JSON.stringify(expression)}: ${reason}`, { cause });
    this.name = "CelCompileError";
  }
}

/** The variables a rule sees. */
export interface Bindings {
  self: CelInput;
  oldSelf?: CelInput;
}

/**
 * An evaluation's outcome: the value, or the CEL evaluation error's text (no such key,
 * bad int(), index out of range).
 */
export type Outcome = { ok: true; value: CelValue } | { ok: false; error: string };

export interface CompiledExpression {
  readonly source: string;
  /** Whether the expression reads oldSelf: a transition rule. */
  readonly readsOldSelf: boolean;
  evaluate(bindings: Bindings): Outcome;
}

/** The direct subexpressions of an expression (comprehension parts included). */
function children(expr: Expr): (Expr | undefined)[] {
  const kind = expr.exprKind;
  switch (kind.case) {
    case "selectExpr":
      return [kind.value.operand];
    case "callExpr":
      return [kind.value.target, ...kind.value.args];
    case "listExpr":
      return kind.value.elements;
    case "structExpr":
      return kind.value.entries.flatMap((e) => [e.keyKind.case === "mapKey" ? e.keyKind.value : undefined, e.value]);
    case "comprehensionExpr": {
      const c = kind.value;
      return [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result];
    }
    default:
      return [];
  }
}

/** Every function called and every identifier read in a parsed expression. */
function references(expr: Expr | undefined, out: { calls: Set<string>; idents: Set<string> }): void {
  if (expr === undefined) return;
  if (expr.exprKind.case === "identExpr") out.idents.add(expr.exprKind.value.name);
  if (expr.exprKind.case === "callExpr") out.calls.add(expr.exprKind.value.function);
  for (const child of children(expr)) references(child, out);
}

/** Parses and plans an expression once; throws CelCompileError for syntax or functions kerf cannot evaluate. */
export function compileExpression(source: string): CompiledExpression {
  let parsed;
  try {
    parsed = parse(source);
  } catch (error) {
    throw new CelCompileError(source, error);
  }
  const refs = { calls: new Set<string>(), idents: new Set<string>() };
  references(parsed.expr, refs);
  const unknown = [...refs.calls].filter((name) => !PLANNER_CALLS.has(name) && ENV.funcs.find(name) === undefined);
  if (unknown.length > 0) throw new CelCompileError(source, new Error(`unsupported function ${unknown.join(", ")}`));
  const program = plan(ENV, parsed);
  return {
    source,
    readsOldSelf: refs.idents.has("oldSelf"),
    evaluate: (bindings) => {
      const value = program(bindings as unknown as Record<string, CelInput>);
      return isCelError(value) ? { ok: false, error: value.message } : { ok: true, value };
    },
  };
}
