import { createHash } from 'node:crypto';

/**
 * The id of an outgoing message: SHA-256 (hex) of the consumer, the incoming message's dedup
 * key and the message's name, or its position among the handler's `tx.publish` calls when it
 * has none. It depends on nothing else (not the attempt, the SQS message id or the time), so
 * every attempt of one incoming message publishes the same ids, and each send of a message by
 * the relay carries the same one: a downstream inbox keyed on it applies the message once.
 *
 * @example
 * ```ts
 * outboxMessageId('ledger', 'pay-1', { name: 'credited' }); // 64 hex characters
 * outboxMessageId('ledger', 'pay-1', { index: 0 });         // the first unnamed publish
 * ```
 * @public
 */
export function outboxMessageId(
  consumer: string,
  key: string,
  at: { readonly name: string } | { readonly index: number },
): string {
  const position = 'name' in at ? `name:${at.name}` : `index:${at.index}`;
  return createHash('sha256')
    .update(`outbox\u0000${consumer}\u0000${key}\u0000${position}`, 'utf8')
    .digest('hex');
}
