/**
 * A GraphQL document's cost bounded before any expensive work. Validation (overlapping
 * fields in particular) is quadratic in the fields of a selection set, and graphql-js's
 * parser recurses once per level of nesting and builds an object per token: a 61 KB
 * document repeating one field thousands of times, or one nested thousands of levels deep,
 * would freeze the event loop or overflow the stack before the schema's limits ran. So, in
 * order, each step linear in the document and each stopping at the first limit broken:
 *
 *   1. its length (characters);
 *   2. one pass of graphql-js's lexer (iterative, never recursive, no syntax tree built):
 *      tokens; the nesting of brackets, braces and parentheses (so the parser never recurses
 *      deeper than `MAX_NESTING`); the fragments defined; the fields written in each
 *      selection set, its inline fragments' merged in — a response name written more than
 *      `MAX_REPEATED_FIELD` times in one set, or more than `MAX_BREADTH` fields written in
 *      all, is refused here, without a syntax tree;
 *   3. graphql-js's parser with `maxTokens`;
 *   4. one walk of the parsed document (fragments expanded, each once, memoized) for its
 *      breadth (fields selected, fragments counted where spread), the depth of its
 *      selections and fields repeated under one name in a selection set, counted over
 *      what validation merges (inline fragments and spread fragments included).
 *
 * Only then is the document validated against the schema (whose depth, alias and cost limits
 * still apply). Every refusal is a GraphQL error with status 400 and code QUERY_TOO_COMPLEX.
 * What dominated before these steps: the parser building the syntax tree of a document that
 * is refused anyway, then validation comparing fields pairwise (a name repeated through inline
 * fragments or hundreds of fragments, each within the per-set limit, took 100-500 ms).
 * Now the hostile documents are refused in steps 1 and 2, in well under a millisecond to a
 * few milliseconds of one core each, and the costliest document within every limit is
 * validated in tens of milliseconds (test/api/hostile.test.ts measures both).
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
import { MAX_BREADTH, MAX_QUERY_DEPTH } from "./builder.js";

/** Longest query text, in characters (a query within every limit below is a few KB). */
export const MAX_DOCUMENT_CHARS = 32 * 1024;
/** Most lexical tokens in a document (GraphiQL's introspection query has 163; 400 fields selected, about 2,500). */
export const MAX_TOKENS = 3_000;
/** Deepest nesting of `{`, `[` and `(` (selections, list and object values, arguments). */
export const MAX_NESTING = 64;
/** Most times one response name may be selected in one selection set (its inline fragments' and spread fragments' fields merged in). */
export const MAX_REPEATED_FIELD = 10;
/**
 * Most fragments defined in a document. Validation compares the fields of every two
 * fragments spread into one selection set: their number squared is its cost.
 */
export const MAX_FRAGMENTS = 32;

export type LimitKind = "size" | "tokens" | "nesting" | "breadth" | "depth" | "repeated" | "fragments";

export function tooComplex(kind: LimitKind, value: number, max: number, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: "QUERY_TOO_COMPLEX", kind, value, max, http: { status: 400 } } });
}

const repeated = (key: string, seen: number) =>
  tooComplex("repeated", seen, MAX_REPEATED_FIELD, `field "${key}" is selected more than ${MAX_REPEATED_FIELD} times in one selection set`);

/** One open `{`, `[` or `(` in the token pass. */
type Open = {
  /** A `{` outside any argument or list: a selection set (of an operation, fragment or field). */
  selections: boolean;
  /** Inside `__schema { … }`, whose fields step 4 does not count either. */
  uncounted: boolean;
  /** Response names written in this selection set, with how often. */
  names?: Map<string, number>;
  /** The previous token at this level. */
  prev?: string;
  /** The previous token was the `on` of `... on Type`. */
  typeCondition?: boolean;
  /** After `...` not followed by a fragment's name: the next `{` is an inline fragment's. */
  inline?: boolean;
  /** A response name just read, whose field's name is known at the next token (`alias: name`). */
  pending?: string;
  /** The name of the field last selected here (its selection set comes next). */
  lastField?: string;
};

const CLOSERS = new Set<string>([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

/**
 * Steps 1 and 2: length, tokens, nesting, and the fields written in each selection set, from
 * the text alone (syntax errors are the lexer's own). A name in a selection set is a field's
 * response name (its alias, or its name) unless it follows `:` (the field behind an alias),
 * `...` (a fragment spread, or `on`), `... on` (a type condition) or `@` (a directive).
 * Fields are counted as step 4 counts them (`__schema` and what it selects are not), once
 * each as written: a lower bound of step 4's breadth, where a fragment spread twice counts
 * twice. So refusing here never refuses a document step 4 and validation would admit.
 */
export function checkSource(text: string): void {
  if (text.length > MAX_DOCUMENT_CHARS) {
    throw tooComplex("size", text.length, MAX_DOCUMENT_CHARS, `query of ${text.length} characters exceeds the limit of ${MAX_DOCUMENT_CHARS}`);
  }
  const lexer = new Lexer(new Source(text));
  let tokens = 0;
  let fields = 0;
  let fragments = 0;
  /** The previous token outside every definition's braces (`}` ends a definition). */
  let outside: string | undefined;
  const open: Open[] = [];
  /** One field selected in `set`, under response name `key`. */
  const select = (set: Open, key: string, field: string) => {
    set.lastField = field;
    if (field === "__schema") return;
    const seen = (set.names!.get(key) ?? 0) + 1;
    set.names!.set(key, seen);
    if (seen > MAX_REPEATED_FIELD) {
      throw repeated(key, seen);
    }
    if (!set.uncounted && ++fields > MAX_BREADTH) {
      throw tooComplex("breadth", fields, MAX_BREADTH, `query breadth ${fields} exceeds the limit of ${MAX_BREADTH}`);
    }
  };
  for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
    if (++tokens > MAX_TOKENS) throw tooComplex("tokens", tokens, MAX_TOKENS, `query has more than ${MAX_TOKENS} tokens`);
    const top = open[open.length - 1];
    const kind = token.kind;
    if (top?.pending !== undefined && kind !== TokenKind.COLON) {
      const key = top.pending;
      top.pending = undefined;
      if (kind === TokenKind.NAME && top.prev === TokenKind.COLON) {
        select(top, key, token.value);
        top.prev = kind;
        continue;
      }
      select(top, key, key);
    }
    if (kind === TokenKind.BRACE_L || kind === TokenKind.BRACKET_L || kind === TokenKind.PAREN_L) {
      if (open.length >= MAX_NESTING) throw tooComplex("nesting", open.length + 1, MAX_NESTING, `query nesting exceeds the limit of ${MAX_NESTING} levels`);
      const selections = kind === TokenKind.BRACE_L && (top === undefined || top.selections);
      const uncounted = (top?.uncounted ?? false) || (selections && top?.lastField === "__schema");
      // An inline fragment's fields are merged with its parent's: validation compares them together.
      const names = !selections ? undefined : top?.inline ? top.names : new Map<string, number>();
      if (top) top.inline = false;
      open.push({ selections, uncounted, names });
      continue;
    }
    if (CLOSERS.has(kind)) {
      open.pop();
      if (open.length === 0) outside = kind;
      const outer = open[open.length - 1];
      if (outer?.selections) {
        outer.prev = kind;
        outer.typeCondition = false;
        if (kind === TokenKind.BRACE_R) outer.lastField = undefined;
      }
      continue;
    }
    if (top === undefined) {
      if (kind === TokenKind.NAME && token.value === "fragment" && (outside === undefined || outside === TokenKind.BRACE_R) && ++fragments > MAX_FRAGMENTS) {
        throw tooComplex("fragments", fragments, MAX_FRAGMENTS, `query defines more than ${MAX_FRAGMENTS} fragments`);
      }
      outside = kind;
      continue;
    }
    if (!top.selections) continue;
    if (kind === TokenKind.NAME && top.prev !== TokenKind.COLON && top.prev !== TokenKind.SPREAD && top.prev !== TokenKind.AT && !top.typeCondition) {
      top.pending = token.value;
    }
    if (kind === TokenKind.SPREAD) {
      top.lastField = undefined;
      top.inline = true;
    } else if (kind === TokenKind.NAME && top.prev === TokenKind.SPREAD && token.value !== "on") top.inline = false;
    // `... on Type`: the name after `on` is a type condition, not a field.
    top.typeCondition = kind === TokenKind.NAME && token.value === "on" && top.prev === TokenKind.SPREAD;
    top.prev = kind;
  }
}

/** A selection set's breadth and depth, and the response names it selects itself (inline fragments' and spread fragments' merged in). */
type Shape = { breadth: number; depth: number; names: Map<string, number> };

/**
 * Step 4: breadth (fields selected, fragments counted where they are spread), depth (as the
 * depth limit counts it: a fragment spread is a level, `__schema` is not counted) and
 * repeated fields — a response name counted over the fields validation merges and compares
 * pairwise: a set's own, its inline fragments' and the fragments it spreads. Iterative over
 * selection sets; each fragment is measured once.
 */
export function checkShape(document: DocumentNode): void {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const measured = new Map<string, Shape | "measuring">();

  const fragmentShape = (name: string): Shape => {
    const known = measured.get(name);
    // A cycle is refused by validation; here it only must not loop.
    if (known === "measuring") return { breadth: 0, depth: 0, names: new Map() };
    if (known) return known;
    const fragment = fragments.get(name);
    if (!fragment) return { breadth: 0, depth: 0, names: new Map() };
    measured.set(name, "measuring");
    const shape = selectionShape(fragment.selectionSet);
    measured.set(name, shape);
    return shape;
  };

  /** The shape of one selection set, walking nested sets with an explicit stack. */
  function selectionShape(root: SelectionSetNode): Shape {
    let breadth = 0;
    let depth = 0;
    const rootNames = new Map<string, number>();
    const stack: { set: SelectionSetNode; level: number; names?: Map<string, number> }[] = [{ set: root, level: 0, names: rootNames }];
    while (stack.length > 0) {
      const top = stack.pop()!;
      const { set, level } = top;
      const names = top.names ?? new Map<string, number>();
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          if (selection.name.value === "__schema") continue;
          const key = selection.alias?.value ?? selection.name.value;
          const seen = (names.get(key) ?? 0) + 1;
          names.set(key, seen);
          if (seen > MAX_REPEATED_FIELD) throw repeated(key, seen);
          breadth++;
          depth = Math.max(depth, level + 1);
          if (selection.selectionSet) stack.push({ set: selection.selectionSet, level: level + 1 });
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          // Its fields are merged with this set's (and compared with them by validation).
          stack.push({ set: selection.selectionSet, level: level + 1, names });
        } else {
          const inner = fragmentShape(selection.name.value);
          breadth += inner.breadth;
          depth = Math.max(depth, level + 1 + inner.depth);
          if (breadth > MAX_BREADTH) throw tooComplex("breadth", breadth, MAX_BREADTH, `query breadth ${breadth} exceeds the limit of ${MAX_BREADTH}`);
          // Within the breadth limit, so these additions are at most MAX_BREADTH in all.
          for (const [key, count] of inner.names) {
            const seen = (names.get(key) ?? 0) + count;
            names.set(key, seen);
            if (seen > MAX_REPEATED_FIELD) throw repeated(key, seen);
          }
        }
        if (breadth > MAX_BREADTH) throw tooComplex("breadth", breadth, MAX_BREADTH, `query breadth ${breadth} exceeds the limit of ${MAX_BREADTH}`);
      }
    }
    return { breadth, depth, names: rootNames };
  }

  let breadth = 0;
  for (const d of document.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue;
    const shape = selectionShape(d.selectionSet);
    breadth += shape.breadth;
    if (breadth > MAX_BREADTH) throw tooComplex("breadth", breadth, MAX_BREADTH, `query breadth ${breadth} exceeds the limit of ${MAX_BREADTH}`);
    if (shape.depth > MAX_QUERY_DEPTH) {
      throw tooComplex("depth", shape.depth, MAX_QUERY_DEPTH, `Query depth limit of ${MAX_QUERY_DEPTH} exceeded, found ${shape.depth}.`);
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
      throw new GraphQLError(error.message, {
        nodes: error.nodes,
        source: error.source,
        positions: error.positions,
        originalError: error,
        extensions: { ...error.extensions, http: { status: 400 } },
      });
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
