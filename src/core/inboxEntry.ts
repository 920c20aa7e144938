import { createHash } from 'node:crypto';
import { InboxStatus } from '../constants.js';

/**
 * One inbox entry: the record that "consumer C has applied the message with key K". Written
 * in the same transaction as the business writes.
 *
 * @example
 * ```ts
 * const entry = await store.find(inboxPk('ledger', 'evt-1'));
 * if (entry) console.log(entry.processedAt, entry.expiresAt);
 * ```
 */
export interface InboxEntry {
  /** `<consumer>#<key>`: the table's partition key. */
  readonly pk: string;
  readonly consumer: string;
  readonly key: string;
  /** The SQS messageId that was applied (a duplicate carries another one). */
  readonly messageId: string;
  readonly status: InboxStatus;
  /** SHA-256 (hex) of the raw message body, to detect a reused key with another body. */
  readonly payloadHash: string;
  /** ISO-8601 time of the commit. */
  readonly processedAt: string;
  /** Epoch seconds after which the entry counts as absent; the table's TTL attribute. */
  readonly expiresAt: number;
}

/**
 * The inbox partition key of a consumer's key. Consumers may not contain `#`, so the first
 * `#` always separates the two and no two (consumer, key) pairs share a pk.
 *
 * @example
 * ```ts
 * inboxPk('ledger', 'evt-1') // => 'ledger#evt-1'
 * ```
 */
export function inboxPk(consumer: string, key: string): string {
  return `${consumer}#${key}`;
}

/**
 * SHA-256 (hex) of a raw message body.
 *
 * @example
 * ```ts
 * hashPayload('{}') // => '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a'
 * ```
 */
export function hashPayload(rawBody: string): string {
  return createHash('sha256').update(rawBody, 'utf8').digest('hex');
}

/**
 * Whether an entry still counts at `nowEpochSeconds`. DynamoDB TTL deletes expired items
 * only eventually (often within days), so an expired entry that is still stored is ignored
 * here and overwritten by the commit's condition.
 *
 * @example
 * ```ts
 * isLive({ expiresAt: 100 } as InboxEntry, 101) // => false
 * ```
 */
export function isLive(entry: InboxEntry, nowEpochSeconds: number): boolean {
  return entry.expiresAt >= nowEpochSeconds;
}

/**
 * Builds the entry written when a message commits.
 *
 * @example
 * ```ts
 * buildEntry({ consumer: 'ledger', key: 'evt-1', messageId: 'm-1', payloadHash: 'ab',
 *   nowMillis: Date.now(), ttlSeconds: 86_400 });
 * ```
 */
export function buildEntry(input: {
  consumer: string;
  key: string;
  messageId: string;
  payloadHash: string;
  nowMillis: number;
  ttlSeconds: number;
}): InboxEntry {
  return {
    pk: inboxPk(input.consumer, input.key),
    consumer: input.consumer,
    key: input.key,
    messageId: input.messageId,
    status: InboxStatus.Completed,
    payloadHash: input.payloadHash,
    processedAt: new Date(input.nowMillis).toISOString(),
    expiresAt: toEpochSeconds(input.nowMillis) + input.ttlSeconds,
  };
}

/**
 * Epoch milliseconds to whole epoch seconds (floor).
 *
 * @example
 * ```ts
 * toEpochSeconds(1_700_000_000_999) // => 1_700_000_000
 * ```
 */
export function toEpochSeconds(epochMillis: number): number {
  return Math.floor(epochMillis / 1000);
}
