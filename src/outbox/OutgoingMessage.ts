import { DestinationKind, OUTBOX_LIMITS, OutboxMessageIdField } from '../constants/values.js';
import { describeType } from '../errors/errorText.js';
import { OutgoingMessageError } from '../errors/outboxErrors.js';
import { DESTINATION_RULE, isFifo, parseDestination } from './Destination.js';
import { destinationBytes } from './messageSize.js';

/**
 * What a handler passes to `tx.publish`: where the message goes and what it says.
 *
 * @example
 * ```ts
 * declare const creditsQueueUrl: string;
 * // ---cut---
 * const { paymentId, amountCents, accountId } = message.body;
 * tx.publish({ destination: creditsQueueUrl, body: { paymentId, amountCents }, groupId: accountId });
 * ```
 * @public
 */
export interface PublishInput {
  /** An SQS queue URL, an SNS topic ARN or an EventBridge event bus ARN. */
  readonly destination: string;
  /**
   * The message: a string is sent as it is, any other JSON value as its JSON text. With its
   * attributes, at most what every destination of its kind accepts, counted as it counts
   * (`OUTBOX_LIMITS.maxBytesByKind`: 262,144 bytes for a queue or topic, 262,143 for an event).
   */
  readonly body: unknown;
  /**
   * Names the message among those the handler publishes, for its id; default its position
   * among the `tx.publish` calls. Give one when the handler may publish in another order on
   * another attempt. 1-128 characters from `A-Z a-z 0-9 . _ : -`, unique per incoming message.
   */
  readonly name?: string;
  /**
   * The message group: required by FIFO queues and topics, whose order per group the relay
   * keeps; on a standard queue it is passed on (fair queues). Not for standard topics or buses.
   */
  readonly groupId?: string;
  /** String message attributes for SQS and SNS (at most 9; not on an event bus). */
  readonly attributes?: Readonly<Record<string, string>>;
  /** The event's `source`: required for an event bus, and only there. */
  readonly source?: string;
  /** The event's `detail-type`: required for an event bus, and only there. */
  readonly detailType?: string;
}

/**
 * An outgoing message as the outbox item stores it and the relay sends it: with its id, and
 * its body as text (for an event bus, the `detail` with the id's member in it).
 *
 * @example
 * ```ts
 * declare const id: string;
 * declare const queueUrl: string;
 * // ---cut---
 * const message: OutgoingMessage = { id, destination: queueUrl, kind: 'sqs', body: '{"a":1}' };
 * ```
 * @public
 */
export interface OutgoingMessage {
  /**
   * The outbox id (`outboxMessageId`: 64 hex characters), the same on every attempt and every
   * send. The relay sends it as the `outbox.messageId` attribute (SQS, SNS) or inside the
   * `detail` (an event bus), and as the deduplication id of a FIFO destination.
   */
  readonly id: string;
  /** Where it goes, as given to `tx.publish`: a queue URL, a topic ARN or an event bus ARN. */
  readonly destination: string;
  /** What kind of destination that address names. */
  readonly kind: DestinationKind;
  /**
   * The text sent: a string body as it was given, any other as its JSON text; for an event bus
   * the `detail` as JSON, with the outbox id's member (`OutboxMessageIdField.EventMember`) in it.
   */
  readonly body: string;
  /** The message group: on FIFO destinations, and on a standard queue when given. */
  readonly groupId?: string;
  /** The message attributes given to `tx.publish` (SQS and SNS only); absent when none were. */
  readonly attributes?: Readonly<Record<string, string>>;
  /** The event's `source`: on an event bus only. */
  readonly source?: string;
  /** The event's `detail-type`: on an event bus only. */
  readonly detailType?: string;
}

const PUBLISH_FIELDS = [
  'destination',
  'body',
  'name',
  'groupId',
  'attributes',
  'source',
  'detailType',
];
const GROUP_ID = /^[\x21-\x7E]{1,128}$/;
const ATTRIBUTE_NAME = /^(?!\.)(?!.*\.\.)(?!.*\.$)[A-Za-z0-9_.-]{1,256}$/;
const RESERVED_ATTRIBUTE = /^(aws\.|amazon\.|outbox\.)/i;

/**
 * Checks what a handler published and turns it into the message the outbox stores, with the
 * id given: its fields for the destination's kind, and its size as the destination counts it.
 * Throws {@link OutgoingMessageError} naming the field to change.
 *
 * @example
 * ```ts
 * const message = toOutgoingMessage(input, 0, outboxMessageId('ledger', key, { index: 0 }));
 * ```
 */
export function toOutgoingMessage(input: unknown, index: number, id: string): OutgoingMessage {
  const fields = checkFields(input, index);
  const destination = parseDestination(fields.destination);
  if (destination === undefined) throw fail('destination', index, `must be ${DESTINATION_RULE}`);
  const routing = checkRouting(fields, destination.kind, index);
  const attributes = checkAttributes(fields.attributes, destination.kind, index);
  const body = bodyText(fields.body, destination.kind, id, index);
  const message: OutgoingMessage = {
    id,
    destination: destination.address,
    kind: destination.kind,
    body,
    ...routing,
    ...(attributes === undefined ? {} : { attributes }),
  };
  checkSize(message, index);
  return message;
}

function checkFields(input: unknown, index: number): Record<string, unknown> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw fail(
      'the message',
      index,
      `must be an object { destination, body }, got ${describeType(input)}`,
    );
  }
  const unknown = Object.keys(input).find((field) => !PUBLISH_FIELDS.includes(field));
  if (unknown !== undefined) {
    throw fail(unknown, index, `is no field of a published message (${PUBLISH_FIELDS.join(', ')})`);
  }
  const { name } = input as { name?: unknown };
  if (name !== undefined && !(typeof name === 'string' && OUTBOX_LIMITS.namePattern.test(name))) {
    throw fail('name', index, 'must be 1-128 characters from A-Z a-z 0-9 . _ : -');
  }
  return input as Record<string, unknown>;
}

/** The group, or the event's source and detail-type, as the destination's kind asks. */
function checkRouting(
  fields: Record<string, unknown>,
  kind: DestinationKind,
  index: number,
): Pick<OutgoingMessage, 'groupId' | 'source' | 'detailType'> {
  const { groupId, source, detailType } = fields;
  const bus = kind === DestinationKind.EventBus;
  if (groupId !== undefined && (bus || kind === DestinationKind.SnsTopic)) {
    throw fail(
      'groupId',
      index,
      `is not accepted by ${kind === 'sns' ? 'a standard SNS topic' : 'an event bus'}; leave it out`,
    );
  }
  if (groupId === undefined && isFifo(kind)) {
    throw fail(
      'groupId',
      index,
      'is required by a FIFO destination: name the group whose order is kept',
    );
  }
  if (groupId !== undefined && !(typeof groupId === 'string' && GROUP_ID.test(groupId))) {
    throw fail('groupId', index, 'must be 1-128 characters, letters, digits and punctuation');
  }
  for (const [field, value] of [
    ['source', source],
    ['detailType', detailType],
  ] as const) {
    if (!bus && value !== undefined)
      throw fail(field, index, 'is only for an event bus; leave it out');
    if (bus && !(typeof value === 'string' && value.length > 0 && value.length <= 256)) {
      throw fail(field, index, 'is required by an event bus: a string of 1-256 characters');
    }
  }
  return bus
    ? { source: source as string, detailType: detailType as string }
    : groupId === undefined
      ? {}
      : { groupId: groupId as string };
}

function checkAttributes(
  attributes: unknown,
  kind: DestinationKind,
  index: number,
): Readonly<Record<string, string>> | undefined {
  if (attributes === undefined) return undefined;
  if (kind === DestinationKind.EventBus) {
    throw fail('attributes', index, 'are not carried by an event bus; put them in the body');
  }
  if (typeof attributes !== 'object' || attributes === null || Array.isArray(attributes)) {
    throw fail(
      'attributes',
      index,
      `must be an object of strings, got ${describeType(attributes)}`,
    );
  }
  const entries = Object.entries(attributes);
  if (entries.length > OUTBOX_LIMITS.attributes) {
    throw fail(
      'attributes',
      index,
      `may hold at most ${OUTBOX_LIMITS.attributes} (got ${entries.length})`,
    );
  }
  for (const [name, value] of entries) {
    if (!ATTRIBUTE_NAME.test(name) || RESERVED_ATTRIBUTE.test(name)) {
      throw fail(
        'attributes',
        index,
        `has a name that SQS refuses or that is reserved (aws., amazon., outbox.): rename attribute #${entries.findIndex(([n]) => n === name)}`,
      );
    }
    if (typeof value !== 'string' || value.length === 0) {
      throw fail('attributes', index, `need non-empty string values, got ${describeType(value)}`);
    }
  }
  return { ...(attributes as Record<string, string>) };
}

/** The body as sent: a string as it is, else JSON; an event's detail with the id's member. */
function bodyText(body: unknown, kind: DestinationKind, id: string, index: number): string {
  if (kind === DestinationKind.EventBus) {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw fail(
        'body',
        index,
        `must be an object for an event bus (its detail), got ${describeType(body)}`,
      );
    }
    if (Object.hasOwn(body, OutboxMessageIdField.EventMember)) {
      throw fail(
        'body',
        index,
        `has a member ${OutboxMessageIdField.EventMember}, which the outbox sets; rename it`,
      );
    }
    return jsonText({ ...body, [OutboxMessageIdField.EventMember]: id }, index);
  }
  return typeof body === 'string' ? body : jsonText(body, index);
}

function jsonText(value: unknown, index: number): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw fail(
      'body',
      index,
      `is no JSON value (${error instanceof Error ? error.name : 'error'}); pass a string or plain data`,
    );
  }
  if (text === undefined) throw fail('body', index, `is no JSON value, got ${describeType(value)}`);
  return text;
}

/**
 * Refuses what the destination would refuse for its size, counted as it counts (see
 * {@link destinationBytes}), naming the larger part to change and the overshoot.
 */
function checkSize(message: OutgoingMessage, index: number): void {
  const { bodyBytes, attributeBytes, idAttributeBytes, totalBytes } = destinationBytes(message);
  const maxBytes = OUTBOX_LIMITS.maxBytesByKind[message.kind];
  if (totalBytes <= maxBytes) return;
  const parts =
    message.kind === DestinationKind.EventBus
      ? 'as EventBridge counts an entry (source, detailType, the detail with the outbox id, 14 for its time)'
      : `as the destination counts it (body ${bodyBytes}, attributes ${attributeBytes}, the outbox id's attribute ${idAttributeBytes}: each attribute's name, data type and value)`;
  const field = attributeBytes > bodyBytes ? 'attributes' : 'body';
  throw fail(
    field,
    index,
    `${field === 'body' ? 'is' : 'are'} too large: the message takes ${totalBytes} bytes ${parts}, ` +
      `${totalBytes - maxBytes} over the ${maxBytes} ${KIND_NAMES[message.kind]}. ` +
      'Store large payloads in S3 and publish a pointer',
  );
}

// Who accepts the limit: queues and topics may be set higher, never below at their defaults.
const KIND_NAMES: Record<DestinationKind, string> = {
  [DestinationKind.SqsQueue]: 'every SQS queue accepts at its default settings',
  [DestinationKind.SqsFifoQueue]: 'every SQS FIFO queue accepts at its default settings',
  [DestinationKind.SnsTopic]: 'every SNS topic accepts at its default settings',
  [DestinationKind.SnsFifoTopic]: 'every SNS FIFO topic accepts at its default settings',
  [DestinationKind.EventBus]: 'an event bus accepts (less than 256 KiB)',
};

function fail(field: string, index: number, problem: string): OutgoingMessageError {
  return new OutgoingMessageError(field, index, problem);
}
