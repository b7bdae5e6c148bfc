/**
 * YAML anchors and aliases checked before a document is turned into a value: an alias with no
 * anchor before it, and an alias inside its own anchor (a recursive value, which no Kubernetes
 * object can be and which would make every walk over it loop), are input errors with a position.
 * Expansion is bounded when converting (the `yaml` package's maxAliasCount, MAX_ALIAS_COUNT here).
 */
import { isAlias, visit, type Document, type Node } from "yaml";

/**
 * The `yaml` package's bound on alias expansion: an anchor's uses times the aliases nested inside
 * it may not exceed this. A "billion laughs" document passes it within a few levels; Kubernetes
 * manifests that use aliases at all use a handful.
 */
export const MAX_ALIAS_COUNT = 1000;

/** A problem with a document's aliases, at a source offset. */
export interface AliasProblem {
  readonly offset: number;
  readonly message: string;
}

/** The first unresolvable or recursive alias of `doc`, in document order. */
export function aliasProblem(doc: Document.Parsed): AliasProblem | undefined {
  const anchors = new Map<string, Node>();
  let problem: AliasProblem | undefined;
  visit(doc, {
    Node: (_key, node, path) => {
      if (isAlias(node)) {
        const source = anchors.get(node.source);
        const offset = node.range?.[0] ?? 0;
        const name = node.source;
        if (source === undefined) problem = { offset, message: `alias *${name} has no anchor &${name} before it` };
        else if (path.includes(source))
          problem = { offset, message: `alias *${name} is inside its own anchor &${name} (a recursive value)` };
        if (problem !== undefined) return visit.BREAK;
      } else if (node.anchor !== undefined) {
        // The last anchor of a name before an alias is the one it refers to.
        anchors.set(node.anchor, node);
      }
      return undefined;
    },
  });
  return problem;
}

/** Offset of the first alias of `doc`, if it has any. */
export function firstAliasOffset(doc: Document.Parsed): number | undefined {
  let offset: number | undefined;
  visit(doc, {
    Alias: (_key, node) => {
      offset = node.range?.[0];
      return visit.BREAK;
    },
  });
  return offset;
}
