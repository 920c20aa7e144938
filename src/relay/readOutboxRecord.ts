import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { OutboxAttribute } from '../constants/values.js';
import { MalformedEventError, OutboxRecordError } from '../errors.js';
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
    }
  | { readonly kind: 'skip'; readonly sequenceNumber: string; readonly eventName: string }
  | {
      readonly kind: 'unreadable';
      readonly sequenceNumber: string;
      readonly error: OutboxRecordError;
      readonly image: unknown;
      readonly retry: boolean;
    };

const ID = /^[0-9a-f]{64}$/;

/**
 * Reads an outbox stream record. An INSERT or MODIFY carries the item's messages; any other
 * event (REMOVE by TTL, which the mapping's filter normally drops) is passed over. A record
 * without a new image fails until the stream's view type is fixed (`retry`); an item whose
 * messages are not what `tx.publish` writes is dead-lettered with its image.
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
    const messages = readMessages(item[OutboxAttribute.Messages], sequenceNumber);
    return {
      kind: 'messages',
      sequenceNumber,
      pk: String(item[OutboxAttribute.PartitionKey]),
      messages,
    };
  } catch (error) {
    const readError =
      error instanceof OutboxRecordError
        ? error
        : new OutboxRecordError(sequenceNumber, 'its image is no DynamoDB item');
    return { kind: 'unreadable', sequenceNumber, error: readError, image, retry: false };
  }
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
