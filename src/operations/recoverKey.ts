import type { SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { DEAD_LETTER_ATTRIBUTE_PREFIX, DeadLetterAttribute } from '../constants/values.js';
import type { InboxStore } from '../core/InboxStore.js';
import { hashPayload } from '../core/inboxEntry.js';
import { keyHash } from '../core/loggedKey.js';
import { readMessage } from '../core/readMessage.js';
import { redriveUnsafeMessageIdKey } from '../core/redriveUnsafeMessageIdKey.js';
import { type ResolvedOptions, resolveOptions } from '../core/resolveOptions.js';
import type { ParsedMessage } from '../core/types.js';
import { InvalidConfigurationError } from '../errors.js';
import type { MessageSource } from '../sources/MessageSource.js';
import { attribute } from './deadLetterFacts.js';
import { RedriveDecision } from './RedriveDecision.js';

/**
 * How a consumer reads its messages, as its function's environment declares it: what the
 * redrive needs to key a DLQ message the way the consumer would.
 *
 * @example
 * ```ts
 * const reading: ConsumerReading = { store, consumer: 'ledger', sources: ['sns'] };
 * ```
 */
export interface ConsumerReading {
  readonly store: InboxStore;
  readonly consumer: string;
  readonly sources: readonly MessageSource[];
  /** The declared key (`INBOX_KEY`), when the consumer declares one. */
  readonly key?: (message: ParsedMessage<unknown>) => string;
  /** The consumer keys by the SQS message id (`redriveUnsafeMessageIdKey`). */
  readonly keyIsMessageId?: boolean;
}

/** A DLQ message's key and payload hashes, or why it has none the redrive can trust. */
export type RecoveredKey =
  | {
      readonly key: string;
      readonly hashes: { readonly payloadHash: string; readonly bodyHash: string };
    }
  | {
      readonly decision: typeof RedriveDecision.UnknownKey | typeof RedriveDecision.KeyMismatch;
      readonly why: string;
    };

/**
 * Recovers a DLQ message's key, in this order: the `inbox.key` the library recorded; the
 * consumer's own reading (its declared sources and key, by the library's reader) of the
 * message's own attributes and body; with `keyIsMessageId`, the original message id of a
 * standard queue's message. When the consumer's reader derives a key, a recorded one must be
 * it, and any key must hash to the copy's `inbox.keyHash` when there is one (else
 * `key-mismatch`). Errors name no content.
 *
 * @example
 * ```ts
 * const recover = keyRecovery(reading);
 * const recovered = await recover(record);
 * ```
 */
export function keyRecovery(
  reading: ConsumerReading,
): (record: SQSRecord) => Promise<RecoveredKey> {
  const options = readerOptions(reading);
  return async (record) => {
    const other = attribute(record, DeadLetterAttribute.Consumer);
    if (other !== undefined && other !== reading.consumer) {
      return unknown(`dead-lettered by consumer ${other}, not ${reading.consumer}`);
    }
    const recovered = await recover(record, reading, options);
    if ('decision' in recovered) return recovered;
    const recordedHash = attribute(record, DeadLetterAttribute.KeyHash);
    if (recordedHash !== undefined && keyHash(recovered.key) !== recordedHash) {
      return {
        decision: RedriveDecision.KeyMismatch,
        why: `the recovered key's hash ${keyHash(recovered.key)} is not the recorded ${recordedHash}`,
      };
    }
    return recovered;
  };
}

async function recover(
  record: SQSRecord,
  reading: ConsumerReading,
  options: ResolvedOptions | undefined,
): Promise<RecoveredKey> {
  const own = ownRecord(record);
  const recorded = attribute(record, DeadLetterAttribute.Key);
  if (options === undefined) {
    if (recorded !== undefined) return { key: recorded, hashes: bodyHashes(record) };
    return unknown('the key is computed in the handler and the copy carries only its hash');
  }
  // A FIFO DLQ replaced the deduplication id the key was: the copy's own is no key of it.
  if (keysByMessageId(reading) && record.attributes.MessageGroupId !== undefined) {
    if (recorded !== undefined) return { key: recorded, hashes: bodyHashes(record) };
    return unknown('a FIFO queue keyed by the message id: the DLQ copy lost its deduplication id');
  }
  try {
    const read = await readMessage(own, options);
    if ('notice' in read) return unknown('the message is a source notice, not an event');
    const hashes = { payloadHash: read.payloadHash, bodyHash: read.bodyHash };
    // The consumer keys by its reader, never by `inbox.key`: a recorded key it would not derive
    // (another consumer's, a former copy's message id) finds another message's entry.
    if (recorded !== undefined && recorded !== read.key) {
      return {
        decision: RedriveDecision.KeyMismatch,
        why: `the recorded inbox.key is not the key the consumer reads (hash ${keyHash(read.key)})`,
      };
    }
    return { key: read.key, hashes };
  } catch (error) {
    if (recorded !== undefined) return { key: recorded, hashes: bodyHashes(record) };
    return unknown(`the consumer's reader refused it (${(error as Error).name ?? 'Error'})`);
  }
}

/**
 * Whether the consumer keys by the SQS message id (`--key-is-message-id`, or
 * `redriveUnsafeMessageIdKey` as its key): a copy sent back gets a new id, so its consumer keys
 * it anew.
 *
 * @example
 * ```ts
 * if (keysByMessageId(reading)) console.log('declare a key before redriving');
 * ```
 */
export function keysByMessageId(reading: ConsumerReading): boolean {
  return reading.keyIsMessageId === true || reading.key === redriveUnsafeMessageIdKey;
}

/** The message as the consumer received it: its own attributes, its original message id. */
function ownRecord(record: SQSRecord): SQSRecord {
  const messageAttributes: SQSMessageAttributes = Object.fromEntries(
    Object.entries(record.messageAttributes ?? {}).filter(
      ([name]) => !name.startsWith(DEAD_LETTER_ATTRIBUTE_PREFIX),
    ),
  );
  const messageId = attribute(record, DeadLetterAttribute.OriginalMessageId) ?? record.messageId;
  return { ...record, messageId, messageAttributes };
}

function readerOptions(reading: ConsumerReading): ResolvedOptions | undefined {
  if (reading.keyIsMessageId && reading.key !== undefined) {
    throw new InvalidConfigurationError(
      'key',
      'declared and message id',
      'either the declared key or --key-is-message-id, not both',
    );
  }
  const key = reading.keyIsMessageId ? redriveUnsafeMessageIdKey : reading.key;
  try {
    return resolveOptions(
      { store: reading.store, consumer: reading.consumer, sources: reading.sources, key },
      () => {
        throw new Error('the redrive never dead-letters');
      },
    );
  } catch (error) {
    // No declared key and no upstream id: only a recorded `inbox.key` can key a message.
    if (error instanceof InvalidConfigurationError && error.option === 'key') return undefined;
    throw error;
  }
}

function bodyHashes(record: SQSRecord) {
  const bodyHash = hashPayload(record.body);
  return { payloadHash: bodyHash, bodyHash };
}

function unknown(why: string): RecoveredKey {
  return { decision: RedriveDecision.UnknownKey, why };
}
