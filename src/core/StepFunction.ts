/**
 * What a step's function is given. `idempotencyKey` is the same on every attempt of this
 * message and step — a retry, a redelivery, a redrive within the entry's TTL, a second worker
 * after a lease expired — so pass it to a downstream API that deduplicates by key.
 *
 * @example
 * ```ts
 * await step('charge', ({ idempotencyKey, signal }) =>
 *   psp.charge({ amountCents: message.body.amountCents, idempotencyKey }, { signal }));
 * ```
 * @public
 */
export interface StepContext {
  /** The name the step was given. */
  readonly stepName: string;
  /** SHA-256 (hex) of consumer, key and step name: stable across attempts, 64 characters. */
  readonly idempotencyKey: string;
  /** The attempt that holds the lease, from 1 (for logs; never part of a key). */
  readonly attempt: number;
  /** Aborted at the batch's deadline or when the attempt loses its lease. */
  readonly signal: AbortSignal;
}

/**
 * Runs an effect outside DynamoDB at most once per message, as far as a journal can: the first
 * `step` of a message claims its inbox entry under a fenced lease; a step whose result is
 * journaled returns that result without running again; otherwise `run` runs and its result
 * (a JSON value, at most 32 KiB) is journaled before `step` returns it. A step returns the
 * same value whether it ran or was replayed (its JSON round trip). Each step needs a name of
 * its own, the same on every attempt.
 *
 * @example
 * ```ts
 * const handler: MessageHandler<Payment> = async ({ body, step }, tx) => {
 *   const { id: chargeId } = await step('charge', ({ idempotencyKey }) =>
 *     psp.charge({ amountCents: body.amountCents, idempotencyKey }));
 *   tx.put({ TableName: 'payments', Item: { pk: body.paymentId, chargeId } });
 * };
 * ```
 * @public
 */
export type StepFunction = <TResult>(
  name: string,
  run: (context: StepContext) => Promise<TResult> | TResult,
) => Promise<TResult>;
