import type { SQSRecord } from 'aws-lambda';
import { OutboxMessageIdField } from '../constants/values.js';

const LEGACY_PIPED_MEMBERS = [
  OutboxMessageIdField.EventMember,
  OutboxMessageIdField.PipedBodyMember,
];

// Any sender keeping the contract may use its own ids; the key must stay under 1,024 bytes.
const MAX_OUTBOX_ID_LENGTH = 512;

/**
 * The outbox id a message carries where an outbox relay puts it: the message attribute
 * `outbox.messageId` (an SQS message, or an SNS message delivered raw or in its notification's
 * `MessageAttributes`), the member `outboxMessageId` of an EventBridge event's `detail`, or the
 * first message's `id` in a piped stream record.
 * Undefined when there is none (or it is no text of 1-512 characters).
 *
 * @example
 * ```ts
 * outboxIdOf(record.messageAttributes[OutboxMessageIdField.Attribute]?.stringValue); // '3f…' or undefined
 * ```
 */
export function outboxIdOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_OUTBOX_ID_LENGTH
    ? value
    : undefined;
}

/**
 * The outbox id of a raw SQS record (direct, or SNS raw delivery), from its message attribute.
 *
 * @example
 * ```ts
 * const id = recordOutboxId(record); // undefined for a message no relay sent
 * ```
 */
export function recordOutboxId(record: SQSRecord): string | undefined {
  return outboxIdOf(record.messageAttributes?.[OutboxMessageIdField.Attribute]?.stringValue);
}

/**
 * The outbox id and the payload of a body `OutboxPipe` sent before it sent stream records: an
 * object of exactly `outboxMessageId` and `body`, both text, as its input template wrote it.
 * Still read for one release, for messages already in queues and dead-letter queues when the
 * pipe is deployed again; the pipe now sends the item's stream record
 * (`readPipedStreamRecord`). Undefined for any other body.
 *
 * @example
 * ```ts
 * legacyPipedOutboxMessage({ outboxMessageId: '3f…', body: '{"a":1}' }); // { id: '3f…', text: '{"a":1}' }
 * ```
 */
export function legacyPipedOutboxMessage(
  body: Readonly<Record<string, unknown>>,
): { readonly id: string; readonly text: string } | undefined {
  const members = Object.keys(body);
  if (members.length !== 2 || !LEGACY_PIPED_MEMBERS.every((name) => members.includes(name))) {
    return undefined;
  }
  const id = outboxIdOf(body[OutboxMessageIdField.EventMember]);
  const text = body[OutboxMessageIdField.PipedBodyMember];
  return id === undefined || typeof text !== 'string' ? undefined : { id, text };
}

/**
 * The default key of a message with an outbox id: `outbox:<id>`, whichever way it came.
 *
 * @example
 * ```ts
 * outboxKey('3f…'); // 'outbox:3f…'
 * ```
 */
export function outboxKey(id: string): string {
  return `outbox:${id}`;
}
