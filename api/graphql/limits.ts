/**
 * A GraphQL document's cost bounded before any expensive work. Validation (overlapping
 * fields in particular) is quadratic in the fields of a selection set, and graphql-js's
 * parser recurses once per level of nesting: a 61 KB document repeating one field thousands
 * of times, or one nested thousands of levels deep, would freeze the event loop or overflow
 * the stack before the schema's limits ran. So, in order, each step linear in the document:
 *
 *   1. its length (characters);
 *   2. one pass of graphql-js's lexer (iterative, never recursive) counting tokens and the
 *      nesting of brackets, braces and parentheses — so the parser never recurses deeper
 *      than `MAX_NESTING`;
 *   3. graphql-js's parser with `maxTokens`;
 *   4. one walk of the parsed document (fragments expanded, each once, memoized) for its
 *      breadth (fields selected), the depth of its selections and fields repeated under one
 *      name in a selection set.
 *
 * Only then is the document validated against the schema (whose depth, alias and cost limits
 * still apply). Every refusal is a GraphQL error with status 400 and code QUERY_TOO_COMPLEX.
 */
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  Lexer,
  type ParseOptions,
  type SelectionSetNode,
  Source,
  TokenKind,
  parse,
} from "graphql";
import type { Plugin } from "graphql-yoga";
import { MAX_BREADTH, MAX_DEPTH } from "./builder.js";

/** Longest query text, in characters (a query within every limit below is a few KB). */
export const MAX_DOCUMENT_CHARS = 32 * 1024;
/** Most lexical tokens in a document (GraphiQL's introspection query has about 400). */
export const MAX_TOKENS = 5_000;
/** Deepest nesting of `{`, `[` and `(` (selections, list and object values, arguments). */
export const MAX_NESTING = 64;
/** Most times one response name may be selected in one selection set. */
export const MAX_REPEATED_FIELD = 10;

export type LimitKind = "size" | "tokens" | "nesting" | "breadth" | "depth" | "repeated";

export function tooComplex(kind: LimitKind, value: number, max: number, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: "QUERY_TOO_COMPLEX", kind, value, max, http: { status: 400 } } });
}

const OPENERS = new Set<string>([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const CLOSERS = new Set<string>([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

/** Steps 1 and 2: length, tokens and nesting, from the text alone. Syntax errors are the lexer's own. */
export function checkSource(text: string): void {
  if (text.length > MAX_DOCUMENT_CHARS) {
    throw tooComplex("size", text.length, MAX_DOCUMENT_CHARS, `query of ${text.length} characters exceeds the limit of ${MAX_DOCUMENT_CHARS}`);
  }
  const lexer = new Lexer(new Source(text));
  let tokens = 0;
  let nesting = 0;
  for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
    if (++tokens > MAX_TOKENS) throw tooComplex("tokens", tokens, MAX_TOKENS, `query has more than ${MAX_TOKENS} tokens`);
    if (OPENERS.has(token.kind)) {
      if (++nesting > MAX_NESTING) throw tooComplex("nesting", nesting, MAX_NESTING, `query nesting exceeds the limit of ${MAX_NESTING} levels`);
    } else if (CLOSERS.has(token.kind)) nesting--;
  }
}

type Shape = { breadth: number; depth: number };

/**
 * Step 4: breadth (fields selected, fragments counted where they are spread), depth (as the
 * depth limit counts it: a fragment spread is a level, `__schema` is not counted) and
 * repeated fields. Iterative over selection sets; each fragment is measured once.
 */
export function checkShape(document: DocumentNode): void {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const measured = new Map<string, Shape | "measuring">();

  const fragmentShape = (name: string): Shape => {
    const known = measured.get(name);
    // A cycle is refused by validation; here it only must not loop.
    if (known === "measuring") return { breadth: 0, depth: 0 };
    if (known) return known;
    const fragment = fragments.get(name);
    if (!fragment) return { breadth: 0, depth: 0 };
    measured.set(name, "measuring");
    const shape = selectionShape(fragment.selectionSet);
    measured.set(name, shape);
    return shape;
  };

  /** The shape of one selection set, walking nested sets with an explicit stack. */
  function selectionShape(root: SelectionSetNode): Shape {
    let breadth = 0;
    let depth = 0;
    const stack: { set: SelectionSetNode; level: number }[] = [{ set: root, level: 0 }];
    while (stack.length > 0) {
      const { set, level } = stack.pop()!;
      const names = new Map<string, number>();
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          if (selection.name.value === "__schema") continue;
          const key = selection.alias?.value ?? selection.name.value;
          const seen = (names.get(key) ?? 0) + 1;
          names.set(key, seen);
          if (seen > MAX_REPEATED_FIELD) {
            throw tooComplex("repeated", seen, MAX_REPEATED_FIELD, `field "${key}" is selected more than ${MAX_REPEATED_FIELD} times in one selection set`);
          }
          breadth++;
          depth = Math.max(depth, level + 1);
          if (selection.selectionSet) stack.push({ set: selection.selectionSet, level: level + 1 });
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          stack.push({ set: selection.selectionSet, level: level + 1 });
        } else {
          const inner = fragmentShape(selection.name.value);
          breadth += inner.breadth;
          depth = Math.max(depth, level + 1 + inner.depth);
        }
        if (breadth > MAX_BREADTH) throw tooComplex("breadth", breadth, MAX_BREADTH, `query breadth ${breadth} exceeds the limit of ${MAX_BREADTH}`);
      }
    }
    return { breadth, depth };
  }

  let breadth = 0;
  for (const d of document.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue;
    const shape = selectionShape(d.selectionSet);
    breadth += shape.breadth;
    if (breadth > MAX_BREADTH) throw tooComplex("breadth", breadth, MAX_BREADTH, `query breadth ${breadth} exceeds the limit of ${MAX_BREADTH}`);
    if (shape.depth > MAX_DEPTH) {
      throw tooComplex("depth", shape.depth, MAX_DEPTH, `Query depth limit of ${MAX_DEPTH} exceeded, found ${shape.depth}.`);
    }
  }
}

/** graphql-js's `parse` with every check above around it. */
export function boundedParse(source: string | Source, options?: ParseOptions): DocumentNode {
  const text = typeof source === "string" ? source : source.body;
  let document: DocumentNode;
  try {
    checkSource(text);
    document = parse(source, { ...options, maxTokens: MAX_TOKENS });
  } catch (error) {
    // A syntax error (from the lexer pass or the parser) is the client's: 400, as yoga's own
    // parse answers it (replacing the parse function leaves out yoga's wrapper that marks it so).
    if (error instanceof GraphQLError && !error.extensions?.http) {
      throw new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, originalError: error, extensions: { ...error.extensions, http: { status: 400 } } });
    }
    throw error;
  }
  checkShape(document);
  return document;
}

const refusedForCost = (result: unknown): boolean =>
  typeof result === "object" &&
  result !== null &&
  !Array.isArray(result) &&
  ((result as { errors?: readonly { extensions?: { code?: unknown } }[] }).errors ?? []).some((e) => e.extensions?.code === "QUERY_TOO_COMPLEX");

/**
 * The yoga plugin: every document yoga parses goes through `boundedParse` (yoga caches the
 * answer per text). A document refused for its cost is answered 400 whatever the client
 * accepts (yoga answers other validation errors 200 to `Accept: application/json`, as the
 * GraphQL-over-HTTP spec allows): the request was not processed.
 */
export const boundedParsing = (): Plugin => ({
  onParse({ setParseFn }) {
    setParseFn(boundedParse);
  },
  onResultProcess({ result, setResult }) {
    if (!refusedForCost(result)) return;
    const r = result as { extensions?: Record<string, unknown> };
    setResult({ ...(result as object), extensions: { ...r.extensions, http: { status: 400 } } } as never);
  },
});
