import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { formatVersionOf } from '../constants/formatVersion.js';
import { FORMAT_VERSIONS, OutboxAttribute } from '../constants/values.js';
import { FormatVersionError, MalformedEventError, OutboxRecordError } from '../errors.js';
import { parseDestination } from '../outbox/Destination.js';
import type { OutgoingMessage } from '../outbox/OutgoingMessage.js';

/**
 * A stream record as the relay reads it: the messages of an outbox item's new state, a record
 * to pass over (a removal: TTL expiry), or one it cannot read (with the error and its image).
 *
 * @example
 * ```ts
 * const read = readOutboxRecord(record);
 * if (read.kind === 'messages') for (const message of read.messages) await sender.send(message);
 * ```
 */
export type OutboxRecord =
  | {
      readonly kind: 'messages';
      readonly sequenceNumber: string;
      readonly pk: string;
      readonly messages: readonly OutgoingMessage[];
      /** Who published them: the consumer and its key's hash, when the item says (0.1.0's do). */
      readonly origin?: { readonly consumer: string; readonly keyHash: string };
      /** The publishing record span's W3C `traceparent`, when a tracer recorded one. */
      readonly traceparent?: string;
    }
  | { readonly kind: 'skip'; readonly sequenceNumber: string; readonly eventName: string }
  | {
      readonly kind: 'unreadable';
      readonly sequenceNumber: string;
      readonly error: OutboxRecordError | FormatVersionError;
      readonly image: unknown;
      readonly retry: boolean;
    };

const ID = /^[0-9a-f]{64}$/;

/**
 * Reads an outbox stream record. An INSERT or MODIFY carries the item's messages; any other
 * event (REMOVE by TTL, which the mapping's filter normally drops) is passed over. A record
 * without a new image fails until the stream's view type is fixed (`retry`); an item whose
 * messages are not what `tx.publish` writes is dead-lettered with its image, and so is an item
 * of a format version newer than this release reads (`FormatVersionError`), none of it read:
 * 0.1.0's items, without a version, are of version 1 (see `FORMAT_VERSIONS`).
 *
 * @example
 * ```ts
 * readOutboxRecord(event.Records[0]);
 * ```
 */
export function readOutboxRecord(record: DynamoDBRecord): OutboxRecord {
  const sequenceNumber = record.dynamodb?.SequenceNumber;
  if (typeof sequenceNumber !== 'string' || sequenceNumber.length === 0) {
    throw new MalformedEventError(
      'Records[].dynamodb.SequenceNumber',
      sequenceNumber,
      'a non-empty string',
      'a DynamoDB stream',
    );
  }
  const eventName = String(record.eventName);
  if (eventName !== 'INSERT' && eventName !== 'MODIFY') {
    return { kind: 'skip', sequenceNumber, eventName };
  }
  const image = record.dynamodb?.NewImage;
  if (image === undefined) {
    const problem = 'the stream has no new images; set its view type to NEW_IMAGE';
    return {
      kind: 'unreadable',
      sequenceNumber,
      error: new OutboxRecordError(sequenceNumber, problem),
      image,
      retry: true,
    };
  }
  try {
    const item = unmarshall(image as never);
    const pk = String(item[OutboxAttribute.PartitionKey]);
    checkFormatVersion(item[OutboxAttribute.FormatVersion], pk, sequenceNumber);
    const messages = readMessages(item[OutboxAttribute.Messages], sequenceNumber);
    return { kind: 'messages', sequenceNumber, pk, messages, ...traceOf(item) };
  } catch (error) {
    const readError =
      error instanceof OutboxRecordError || error instanceof FormatVersionError
        ? error
        : new OutboxRecordError(sequenceNumber, 'its image is no DynamoDB item');
    return { kind: 'unreadable', sequenceNumber, error: readError, image, retry: false };
  }
}

/**
 * What the item says of where its messages came from, for the relay's log lines and spans; an
 * attribute of the wrong shape is left out (it never stops a message).
 */
function traceOf(item: Record<string, unknown>): {
  origin?: { consumer: string; keyHash: string };
  traceparent?: string;
} {
  const origin = item[OutboxAttribute.Origin] as { consumer?: unknown; keyHash?: unknown } | null;
  const traceparent = item[OutboxAttribute.TraceParent];
  const { consumer, keyHash } = origin ?? {};
  return {
    ...(typeof consumer === 'string' && typeof keyHash === 'string'
      ? { origin: { consumer, keyHash } }
      : {}),
    ...(typeof traceparent === 'string' ? { traceparent } : {}),
  };
}

/** Throws unless the item is of a format version this release reads. */
function checkFormatVersion(value: unknown, pk: string, sequenceNumber: string): void {
  const version = formatVersionOf(value);
  if (version === undefined) {
    throw new OutboxRecordError(sequenceNumber, 'its formatVersion is no whole number from 1');
  }
  if (version <= FORMAT_VERSIONS.outboxItem) return;
  throw new FormatVersionError('outboxItem', version, {
    what: `The outbox item ${pk} (stream record ${sequenceNumber})`,
    fix: "Upgrade the relay's sqs-inbox to the publishers' release, then redrive its dead-letter queue (redriveOutbox): the letter holds the item's image.",
  });
}

function readMessages(value: unknown, sequenceNumber: string): OutgoingMessage[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new OutboxRecordError(sequenceNumber, 'it has no list of messages');
  }
  return value.map((message, index) => readMessage(message, index, sequenceNumber));
}

function readMessage(value: unknown, index: number, sequenceNumber: string): OutgoingMessage {
  const fail = (problem: string) =>
    new OutboxRecordError(sequenceNumber, `message #${index} ${problem}`);
  if (typeof value !== 'object' || value === null) throw fail('is no map');
  const message = value as Record<string, unknown>;
  if (typeof message.id !== 'string' || !ID.test(message.id)) throw fail('has no outbox id');
  const destination = parseDestination(message.destination);
  if (destination === undefined || destination.kind !== message.kind) {
    throw fail('has no destination of its kind');
  }
  if (typeof message.body !== 'string') throw fail('has no text body');
  for (const field of ['groupId', 'source', 'detailType'] as const) {
    if (message[field] !== undefined && typeof message[field] !== 'string')
      throw fail(`has a ${field} that is no text`);
  }
  const attributes = message.attributes;
  if (attributes !== undefined) {
    const values =
      typeof attributes === 'object' && attributes !== null ? Object.values(attributes) : [0];
    if (values.some((attribute) => typeof attribute !== 'string'))
      throw fail('has attributes that are no text');
  }
  return message as unknown as OutgoingMessage;
}
