import { type PathSpec, parsePath } from './attributePath.js';
import { type ExpressionKind, TokenStream } from './TokenStream.js';

/**
 * A value in a condition: a document path, a `:value` placeholder, or `size(operand)`.
 *
 * @example
 * ```ts
 * const operand: Operand = { kind: 'size', operand: { kind: 'path', path: ['lines'] } };
 * ```
 */
export type Operand =
  | { readonly kind: 'path'; readonly path: PathSpec }
  | { readonly kind: 'value'; readonly ref: string }
  | { readonly kind: 'size'; readonly operand: Operand };

/**
 * The comparators of DynamoDB's condition grammar.
 *
 * @example
 * ```ts
 * const comparator: Comparator = '<=';
 * ```
 */
export type Comparator = '=' | '<>' | '<' | '<=' | '>' | '>=';

/**
 * The functions that are conditions by themselves.
 *
 * @example
 * ```ts
 * const name: ConditionFunction = 'begins_with';
 * ```
 */
export type ConditionFunction =
  | 'attribute_exists'
  | 'attribute_not_exists'
  | 'attribute_type'
  | 'begins_with'
  | 'contains';

/**
 * A parsed condition expression.
 *
 * @example
 * ```ts
 * const condition: Condition = parseCondition('NOT attribute_exists(pk)').root; // { kind: 'not', … }
 * ```
 */
export type Condition =
  | {
      readonly kind: 'compare';
      readonly comparator: Comparator;
      readonly left: Operand;
      readonly right: Operand;
    }
  | {
      readonly kind: 'between';
      readonly operand: Operand;
      readonly low: Operand;
      readonly high: Operand;
    }
  | { readonly kind: 'in'; readonly operand: Operand; readonly candidates: readonly Operand[] }
  | { readonly kind: 'and' | 'or'; readonly left: Condition; readonly right: Condition }
  | { readonly kind: 'not'; readonly condition: Condition }
  | {
      readonly kind: 'function';
      readonly name: ConditionFunction;
      readonly args: readonly Operand[];
    };

/**
 * A condition with the placeholders it uses, cached by its text.
 *
 * @example
 * ```ts
 * const { root, valueRefs }: ParsedCondition = parseCondition('#expiresAt < :now');
 * ```
 */
export interface ParsedCondition {
  readonly root: Condition;
  readonly nameRefs: ReadonlySet<string>;
  readonly valueRefs: ReadonlySet<string>;
}

const COMPARATORS = new Set<string>(['=', '<>', '<', '<=', '>', '>=']);
const ARITY: Record<ConditionFunction, number> = {
  attribute_exists: 1,
  attribute_not_exists: 1,
  attribute_type: 2,
  begins_with: 2,
  contains: 2,
};
const UPDATE_FUNCTIONS = new Set(['if_not_exists', 'list_append']);
const MAX_IN_OPERANDS = 100;
const MAX_CACHED = 10_000;
const cache = new Map<string, ParsedCondition | { readonly failure: string }>();

/**
 * The expressions written in the condition grammar, named as DynamoDB names them in messages.
 *
 * @example
 * ```ts
 * const kind: ConditionKind = 'FilterExpression';
 * ```
 */
export type ConditionKind = Extract<
  ExpressionKind,
  'ConditionExpression' | 'KeyConditionExpression' | 'FilterExpression'
>;

/**
 * Parses a `ConditionExpression` (or a `KeyConditionExpression` or `FilterExpression`, whose
 * grammar is the same: only the name in messages differs) once and caches it by kind and text
 * (the failure too): the grammar of comparators, `BETWEEN`, `IN`, `AND`/`OR`/`NOT` (in that
 * precedence, loosest last), parentheses and the functions, with DynamoDB's
 * `ValidationException` messages.
 *
 * @example
 * ```ts
 * parseCondition('attribute_not_exists(#pk) OR #expiresAt < :now').valueRefs // => Set { ':now' }
 * ```
 */
export function parseCondition(
  text: string,
  kind: ConditionKind = 'ConditionExpression',
): ParsedCondition {
  const cacheKey = `${kind}\u0000${text}`;
  const cached = cache.get(cacheKey);
  if (cached !== undefined && 'root' in cached) return cached;
  const stream = new TokenStream(text, kind);
  if (cached !== undefined) throw stream.error(cached.failure);
  try {
    const parsed = new ConditionParser(stream).parse();
    remember(cacheKey, parsed);
    return parsed;
  } catch (error) {
    remember(cacheKey, { failure: (error as Error).message.replace(`Invalid ${kind}: `, '') });
    throw error;
  }
}

function remember(key: string, entry: ParsedCondition | { readonly failure: string }): void {
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(key, entry);
}

class ConditionParser {
  /** Conditions that came straight out of parentheses: wrapping one again is redundant. */
  readonly #grouped = new WeakSet<Condition>();

  constructor(readonly stream: TokenStream) {}

  parse(): ParsedCondition {
    const root = this.#or();
    if (this.stream.peek().type !== 'eof') this.stream.fail();
    return { root, nameRefs: this.stream.nameRefs, valueRefs: this.stream.valueRefs };
  }

  #or(): Condition {
    let left = this.#and();
    while (this.stream.acceptKeyword('OR')) left = { kind: 'or', left, right: this.#and() };
    return left;
  }

  #and(): Condition {
    let left = this.#not();
    while (this.stream.acceptKeyword('AND')) left = { kind: 'and', left, right: this.#not() };
    return left;
  }

  #not(): Condition {
    if (this.stream.acceptKeyword('NOT')) return { kind: 'not', condition: this.#not() };
    return this.stream.isSymbol('(') ? this.#group() : this.#predicate();
  }

  #group(): Condition {
    this.stream.next();
    const inner = this.#or();
    this.stream.expectSymbol(')');
    if (this.#grouped.has(inner))
      throw this.stream.error('The expression has redundant parentheses;');
    this.#grouped.add(inner);
    return inner;
  }

  #predicate(): Condition {
    const name = this.#functionName();
    if (name !== undefined && Object.hasOwn(ARITY, name))
      return this.#functionCondition(name as ConditionFunction);
    const operand = this.#operand();
    const token = this.stream.peek();
    if (token.type === 'symbol' && COMPARATORS.has(token.text)) return this.#comparison(operand);
    if (this.stream.acceptKeyword('BETWEEN')) return this.#between(operand);
    if (this.stream.acceptKeyword('IN')) return this.#in(operand);
    if (operand.kind === 'size') throw this.#misused('size');
    return this.stream.fail();
  }

  /** The name of the function call starting here, if one does. */
  #functionName(): string | undefined {
    const token = this.stream.peek();
    return token.type === 'identifier' && this.stream.isSymbol('(', 1) ? token.text : undefined;
  }

  #functionCondition(name: ConditionFunction): Condition {
    this.stream.next();
    const args = this.#arguments(name);
    const next = this.stream.peek();
    if (
      (next.type === 'symbol' && COMPARATORS.has(next.text)) ||
      this.stream.isKeyword('BETWEEN')
    ) {
      throw this.#misused(name);
    }
    if (args.length !== ARITY[name]) {
      throw this.stream.error(
        `Incorrect number of operands for operator or function; operator or function: ${name}, number of operands: ${args.length}`,
      );
    }
    if (name !== 'begins_with' && name !== 'contains' && args[0]?.kind !== 'path') {
      throw this.stream.error(
        `Operator or function requires a document path; operator or function: ${name}`,
      );
    }
    return { kind: 'function', name, args };
  }

  #arguments(name: string): Operand[] {
    this.stream.expectSymbol('(');
    const args = [this.#operand()];
    while (this.stream.acceptSymbol(',')) args.push(this.#operand());
    this.stream.expectSymbol(')');
    if (name === 'size' && args.length !== 1) {
      throw this.stream.error(
        `Incorrect number of operands for operator or function; operator or function: size, number of operands: ${args.length}`,
      );
    }
    return args;
  }

  #operand(): Operand {
    const token = this.stream.peek();
    if (token.type === 'valueRef') {
      this.stream.next();
      this.stream.valueRefs.add(token.text);
      return { kind: 'value', ref: token.text };
    }
    const name = this.#functionName();
    if (name === undefined) return { kind: 'path', path: parsePath(this.stream) };
    if (Object.hasOwn(ARITY, name)) throw this.#misused(name);
    if (UPDATE_FUNCTIONS.has(name)) {
      throw this.stream.error(
        `The function is not allowed in a condition expression; function: ${name}`,
      );
    }
    if (name !== 'size') throw this.stream.error(`Invalid function name; function: ${name}`);
    this.stream.next();
    const [operand] = this.#arguments(name);
    return { kind: 'size', operand: operand as Operand };
  }

  #comparison(left: Operand): Condition {
    const comparator = this.stream.next().text as Comparator;
    const right = this.#operand();
    if (left.kind === 'path' && right.kind === 'path' && samePath(left.path, right.path)) {
      throw this.stream.error(
        `The first operand must be distinct from the remaining operands for this operator or function; operator: ${comparator}, first operand: [${left.path.join(', ')}]`,
      );
    }
    return { kind: 'compare', comparator, left, right };
  }

  #between(operand: Operand): Condition {
    const low = this.#operand();
    if (!this.stream.acceptKeyword('AND')) this.stream.fail();
    return { kind: 'between', operand, low, high: this.#operand() };
  }

  #in(operand: Operand): Condition {
    this.stream.expectSymbol('(');
    const candidates = [this.#operand()];
    while (this.stream.acceptSymbol(',')) candidates.push(this.#operand());
    this.stream.expectSymbol(')');
    if (candidates.length > MAX_IN_OPERANDS) {
      throw this.stream.error(
        `The IN operator is provided with too many operands; number of operands: ${candidates.length}`,
      );
    }
    return { kind: 'in', operand, candidates };
  }

  #misused(name: string) {
    return this.stream.error(
      `The function is not allowed to be used this way in an expression; function: ${name}`,
    );
  }
}

function samePath(a: PathSpec, b: PathSpec): boolean {
  return a.length === b.length && a.every((element, at) => element === b[at]);
}
