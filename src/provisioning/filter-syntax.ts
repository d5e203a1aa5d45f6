/**
 * The SCIM filter and PATCH path syntax (RFC 7644 §3.4.2.2, §3.5.2), the whole of it: the comparisons eq ne co sw
 * ew gt ge lt le and pr, joined by and, or and not (not binding tightest, or loosest), grouped in parentheses, and
 * value paths such as `emails[type eq "work" and value co "@example.org"]`; also a value path followed by a
 * sub-attribute and its comparison (`emails[type eq "work"].value eq "a@b.c"`, which Entra ID sends both as a PATCH
 * path and in a filter), read as one value path with both conditions on the same value.
 *
 * Hand-written rather than taken from a library: the npm parsers tried (scim2-parse-filter, scimmy) match quoted
 * strings with regular expressions that backtrack exponentially on an unclosed quote. Here the text is capped
 * before it is read, read once from left to right, and the nesting and the comparisons are capped, so any input
 * costs time in proportion to its length, bounded stack, and a filter of at most MAX_COMPARISONS comparisons.
 */
import { badRequest, type ScimType } from './errors.js';

export type Literal = string | number | boolean | null;

export type Operator = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';

export type Filter =
  | { kind: 'compare'; attribute: string; operator: Operator; value: Literal }
  | { kind: 'present'; attribute: string }
  | { kind: 'and' | 'or'; filters: Filter[] }
  | { kind: 'not'; filter: Filter }
  /** `attribute[filter]`: some value of the attribute meets the filter, which names its sub-attributes. */
  | { kind: 'valuePath'; attribute: string; filter: Filter };

/** A PATCH path: `attribute`, `attribute[filter]` or `attribute[filter].sub`; `attribute` may hold a URN and a `.sub`. */
export interface AttributePath {
  attribute: string;
  filter?: Filter;
  sub?: string;
}

export const MAX_FILTER_LENGTH = 4096;
export const MAX_PATH_LENGTH = 1024;
/** Parentheses and brackets inside one another. */
const MAX_DEPTH = 8;
/** Comparisons (pr included) in one filter: with the depth, they bound the filter's nodes and so its SQL. */
export const MAX_COMPARISONS = 32;
const OPERATORS: ReadonlySet<string> = new Set<Operator>(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']);

type Token =
  | { kind: '(' | ')' | '[' | ']' | 'end'; at: number }
  | { kind: 'word'; text: string; at: number }
  | { kind: 'literal'; value: string | number; at: number };

/** Why a text is not a filter or path; the caller words it as invalidFilter or invalidPath. */
class SyntaxFailure extends Error {}

// Sticky patterns of single character classes: each matches in one pass, without backtracking.
const WORD = /[A-Za-z][A-Za-z0-9_:.$-]*/y;
/** A sub-attribute right after `]`: `.value`. */
const SUB_ATTRIBUTE = /\.[A-Za-z][A-Za-z0-9_$-]*/y;
const NUMBER = /-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y;
const BRACKETS = new Set(['(', ')', '[', ']']);

/** Where a match of the sticky pattern at `at` ends; `at` when there is none. */
function matchEnd(pattern: RegExp, text: string, at: number): number {
  pattern.lastIndex = at;
  return pattern.test(text) ? pattern.lastIndex : at;
}

/** The JSON string starting at `at`: its value, and the index after its closing quote. */
function stringAt(text: string, at: number): { value: string; end: number } {
  let plain = true;
  for (let i = at + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) return { value: plain ? text.slice(at + 1, i) : escaped(text, at, i + 1), end: i + 1 };
    if (code === 0x5c) i++;
    // An escape, or a control character (which JSON refuses), sends the string to JSON.parse.
    if (code === 0x5c || code < 0x20) plain = false;
  }
  throw new SyntaxFailure(`the string at character ${at + 1} is not closed`);
}

/** A JSON string with escapes, read by JSON itself. */
function escaped(text: string, at: number, end: number): string {
  try {
    return JSON.parse(text.slice(at, end)) as string;
  } catch {
    throw new SyntaxFailure(`the string at character ${at + 1} is not a valid JSON string`);
  }
}

function tokens(text: string): Token[] {
  const list: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const char = text[at] as string;
    if (char === ' ' || char === '\t') {
      at++;
      continue;
    }
    if (BRACKETS.has(char)) {
      list.push({ kind: char as '(' | ')' | '[' | ']', at });
      at++;
      continue;
    }
    if (char === '"') {
      const { value, end } = stringAt(text, at);
      list.push({ kind: 'literal', value, at });
      at = end;
      continue;
    }
    const subEnd = list[list.length - 1]?.kind === ']' ? matchEnd(SUB_ATTRIBUTE, text, at) : at;
    const wordEnd = subEnd > at ? subEnd : matchEnd(WORD, text, at);
    const end = wordEnd > at ? wordEnd : matchEnd(NUMBER, text, at);
    if (end === at) throw new SyntaxFailure(`unexpected character at ${at + 1}`);
    list.push(wordEnd > at ? { kind: 'word', text: text.slice(at, end), at } : { kind: 'literal', value: Number(text.slice(at, end)), at });
    at = end;
  }
  list.push({ kind: 'end', at });
  return list;
}

function describe(token: Token): string {
  return token.kind === 'end' ? 'at the end' : `at character ${token.at + 1}`;
}

class Parser {
  readonly #tokens: Token[];
  #next = 0;
  #comparisons = 0;

  constructor(text: string) {
    this.#tokens = tokens(text);
  }

  #peek(): Token {
    return this.#tokens[this.#next] as Token;
  }

  #take(): Token {
    const token = this.#peek();
    if (token.kind !== 'end') this.#next++;
    return token;
  }

  #expect(kind: ')' | ']' | 'end'): void {
    const token = this.#take();
    const wanted = kind === 'end' ? 'nothing more' : `"${kind}"`;
    if (token.kind !== kind) throw new SyntaxFailure(`expected ${wanted} ${describe(token)}`);
  }

  #keyword(): string | undefined {
    const token = this.#peek();
    return token.kind === 'word' ? token.text.toLowerCase() : undefined;
  }

  /** `or` of `and`s of terms. */
  filter(depth: number, inBrackets: boolean): Filter {
    const alternatives = [this.#conjunction(depth, inBrackets)];
    while (this.#keyword() === 'or') {
      this.#next++;
      alternatives.push(this.#conjunction(depth, inBrackets));
    }
    return alternatives.length === 1 ? (alternatives[0] as Filter) : { kind: 'or', filters: alternatives };
  }

  #conjunction(depth: number, inBrackets: boolean): Filter {
    const terms = [this.#term(depth, inBrackets)];
    while (this.#keyword() === 'and') {
      this.#next++;
      terms.push(this.#term(depth, inBrackets));
    }
    return terms.length === 1 ? (terms[0] as Filter) : { kind: 'and', filters: terms };
  }

  #nested(depth: number): number {
    if (depth >= MAX_DEPTH) throw new SyntaxFailure(`more than ${MAX_DEPTH} levels of parentheses and brackets`);
    return depth + 1;
  }

  #grouped(depth: number, inBrackets: boolean): Filter {
    const inner = this.filter(this.#nested(depth), inBrackets);
    this.#expect(')');
    return inner;
  }

  #term(depth: number, inBrackets: boolean): Filter {
    const token = this.#take();
    if (token.kind === '(') return this.#grouped(depth, inBrackets);
    if (token.kind !== 'word' || token.text.startsWith('.')) throw new SyntaxFailure(`expected an attribute ${describe(token)}`);
    if (token.text.toLowerCase() === 'not' && this.#peek().kind === '(') {
      this.#next++;
      return { kind: 'not', filter: this.#grouped(depth, inBrackets) };
    }
    if (this.#peek().kind !== '[') return this.#comparison(token.text);
    if (inBrackets) throw new SyntaxFailure(`a filter in brackets cannot hold another ${describe(this.#peek())}`);
    this.#next++;
    const filter = this.filter(this.#nested(depth), true);
    this.#expect(']');
    const sub = this.subAttribute();
    if (sub === undefined) return { kind: 'valuePath', attribute: token.text, filter };
    return { kind: 'valuePath', attribute: token.text, filter: { kind: 'and', filters: [filter, this.#comparison(sub)] } };
  }

  /** The `.sub` after a `]`, without its dot. */
  subAttribute(): string | undefined {
    const token = this.#peek();
    if (token.kind !== 'word' || !token.text.startsWith('.')) return undefined;
    this.#next++;
    return token.text.slice(1);
  }

  /** `attribute pr`, or `attribute op value`. */
  #comparison(attribute: string): Filter {
    if (++this.#comparisons > MAX_COMPARISONS) throw new SyntaxFailure(`more than ${MAX_COMPARISONS} comparisons`);
    const operator = this.#take();
    const name = operator.kind === 'word' ? operator.text.toLowerCase() : '';
    if (name === 'pr') return { kind: 'present', attribute };
    if (!OPERATORS.has(name)) throw new SyntaxFailure(`expected an operator (eq, ne, co, sw, ew, gt, ge, lt, le or pr) ${describe(operator)}`);
    const value = this.#take();
    const compare = (literal: Literal): Filter => ({ kind: 'compare', attribute, operator: name as Operator, value: literal });
    if (value.kind === 'literal') return compare(value.value);
    const word = value.kind === 'word' ? value.text.toLowerCase() : '';
    if (word === 'true' || word === 'false') return compare(word === 'true');
    if (word === 'null') return compare(null);
    throw new SyntaxFailure(`expected a value (a quoted string, a number, true, false or null) ${describe(value)}`);
  }

  path(): AttributePath {
    const token = this.#take();
    if (token.kind !== 'word' || token.text.startsWith('.')) throw new SyntaxFailure(`expected an attribute ${describe(token)}`);
    if (this.#peek().kind !== '[') {
      this.#expect('end');
      return { attribute: token.text };
    }
    this.#next++;
    const filter = this.filter(1, true);
    this.#expect(']');
    const sub = this.subAttribute();
    this.#expect('end');
    return sub === undefined ? { attribute: token.text, filter } : { attribute: token.text, filter, sub };
  }

  end(): void {
    this.#expect('end');
  }
}

function parsed<T>(text: string, maxLength: number, scimType: ScimType, what: string, read: (parser: Parser) => T): T {
  if (text.length > maxLength) throw badRequest(scimType, `the ${what} is longer than ${maxLength} characters`);
  try {
    return read(new Parser(text));
  } catch (error) {
    if (error instanceof SyntaxFailure) throw badRequest(scimType, `the ${what} is not valid: ${error.message}`);
    throw error;
  }
}

/** The filter of a query; a text that is not one is a 400 invalidFilter. */
export function parseFilter(text: string): Filter {
  return parsed(text, MAX_FILTER_LENGTH, 'invalidFilter', 'filter', (parser) => {
    const filter = parser.filter(0, false);
    parser.end();
    return filter;
  });
}

/** A PATCH path, or an attribute name used as one (a key of a path-less value); otherwise a 400 of `scimType`. */
export function parsePath(text: string, scimType: ScimType = 'invalidPath'): AttributePath {
  return parsed(text, MAX_PATH_LENGTH, scimType, 'path', (parser) => parser.path());
}

/** The terms a filter joins with `and`, in order. */
export function conjuncts(filter: Filter): Filter[] {
  return filter.kind === 'and' ? filter.filters.flatMap(conjuncts) : [filter];
}
