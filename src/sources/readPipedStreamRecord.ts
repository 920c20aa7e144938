import { unmarshall } from '@aws-sdk/util-dynamodb';
import { formatVersionOf } from '../constants/formatVersion.js';
import { FORMAT_VERSIONS, OutboxAttribute } from '../constants/values.js';
import { EnvelopeMismatchError, FormatVersionError } from '../errors.js';
import { MessageSource, type UnwrappedRecord } from './MessageSource.js';
import { outboxIdOf, outboxKey } from './readOutboxId.js';

type Json = Record<string, unknown>;

const DYNAMODB_EVENT_SOURCE = 'aws:dynamodb';

/**
 * Whether a parsed body is a DynamoDB stream record: `eventSource` `aws:dynamodb` and a
 * `dynamodb` object. An EventBridge pipe without an input template (`OutboxPipe`) sends each
 * record of the outbox stream so, as JSON, its images in DynamoDB JSON.
 *
 * @example
 * ```ts
 * isDynamoDBStreamRecord({ eventSource: 'aws:dynamodb', dynamodb: { NewImage: {} } }); // => true
 * ```
 */
export function isDynamoDBStreamRecord(body: Json): boolean {
  return body.eventSource === DYNAMODB_EVENT_SOURCE && isObject(body.dynamodb);
}

/**
 * Reads the outbox item's stream record an `OutboxPipe` sent: the item's one message
 * (`NewImage.messages.L[0].M`) gives the outbox id (`id.S`, the key `outbox:<id>`) and the
 * payload text (`body.S`). Refuses with {@link EnvelopeMismatchError} a record without such a
 * message, and an item a pipe may not relay whole — more than one message, or a message with
 * attributes — which only a publisher whose store does not know the pipe writes: the pipe
 * would have left the rest out silently. An item of a format version newer than this release
 * reads is refused with {@link FormatVersionError}, none of it read (the record is retried, and
 * dead-lettered on its last receive); 0.1.0's items, without a version, are of version 1.
 *
 * @example
 * ```ts
 * readPipedStreamRecord(JSON.parse(record.body), record.messageId, ['outbox']).upstreamKey; // 'outbox:3f…'
 * ```
 */
export function readPipedStreamRecord(
  record: Json,
  messageId: string,
  declared: readonly string[],
): UnwrappedRecord {
  const item = itemOf(record.dynamodb);
  const version = formatVersionOf(item?.[OutboxAttribute.FormatVersion]);
  if (version !== undefined && version > FORMAT_VERSIONS.outboxItem) {
    throw new FormatVersionError('outboxItem', version, {
      what: `Message ${messageId}, the stream record of an outbox item an EventBridge pipe sent,`,
      fix: "Upgrade sqs-inbox in this consumer to the publishers' release; the message is retried meanwhile.",
    });
  }
  const messages = version === undefined ? undefined : item?.[OutboxAttribute.Messages];
  const message: unknown = Array.isArray(messages) ? messages[0] : undefined;
  const id = outboxIdOf(isObject(message) ? message.id : undefined);
  const text = isObject(message) ? message.body : undefined;
  if (!Array.isArray(messages) || id === undefined || typeof text !== 'string') {
    throw new EnvelopeMismatchError(
      messageId,
      declared,
      'a DynamoDB stream record whose NewImage holds no outbox message (messages.L[0].M with an id and a body, as text)',
      'Point the pipe at an outbox table (OutboxPipe), or route this stream elsewhere.',
    );
  }
  const unrelayable = [
    ...(messages.length > 1 ? [`${messages.length} messages`] : []),
    ...(isObject(message) && 'attributes' in message ? ['message attributes'] : []),
  ];
  if (unrelayable.length > 0) {
    throw new EnvelopeMismatchError(
      messageId,
      declared,
      `a DynamoDB stream record of an outbox item a pipe cannot relay whole (${unrelayable.join(', ')})`,
      "Give the publishing function the pipe's variables (OutboxPipe.publisherEnvironment()), whose store refuses what a pipe cannot send, or relay this outbox with OutboxRelay.",
    );
  }
  return {
    envelope: { kind: MessageSource.Outbox, messageId: id },
    payload: { text },
    upstreamKey: outboxKey(id),
  };
}

/** The item a stream record's `NewImage` holds (DynamoDB JSON); undefined when it holds none. */
function itemOf(dynamodb: unknown): Json | undefined {
  const image = isObject(dynamodb) ? dynamodb.NewImage : undefined;
  if (!isObject(image)) return undefined;
  try {
    return unmarshall(image as Record<string, never>);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
