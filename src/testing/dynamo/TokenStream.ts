import type { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { validationException } from './dynamoExceptions.js';

/**
 * Which request parameter an expression came from: DynamoDB names it in its messages.
 *
 * @example
 * ```ts
 * const kind: ExpressionKind = 'UpdateExpression';
 * ```
 */
export type ExpressionKind =
  | 'ConditionExpression'
  | 'UpdateExpression'
  | 'KeyConditionExpression'
  | 'FilterExpression'
  | 'ProjectionExpression';

/**
 * One lexical token of an expression, with its place in the text.
 *
 * @example
 * ```ts
 * const token: Token = { type: 'valueRef', text: ':v', start: 4, end: 6 };
 * ```
 */
export interface Token {
  readonly type: 'identifier' | 'nameRef' | 'valueRef' | 'integer' | 'symbol' | 'invalid' | 'eof';
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

const TOKEN =
  /\s*(?:(#[A-Za-z0-9_]+)|(:[A-Za-z0-9_]+)|([A-Za-z_][A-Za-z0-9_]*)|(\d+)|(<>|<=|>=|[=<>()[\],.+-]))/y;
const TYPES = ['nameRef', 'valueRef', 'identifier', 'integer', 'symbol'] as const;
const ONLY_SPACE_LEFT = /\s*$/y;
const SPACE = /\s*/y;

function onlySpaceFrom(text: string, at: number): boolean {
  ONLY_SPACE_LEFT.lastIndex = at;
  return ONLY_SPACE_LEFT.test(text);
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (!onlySpaceFrom(text, at)) {
    TOKEN.lastIndex = at;
    const match = TOKEN.exec(text);
    if (!match) {
      SPACE.lastIndex = at;
      SPACE.test(text);
      const start = SPACE.lastIndex;
      tokens.push({ type: 'invalid', text: text.charAt(start), start, end: start + 1 });
      break;
    }
    const group = match.findIndex((part, index) => index > 0 && part !== undefined);
    const tokenText = match[group] ?? '';
    const end = TOKEN.lastIndex;
    tokens.push({
      type: TYPES[group - 1] ?? 'invalid',
      text: tokenText,
      start: end - tokenText.length,
      end,
    });
    at = end;
  }
  // At the very end, so a syntax error at the end quotes trailing space too, as DynamoDB does.
  tokens.push({ type: 'eof', text: '<EOF>', start: text.length, end: text.length });
  return tokens;
}

/**
 * The tokens of one expression, read front to back by a recursive-descent parser, with
 * DynamoDB's error messages: `Syntax error; token: "…", near: "…"` quotes the failing token and
 * the source text from the token before it to the token after it. It also collects the `#name`
 * and `:value` placeholders the expression uses.
 *
 * @example
 * ```ts
 * const stream = new TokenStream('a = :v', 'ConditionExpression');
 * stream.next(); // { type: 'identifier', text: 'a', … }
 * ```
 */
export class TokenStream {
  readonly nameRefs = new Set<string>();
  readonly valueRefs = new Set<string>();
  readonly #tokens: Token[];
  #at = 0;

  constructor(
    readonly text: string,
    readonly kind: ExpressionKind,
  ) {
    this.#tokens = tokenize(text);
    if (this.peek().type === 'eof') throw this.error('The expression can not be empty;');
  }

  peek(offset = 0): Token {
    const tokens = this.#tokens;
    return tokens[Math.min(this.#at + offset, tokens.length - 1)] as Token;
  }

  next(): Token {
    const token = this.peek();
    if (token.type !== 'eof') this.#at++;
    return token;
  }

  /** Whether the token at `offset` is the (case-insensitive) keyword. */
  isKeyword(word: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.type === 'identifier' && token.text.toUpperCase() === word;
  }

  acceptKeyword(word: string): boolean {
    if (!this.isKeyword(word)) return false;
    this.#at++;
    return true;
  }

  isSymbol(symbol: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.type === 'symbol' && token.text === symbol;
  }

  acceptSymbol(symbol: string): boolean {
    if (!this.isSymbol(symbol)) return false;
    this.#at++;
    return true;
  }

  expectSymbol(symbol: string): void {
    if (!this.acceptSymbol(symbol)) this.fail();
  }

  /** Throws DynamoDB's syntax error at the current token. */
  fail(): never {
    const token = this.peek();
    const before = this.#tokens[this.#at - 1];
    const after = token.type === 'eof' ? undefined : this.#tokens[this.#at + 1];
    const end = after !== undefined && after.type !== 'eof' ? after.end : token.end;
    const near = this.text.slice((before ?? token).start, end);
    throw this.error(`Syntax error; token: "${token.text}", near: "${near}"`);
  }

  /** A `ValidationException` about this expression: `Invalid <kind>: <detail>`. */
  error(detail: string): DynamoDBServiceException {
    return validationException(`Invalid ${this.kind}: ${detail}`);
  }
}
