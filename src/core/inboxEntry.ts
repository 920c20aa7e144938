import { createHash } from 'node:crypto';
import { FORMAT_VERSIONS, InboxStatus } from '../constants/values.js';
import { LeaseHeldError } from '../errors.js';

/**
 * One inbox entry: where consumer C stands with the message of key K. `COMPLETED` entries are
 * written in the same transaction as the business writes and make later copies duplicates.
 * A failed attempt leaves a `FAILED` entry with its attempts and last error, for every
 * consumer; a handler with steps also leaves `IN_PROGRESS` (leased) entries and its finished
 * steps. A step-less commit replaces the entry whole: a `COMPLETED` entry of a step-less
 * handler carries no attempts or last error.
 *
 * @example
 * ```ts
 * const entry = await inbox.entry('evt-1'); // an InboxTest (sqs-inbox/testing) reads its consumer's entry of a key
 * if (entry) console.log(entry.status, entry.attempts, Object.keys(entry.steps ?? {}));
 * ```
 * @public
 */
export interface InboxEntry {
  /** `<consumer>#<key>`: the table's partition key. */
  readonly pk: string;
  /** The consumer that wrote the entry: the processor's `consumer` option. */
  readonly consumer: string;
  /**
   * The message's dedup key: what the `key` option returned, or the id its source gave
   * (`sns:<MessageId>`, `outbox:<id>`…). It may be message content: logs leave it out unless
   * `observability.logKeys` is on.
   */
  readonly key: string;
  /** The SQS messageId that committed, or of the last attempt (a duplicate carries another). */
  readonly messageId: string;
  /**
   * Where the message stands: `COMPLETED` (committed: later copies are duplicates),
   * `IN_PROGRESS` (an attempt with steps holds the lease until `leaseUntilMillis`) or `FAILED`
   * (the last attempt failed: one with steps released its lease, and the next copy resumes
   * from `steps`; a step-less one recorded its failure). A `FAILED` entry is no commit: the
   * next copy runs the handler.
   */
  readonly status: InboxStatus;
  /**
   * SHA-256 (hex) of the payload (the body, or what a declared source's envelope carries), to
   * detect a reused key with another payload.
   */
  readonly payloadHash: string;
  /** ISO-8601 time of the commit; absent until the entry is `COMPLETED`. */
  readonly processedAt?: string;
  /** Epoch seconds after which the entry counts as absent; the table's TTL attribute. */
  readonly expiresAt: number;
  /**
   * The entry's format version (`FORMAT_VERSIONS.inboxEntry` when written by this release); 1
   * for an entry stored without one (written by 0.1.0).
   */
  readonly formatVersion: number;
  /**
   * Attempts recorded on the entry while it was not committed: each claim of its lease (an
   * attempt with steps), and each failed attempt that ran no step. Absent on an entry a
   * step-less commit wrote.
   */
  readonly attempts?: number;
  /** Epoch milliseconds until which an `IN_PROGRESS` entry's lease holds. */
  readonly leaseUntilMillis?: number;
  /**
   * The lease's fencing counter: one more at each claim, so a write of an attempt whose lease
   * was taken over is refused. Absent on an entry no attempt with steps claimed.
   */
  readonly leaseEpoch?: number;
  /**
   * The class name of the last failed attempt's error, and when it failed (released its lease,
   * with steps). Absent on an entry a step-less commit wrote.
   */
  readonly lastError?: { readonly name: string; readonly at: string };
  /**
   * The messages the commit published with `tx.publish`, in publish order: each one's outbox id
   * (`outboxMessageId`), destination and group. Absent when it published none, and on entries
   * of releases before this record (0.1.0).
   */
  readonly published?: ReadonlyArray<{
    readonly id: string;
    readonly destination: string;
    readonly groupId?: string;
  }>;
  /** The journaled steps by name, with the time each finished (results are not shown). */
  readonly steps?: Readonly<Record<string, { readonly at: string }>>;
}

/**
 * The inbox partition key of a consumer's key. Consumers may not contain `#`, so the first
 * `#` always separates the two and no two (consumer, key) pairs share a pk.
 *
 * @example
 * ```ts
 * inboxPk('ledger', 'evt-1') // => 'ledger#evt-1'
 * ```
 * @public
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
 * Whether an entry says the message was applied: `COMPLETED` and live. Only then is another
 * copy a duplicate; a leased or released entry only holds a journal.
 *
 * @example
 * ```ts
 * isCommitted({ status: 'FAILED', expiresAt: 200 } as InboxEntry, 100) // => false
 * ```
 */
export function isCommitted(entry: InboxEntry, nowEpochSeconds: number): boolean {
  return entry.status === InboxStatus.Completed && isLive(entry, nowEpochSeconds);
}

/**
 * Whether an entry holds this message's payload: its payload's hash, or the whole body's (what
 * entries written before the consumer declared its source hold). Any other is another message
 * under the same key.
 *
 * @example
 * ```ts
 * if (!holdsPayload(existing, { payloadHash, bodyHash })) throw new PayloadMismatchError(key, payloadHash, existing);
 * ```
 */
export function holdsPayload(
  entry: Pick<InboxEntry, 'payloadHash'>,
  hashes: { readonly payloadHash: string; readonly bodyHash: string },
): boolean {
  return entry.payloadHash === hashes.payloadHash || entry.payloadHash === hashes.bodyHash;
}

/**
 * Whether an entry ties its key to its payload, so that another payload under the key is
 * refused while it lives: a committed one, and an unfinished one with a journal (its steps may
 * have had effects). A step-less attempt's failure record (`FAILED`, no journal) ties nothing:
 * nothing of that message happened, so another message of the key may commit over it.
 *
 * @example
 * ```ts
 * if (bindsPayload(existing) && !holdsPayload(existing, hashes)) throw mismatch;
 * ```
 */
export function bindsPayload(entry: Pick<InboxEntry, 'status' | 'steps'>): boolean {
  return entry.status === InboxStatus.Completed || entry.steps !== undefined;
}

/**
 * Whether a live entry refuses this message as another's: it ties its key to its payload (see
 * {@link bindsPayload}: committed, or unfinished with a journal) and holds another payload's
 * hash. The consumer never takes such an entry over, committed or not: an unfinished one's
 * journal may hold an effect that already happened, and its own message is still to commit.
 *
 * @example
 * ```ts
 * if (bindsOtherPayload(existing, hashes, runtime.now())) throw new PayloadMismatchError(key, hashes.payloadHash, existing);
 * ```
 */
export function bindsOtherPayload(
  entry: InboxEntry,
  hashes: { readonly payloadHash: string; readonly bodyHash: string },
  nowMillis: number,
): boolean {
  return (
    isLive(entry, toEpochSeconds(nowMillis)) && bindsPayload(entry) && !holdsPayload(entry, hashes)
  );
}

/**
 * The `LeaseHeldError` an entry answers a copy with while another attempt's lease on it is
 * live (in progress, not expired, `leaseUntilMillis` not passed); undefined when none is.
 *
 * @example
 * ```ts
 * const held = leaseHeld(existing, runtime.now());
 * if (held) throw held;
 * ```
 */
export function leaseHeld(entry: InboxEntry, nowMillis: number): LeaseHeldError | undefined {
  const { leaseUntilMillis } = entry;
  const live =
    entry.status === InboxStatus.InProgress &&
    isLive(entry, toEpochSeconds(nowMillis)) &&
    leaseUntilMillis !== undefined &&
    leaseUntilMillis >= nowMillis;
  return live ? new LeaseHeldError(leaseUntilMillis, entry.messageId) : undefined;
}

/**
 * Builds the entry written when a message commits, of the format version this release writes.
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
    formatVersion: FORMAT_VERSIONS.inboxEntry,
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
