/**
 * How long DynamoDB honours a `TransactWriteItems` `ClientRequestToken`: ten minutes from the
 * completion of the first request that carried it; a request carrying it later is a new request
 * (API reference, `TransactWriteItems`, request parameter `ClientRequestToken`:
 * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html).
 */
export const CLIENT_TOKEN_WINDOW_MILLIS = 10 * 60_000;

/** A transaction applied with a token: its parameters, as text, and when it completed. */
interface AppliedToken {
  readonly parameters: string;
  /** World milliseconds; `undefined` when the request came with no time (never expires). */
  readonly completedMillis: number | undefined;
}

/**
 * The `ClientRequestToken`s of applied transactions, each for its ten minutes
 * ({@link CLIENT_TOKEN_WINDOW_MILLIS}) from the time its transaction completed; after that the
 * token is forgotten, and a request carrying it is a new one. The simulator reads no clock: each
 * call says when it happens, and a token applied, or looked up, with no time never expires.
 *
 * @example
 * ```ts
 * if (tokens.appliedWith(token, nowMillis) === undefined) tokens.remember(token, parameters, nowMillis + holdMillis);
 * ```
 */
export class ClientTokens {
  readonly #tokens = new Map<string, AppliedToken>();

  /**
   * The parameters the transaction of `token` was applied with, while its window is open at
   * `nowMillis`; `undefined` once it has closed (the token is then forgotten) or if never applied.
   */
  appliedWith(token: string, nowMillis: number | undefined): string | undefined {
    const applied = this.#tokens.get(token);
    if (applied === undefined) return undefined;
    if (!isExpired(applied, nowMillis)) return applied.parameters;
    this.#tokens.delete(token);
    return undefined;
  }

  /** Remembers `token` for a transaction applied with `parameters`, completed at `completedMillis`. */
  remember(token: string, parameters: string, completedMillis: number | undefined): void {
    this.#forgetExpired(completedMillis);
    this.#tokens.set(token, { parameters, completedMillis });
  }

  /** How many tokens are remembered (the model's memory stays as small as the open windows). */
  get size(): number {
    return this.#tokens.size;
  }

  #forgetExpired(nowMillis: number | undefined): void {
    for (const [token, applied] of this.#tokens) {
      if (isExpired(applied, nowMillis)) this.#tokens.delete(token);
    }
  }
}

function isExpired(applied: AppliedToken, nowMillis: number | undefined): boolean {
  if (applied.completedMillis === undefined || nowMillis === undefined) return false;
  return nowMillis >= applied.completedMillis + CLIENT_TOKEN_WINDOW_MILLIS;
}
