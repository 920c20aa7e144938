import { InboxMetric, RecordStatus } from '../constants/values.js';
import { bindsOtherPayload, holdsPayload, type InboxEntry, leaseHeld } from '../core/inboxEntry.js';
import { loggedKey } from '../core/loggedKey.js';
import type { ReadMessage } from '../core/readMessage.js';
import type { ResolvedOptions } from '../core/resolveOptions.js';
import type { InboxMessage, RecordOutcome } from '../core/types.js';
import { PayloadMismatchError } from '../errors.js';

/**
 * A message as the handler gets it, less the step function of each run.
 *
 * @example
 * ```ts
 * const message: StepLessMessage = { ...parsed, key, context, signal };
 * ```
 */
export type StepLessMessage = Omit<InboxMessage<unknown>, 'step'>;

/**
 * The hashes a message is told from another by: its payload's, and its whole body's (what an
 * entry written before its consumer declared a source holds).
 *
 * @example
 * ```ts
 * const hashes: PayloadHashes = { payloadHash, bodyHash };
 * ```
 */
export type PayloadHashes = Pick<ReadMessage, 'payloadHash' | 'bodyHash'>;

/**
 * Another attempt's live lease on the entry makes this copy fail with `LeaseHeldError`: it
 * runs nothing, and SQS delivers it again once the holder is done.
 *
 * @example
 * ```ts
 * throwIfLeaseHeld(existing, options); // throws LeaseHeldError while another attempt holds it
 * ```
 */
export function throwIfLeaseHeld(existing: InboxEntry, options: ResolvedOptions): void {
  const held = leaseHeld(existing, options.runtime.now());
  if (held === undefined) return;
  options.metrics?.addMetric(InboxMetric.LeasesHeld, 'Count', 1);
  throw held;
}

/**
 * A live entry that holds another payload's hash refuses the message, committed or not: an
 * unfinished one (steps journaled, its lease released or lapsed) is never taken over, since its
 * journal may hold an effect that already happened and its own message is still to commit. A
 * step-less attempt's failure record (no journal) refuses nothing (see `bindsPayload`).
 *
 * @example
 * ```ts
 * throwIfOtherPayload(message, hashes, existing, options); // throws PayloadMismatchError
 * ```
 */
export function throwIfOtherPayload(
  message: StepLessMessage,
  hashes: PayloadHashes,
  existing: InboxEntry,
  options: ResolvedOptions,
): void {
  if (!bindsOtherPayload(existing, hashes, options.runtime.now())) return;
  throw new PayloadMismatchError(message.key, hashes.payloadHash, existing);
}

/**
 * A live entry holds the key: the same message again, unless the payload differs. An entry
 * written before the consumer declared its source holds the hash of the whole body, which
 * counts as the same message too.
 *
 * @example
 * ```ts
 * return acknowledgeDuplicate(message, hashes, existing, options); // status 'duplicate'
 * ```
 */
export function acknowledgeDuplicate(
  message: StepLessMessage,
  hashes: PayloadHashes,
  existing: InboxEntry,
  options: ResolvedOptions,
): RecordOutcome {
  if (!holdsPayload(existing, hashes)) {
    throw new PayloadMismatchError(message.key, hashes.payloadHash, existing);
  }
  options.metrics?.addMetric(InboxMetric.Duplicates, 'Count', 1);
  options.logger.info('duplicate message acknowledged without effect', {
    consumer: options.consumer,
    ...loggedKey(message.key, options.logKeys),
    messageId: message.messageId,
    firstMessageId: existing.messageId,
    firstProcessedAt: existing.processedAt,
  });
  return { messageId: message.messageId, key: message.key, status: RecordStatus.Duplicate };
}
