import type { SQSRecord } from 'aws-lambda';
import { DeadLetterAttribute } from '../constants/values.js';
import * as errors from '../errors.js';

/** What a DLQ message moved by the queue's redrive policy is grouped under: SQS records none. */
export const NO_REASON_RECORDED = 'no reason recorded';

/** SQS's longest retention (14 days), assumed for a source queue whose own is unknown. */
const MAX_RETENTION_SECONDS = 14 * 24 * 3600;

/** The attribute EventBridge sets on an event it could not deliver to its target. */
const EVENTBRIDGE_ERROR_CODE = 'ERROR_CODE';

/**
 * A DLQ message's reason: the `inbox.error` the library dead-lettered it with; for an event
 * EventBridge could not deliver, its `ERROR_CODE` (`eventbridge:<code>`); else
 * {@link NO_REASON_RECORDED}, a move by the queue's redrive policy.
 *
 * @example
 * ```ts
 * deadLetterReason(record); // 'SchemaValidationError'
 * ```
 */
export function deadLetterReason(record: SQSRecord): string {
  const libraryReason = attribute(record, DeadLetterAttribute.Error);
  if (libraryReason !== undefined) return libraryReason;
  const eventBridgeCode = attribute(record, EVENTBRIDGE_ERROR_CODE);
  return eventBridgeCode === undefined ? NO_REASON_RECORDED : `eventbridge:${eventBridgeCode}`;
}

/**
 * The ARN of the queue a DLQ message came from: the one SQS records on a redrive-policy move
 * (a message attribute may have come with the message from its producer, or with a copy sent
 * back to another queue), else the one the library recorded; undefined when neither is there.
 *
 * @example
 * ```ts
 * const source = sourceQueueArnOf(record) ?? options.to;
 * ```
 */
export function sourceQueueArnOf(record: SQSRecord): string | undefined {
  return (
    record.attributes.DeadLetterQueueSourceArn ??
    attribute(record, DeadLetterAttribute.SourceQueueArn)
  );
}

/**
 * A message attribute's text, when the message has it.
 *
 * @example
 * ```ts
 * attribute(record, DeadLetterAttribute.KeyHash); // '3f9a…' or undefined
 * ```
 */
export function attribute(record: SQSRecord, name: string): string | undefined {
  return record.messageAttributes?.[name]?.stringValue;
}

/** When SQS says the message was sent (epoch milliseconds). */
export function sentMillis(record: SQSRecord): number {
  return Number(record.attributes.SentTimestamp);
}

/**
 * The earliest time a DLQ message can have committed. Only a standard queue's redrive-policy
 * move keeps the original send time. Every other copy — the library's dead letters (sent after
 * the library found no *live* commit: an expired one may be older), a FIFO DLQ's moves (which
 * restart the send time) — can be as old as the source queue keeps messages before it was sent.
 *
 * @example
 * ```ts
 * earliestCommitMillis(record, { fifo: true, sourceRetentionSeconds: 345_600 });
 * ```
 */
export function earliestCommitMillis(
  record: SQSRecord,
  queue: { readonly fifo: boolean; readonly sourceRetentionSeconds?: number },
): number {
  const sent = sentMillis(record);
  const moved = attribute(record, DeadLetterAttribute.Error) === undefined;
  if (moved && !queue.fifo) return sent;
  return sent - (queue.sourceRetentionSeconds ?? MAX_RETENTION_SECONDS) * 1000;
}

const PERMANENT_ERROR_NAMES: ReadonlySet<string> = new Set(
  Object.entries(errors)
    .filter(([, value]) => typeof value === 'function' && isPermanentClass(value))
    .map(([name]) => name),
);

function isPermanentClass(value: unknown): boolean {
  return (
    value === errors.PermanentError ||
    (value as { prototype?: unknown }).prototype instanceof errors.PermanentError
  );
}

/**
 * Whether a DLQ message was dead-lettered for a permanent error: one of the library's
 * `PermanentError` classes, or a name the operator lists (a handler's own subclasses, whose
 * names only the handler knows).
 *
 * @example
 * ```ts
 * isPermanentReason('SchemaValidationError'); // => true
 * ```
 */
export function isPermanentReason(reason: string, extra: readonly string[] = []): boolean {
  return PERMANENT_ERROR_NAMES.has(reason) || extra.includes(reason);
}
