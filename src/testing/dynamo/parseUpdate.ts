import { type PathSpec, parsePath } from './attributePath.js';
import { TokenStream } from './TokenStream.js';

/**
 * An operand of a `SET` value: a path, a `:value`, or one of the update functions.
 *
 * @example
 * ```ts
 * const operand: UpdateOperand = { kind: 'if_not_exists', path: ['n'], fallback: { kind: 'value', ref: ':zero' } };
 * ```
 */
export type UpdateOperand =
  | { readonly kind: 'path'; readonly path: PathSpec }
  | { readonly kind: 'value'; readonly ref: string }
  | { readonly kind: 'if_not_exists'; readonly path: PathSpec; readonly fallback: UpdateOperand }
  | { readonly kind: 'list_append'; readonly first: UpdateOperand; readonly second: UpdateOperand };

/**
 * What `SET path = …` writes: an operand, or the sum or difference of two.
 *
 * @example
 * ```ts
 * const value: UpdateValue = { kind: 'arithmetic', operator: '+', left: { kind: 'path', path: ['n'] }, right: { kind: 'value', ref: ':one' } };
 * ```
 */
export type UpdateValue =
  | UpdateOperand
  | {
      readonly kind: 'arithmetic';
      readonly operator: '+' | '-';
      readonly left: UpdateOperand;
      readonly right: UpdateOperand;
    };

/**
 * One action of an update expression, in the order written.
 *
 * @example
 * ```ts
 * const action: UpdateAction = { kind: 'ADD', path: ['balanceCents'], ref: ':amount' };
 * ```
 */
export type UpdateAction =
  | { readonly kind: 'SET'; readonly path: PathSpec; readonly value: UpdateValue }
  | { readonly kind: 'REMOVE'; readonly path: PathSpec }
  | { readonly kind: 'ADD' | 'DELETE'; readonly path: PathSpec; readonly ref: string };

/**
 * An update expression with the placeholders it uses, cached by its text.
 *
 * @example
 * ```ts
 * const { actions }: ParsedUpdate = parseUpdate('SET a = :v REMOVE b');
 * ```
 */
export interface ParsedUpdate {
  readonly actions: readonly UpdateAction[];
  readonly nameRefs: ReadonlySet<string>;
  readonly valueRefs: ReadonlySet<string>;
}

const SECTIONS = new Set(['SET', 'REMOVE', 'ADD', 'DELETE']);
const CONDITION_FUNCTIONS = new Set([
  'attribute_exists',
  'attribute_not_exists',
  'attribute_type',
  'begins_with',
  'contains',
  'size',
]);
const MAX_CACHED = 10_000;
const cache = new Map<string, ParsedUpdate | { readonly failure: string }>();

/**
 * Parses an `UpdateExpression` once and caches it by its text (the failure too): sections
 * `SET`, `REMOVE`, `ADD`, `DELETE` in any order, each at most once; `SET` values with `+`/`-`,
 * `if_not_exists` and `list_append`; DynamoDB's `ValidationException` messages.
 *
 * @example
 * ```ts
 * parseUpdate('ADD balanceCents :amount SET currency = if_not_exists(currency, :currency)').actions.length // => 2
 * ```
 */
export function parseUpdate(text: string): ParsedUpdate {
  const cached = cache.get(text);
  if (cached !== undefined && 'actions' in cached) return cached;
  const stream = new TokenStream(text, 'UpdateExpression');
  if (cached !== undefined) throw stream.error(cached.failure);
  try {
    const parsed = new UpdateParser(stream).parse();
    remember(text, parsed);
    return parsed;
  } catch (error) {
    remember(text, {
      failure: (error as Error).message.replace(/^Invalid UpdateExpression: /, ''),
    });
    throw error;
  }
}

function remember(text: string, entry: ParsedUpdate | { readonly failure: string }): void {
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(text, entry);
}

class UpdateParser {
  readonly #actions: UpdateAction[] = [];
  readonly #sections = new Set<string>();

  constructor(readonly stream: TokenStream) {}

  parse(): ParsedUpdate {
    while (this.stream.peek().type !== 'eof') this.#section();
    return {
      actions: this.#actions,
      nameRefs: this.stream.nameRefs,
      valueRefs: this.stream.valueRefs,
    };
  }

  #section(): void {
    const token = this.stream.peek();
    const section = token.text.toUpperCase();
    if (token.type !== 'identifier' || !SECTIONS.has(section)) this.stream.fail();
    if (this.#sections.has(section)) {
      throw this.stream.error(
        `The "${section}" section can only be used once in an update expression;`,
      );
    }
    this.#sections.add(section);
    this.stream.next();
    do this.#actions.push(this.#action(section));
    while (this.stream.acceptSymbol(','));
  }

  #action(section: string): UpdateAction {
    const path = parsePath(this.stream);
    if (section === 'REMOVE') return { kind: 'REMOVE', path };
    if (section === 'SET') {
      this.stream.expectSymbol('=');
      return { kind: 'SET', path, value: this.#value() };
    }
    return { kind: section as 'ADD' | 'DELETE', path, ref: this.#valueRef() };
  }

  #valueRef(): string {
    const token = this.stream.peek();
    if (token.type !== 'valueRef') this.stream.fail();
    this.stream.next();
    this.stream.valueRefs.add(token.text);
    return token.text;
  }

  #value(): UpdateValue {
    const left = this.#operand();
    const operator = this.stream.peek().text;
    if (!this.stream.isSymbol('+') && !this.stream.isSymbol('-')) return left;
    this.stream.next();
    return { kind: 'arithmetic', operator: operator as '+' | '-', left, right: this.#operand() };
  }

  #operand(): UpdateOperand {
    const token = this.stream.peek();
    if (token.type === 'valueRef') return { kind: 'value', ref: this.#valueRef() };
    if (token.type !== 'identifier' || !this.stream.isSymbol('(', 1)) {
      return { kind: 'path', path: parsePath(this.stream) };
    }
    return this.#function(token.text);
  }

  #function(name: string): UpdateOperand {
    if (CONDITION_FUNCTIONS.has(name)) {
      throw this.stream.error(
        `The function is not allowed in an update expression; function: ${name}`,
      );
    }
    if (name !== 'if_not_exists' && name !== 'list_append') {
      throw this.stream.error(`Invalid function name; function: ${name}`);
    }
    this.stream.next();
    this.stream.expectSymbol('(');
    const args = [this.#operand()];
    while (this.stream.acceptSymbol(',')) args.push(this.#operand());
    this.stream.expectSymbol(')');
    const [first, second] = args;
    if (args.length !== 2 || first === undefined || second === undefined) {
      throw this.stream.error(
        `Incorrect number of operands for operator or function; operator or function: ${name}, number of operands: ${args.length}`,
      );
    }
    if (name === 'list_append') return { kind: 'list_append', first, second };
    if (first.kind !== 'path') {
      throw this.stream.error(
        `Operator or function requires a document path; operator or function: ${name}`,
      );
    }
    return { kind: 'if_not_exists', path: first.path, fallback: second };
  }
}
