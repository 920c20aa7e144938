import { createHash } from 'node:crypto';

/**
 * The idempotency key a step is given: SHA-256 (hex) of the consumer, the message's dedup key
 * and the step name. It depends on nothing else (not the attempt, the SQS message id or the
 * lease), so every attempt of one message's step presents the same key to the downstream, and
 * it carries no message content. Compute it yourself to find a step's effect downstream.
 *
 * @example
 * ```ts
 * const key = stepIdempotencyKey('notifier', 'evt-1', 'email'); // 64 hex characters
 * ```
 * @public
 */
export function stepIdempotencyKey(consumer: string, key: string, stepName: string): string {
  return createHash('sha256')
    .update(`${consumer}\u0000${key}\u0000${stepName}`, 'utf8')
    .digest('hex');
}
