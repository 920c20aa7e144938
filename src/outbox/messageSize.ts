import { DestinationKind, OUTBOX_LIMITS, OutboxMessageIdField } from '../constants/values.js';

const encoder = new TextEncoder();

/**
 * What of an outgoing message (`OutgoingMessage`, which has these fields and more) its size at
 * the destination depends on.
 *
 * @example
 * ```ts
 * const sized: SizedMessage = { id: 'm-1', kind: DestinationKind.Sqs, body: '{}' };
 * ```
 */
export interface SizedMessage {
  readonly id: string;
  readonly kind: DestinationKind;
  readonly body: string;
  readonly attributes?: Readonly<Record<string, string>>;
  readonly source?: string;
  readonly detailType?: string;
}

/**
 * The UTF-8 size of a text, as AWS counts the strings of a request.
 *
 * @example
 * ```ts
 * utf8Bytes('é'); // => 2
 * ```
 */
export function utf8Bytes(text: string): number {
  return encoder.encode(text).byteLength;
}

/**
 * The data type the relay gives every message attribute; SQS and SNS count it in the size.
 *
 * @example
 * ```ts
 * { DataType: SENT_ATTRIBUTE_DATA_TYPE, StringValue: value }
 * ```
 */
export const SENT_ATTRIBUTE_DATA_TYPE = 'String';

/**
 * The attributes the relay sends with a message to a queue or topic: its own, then its outbox
 * id as `outbox.messageId`.
 *
 * @example
 * ```ts
 * sentAttributes(message)['outbox.messageId'] === message.id; // => true
 * ```
 */
export function sentAttributes(message: SizedMessage): Record<string, string> {
  return { ...message.attributes, [OutboxMessageIdField.Attribute]: message.id };
}

/**
 * What a message takes as its destination counts it, in bytes, by part.
 *
 * @example
 * ```ts
 * const { bodyBytes, attributeBytes, totalBytes } = destinationBytes(message);
 * ```
 */
export interface DestinationBytes {
  /** The body; for an event bus the entry: source, detail-type, detail and its time's 14 bytes. */
  readonly bodyBytes: number;
  /** The message's own attributes: names, data types and values. */
  readonly attributeBytes: number;
  /** The `outbox.messageId` attribute the relay adds (none for an event bus: it is in the detail). */
  readonly idAttributeBytes: number;
  readonly totalBytes: number;
}

/**
 * Counts a message as its destination counts it against its size limit, exactly what the relay
 * sends: for SQS and SNS the body plus each attribute's name, data type (`String`) and value,
 * the `outbox.messageId` attribute included; for EventBridge the entry's `Source`,
 * `DetailType` and `Detail`, plus 14 bytes for `Time` (the relay sends none, but EventBridge
 * stamps one; counting it costs 14 bytes at most). FIFO group and deduplication ids are not
 * counted by either service.
 *
 * @example
 * ```ts
 * destinationBytes(message).totalBytes <= OUTBOX_LIMITS.maxBytesByKind[message.kind];
 * ```
 */
export function destinationBytes(message: SizedMessage): DestinationBytes {
  if (message.kind === DestinationKind.EventBus) {
    const bodyBytes =
      utf8Bytes(message.source ?? '') +
      utf8Bytes(message.detailType ?? '') +
      utf8Bytes(message.body) +
      OUTBOX_LIMITS.eventTimeBytes;
    return { bodyBytes, attributeBytes: 0, idAttributeBytes: 0, totalBytes: bodyBytes };
  }
  let attributeBytes = 0;
  let idAttributeBytes = 0;
  for (const [name, value] of Object.entries(sentAttributes(message))) {
    const bytes = utf8Bytes(name) + utf8Bytes(SENT_ATTRIBUTE_DATA_TYPE) + utf8Bytes(value);
    if (name === OutboxMessageIdField.Attribute) idAttributeBytes = bytes;
    else attributeBytes += bytes;
  }
  const bodyBytes = utf8Bytes(message.body);
  return {
    bodyBytes,
    attributeBytes,
    idAttributeBytes,
    totalBytes: bodyBytes + attributeBytes + idAttributeBytes,
  };
}
