// Facts that both a parity policy (schema, cel) and Karpenter's runtime validation report: one finding per fact.

/** What a finding is about, where two policies can say the same thing about the same field. */
export const Fact = {
  requirementOperator: "requirement-operator",
  requirementInValues: "requirement-in-values",
  requirementOrderValue: "requirement-order-value",
  requirementMinValues: "requirement-min-values",
  restrictedRequirementKey: "restricted-requirement-key",
  restrictedTemplateLabel: "restricted-template-label",
  templateLabelValue: "template-label-value",
  requirementKeySyntax: "requirement-key-syntax",
} as const;

export type Fact = (typeof Fact)[keyof typeof Fact];

/** Facts the CRD schema checks at the very path the runtime issue names: a schema issue there is the same fact. */
const SCHEMA_FACTS: ReadonlySet<Fact> = new Set([
  Fact.requirementOperator,
  Fact.templateLabelValue,
  Fact.requirementKeySyntax,
]);

/** An issue with the fact it states, if it shares one with another policy. */
export interface FactIssue {
  readonly path: string;
  readonly message: string;
  readonly fact?: Fact;
}

/** Whether `path` is `parent` or a field below it. */
function within(path: string, parent: string): boolean {
  return path === parent || path.startsWith(`${parent}.`) || path.startsWith(`${parent}[`);
}

/**
 * Drops each runtime issue whose fact a schema or cel issue already states, keeping the parity issue (the
 * apiserver's message; its policy cannot be turned off) at the more precise path: a cel rule on a list
 * ("spec.template.spec.requirements") takes the path of each runtime issue it covers ("…requirements[3].values").
 */
export function mergeSharedFacts<T extends FactIssue>(
  schema: readonly T[],
  cel: readonly T[],
  runtime: readonly T[],
): { cel: T[]; runtime: T[] } {
  const refined = new Map<T, string[]>();
  const kept = runtime.filter((r) => {
    if (r.fact === undefined) return true;
    if (SCHEMA_FACTS.has(r.fact) && schema.some((s) => s.path === r.path)) return false;
    const covering = cel.find((c) => c.fact === r.fact && within(r.path, c.path));
    if (covering === undefined) return true;
    if (covering.path !== r.path) refined.set(covering, [...(refined.get(covering) ?? []), r.path]);
    return false;
  });
  const merged = cel.flatMap((c) => {
    const paths = refined.get(c);
    return paths === undefined ? [c] : [...new Set(paths)].map((path) => ({ ...c, path }));
  });
  return { cel: merged, runtime: kept };
}

/** The facts of NodePool CRD rules that Karpenter's runtime validation states too, by rule location and message. */
const RULE_FACTS: readonly { location: string; message: RegExp; fact: Fact }[] = [
  { location: ".spec.template.metadata.labels", message: /restricted/, fact: Fact.restrictedTemplateLabel },
  { location: ".spec.template.spec.requirements[].key", message: /restricted/, fact: Fact.restrictedRequirementKey },
  {
    location: ".spec.template.spec.requirements",
    message: /operator 'In' must have a value/,
    fact: Fact.requirementInValues,
  },
  {
    location: ".spec.template.spec.requirements",
    message: /single positive integer value/,
    fact: Fact.requirementOrderValue,
  },
  { location: ".spec.template.spec.requirements", message: /'minValues'/, fact: Fact.requirementMinValues },
];

/**
 * The fact a CRD rule states (at its schema location,
 * e.g. ".spec.template.spec.requirements"), if runtime shares it.
 */
export function ruleFact(location: string, message: string): Fact | undefined {
  return RULE_FACTS.find((f) => f.location === location && f.message.test(message))?.fact;
}
