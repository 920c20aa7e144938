import type { SQSRecord } from 'aws-lambda';
import { EnvelopeMismatchError } from '../errors.js';
import { MessageSource, type SourceNotice, type UnwrappedRecord } from './MessageSource.js';
import { isEventBridgeEvent, readEventBridgeEvent } from './readEventBridgeEvent.js';
import { legacyPipedOutboxMessage, outboxKey, recordOutboxId } from './readOutboxId.js';
import { isDynamoDBStreamRecord, readPipedStreamRecord } from './readPipedStreamRecord.js';
import {
  isS3Notification,
  isS3TestEvent,
  readS3Notification,
  S3_TEST_EVENT,
} from './readS3Notification.js';
import { isSnsMessage, readSnsNotification } from './readSnsNotification.js';

type Json = Record<string, unknown>;

/**
 * Reads a record as its declared sources deliver it. An envelope of a declared kind (SNS,
 * EventBridge, S3, an outbox item's stream record from `OutboxPipe`) is unwrapped; a body that
 * is none of them is the payload as is when `sqs`
 * or `sns-raw` is declared, and an {@link EnvelopeMismatchError} otherwise. An SNS
 * notification on a consumer that declares only raw delivery is refused too: the
 * subscription's raw delivery is off. S3's `s3:TestEvent` comes back as a notice.
 *
 * @example
 * ```ts
 * const read = unwrapRecord(record, ['sns']);
 * if (!('notice' in read)) console.log(read.envelope.kind, read.upstreamKey);
 * ```
 */
export function unwrapRecord(
  record: SQSRecord,
  sources: readonly MessageSource[],
): UnwrappedRecord | SourceNotice {
  const plain = sources.includes(MessageSource.Sqs)
    ? MessageSource.Sqs
    : sources.includes(MessageSource.SnsRaw)
      ? MessageSource.SnsRaw
      : undefined;
  // Direct producers alone: the body is the payload, whatever it looks like (today's reading).
  if (sources.every((source) => source === MessageSource.Sqs)) {
    return { envelope: { kind: MessageSource.Sqs }, payload: { text: record.body } };
  }
  // A relayed message delivered raw: only an outbox sets this SQS message attribute (SNS puts
  // a notification's attributes inside its envelope, EventBridge sets none).
  const outboxId = sources.includes(MessageSource.Outbox) ? recordOutboxId(record) : undefined;
  if (outboxId !== undefined) {
    return {
      envelope: { kind: MessageSource.Outbox, messageId: outboxId },
      payload: { text: record.body },
      upstreamKey: outboxKey(outboxId),
    };
  }
  const body = parseObject(record.body);
  const enveloped = body === undefined ? undefined : readDeclared(body, record, sources, plain);
  if (enveloped !== undefined) return enveloped;
  if (plain !== undefined && !(plain === MessageSource.SnsRaw && body && isSnsMessage(body))) {
    return { envelope: { kind: plain }, payload: { text: record.body } };
  }
  throw mismatch(record, sources, body);
}

/**
 * The declared envelope the body has. When producers or raw delivery are declared too, a body
 * that only looks like an envelope (its reader refuses it) is theirs: a payload of theirs may
 * carry `source`, `detail-type` and `detail`, say.
 */
function readDeclared(
  body: Json,
  record: SQSRecord,
  sources: readonly MessageSource[],
  plain: MessageSource | undefined,
): UnwrappedRecord | SourceNotice | undefined {
  try {
    return readEnvelope(body, record, sources);
  } catch (error) {
    if (plain !== undefined && error instanceof EnvelopeMismatchError) return undefined;
    throw error;
  }
}

function readEnvelope(
  body: Json,
  record: SQSRecord,
  sources: readonly MessageSource[],
): UnwrappedRecord | SourceNotice | undefined {
  if (sources.includes(MessageSource.Sns) && isSnsMessage(body)) {
    return readSnsNotification(body, record.messageId, sources);
  }
  if (sources.includes(MessageSource.EventBridge) && isEventBridgeEvent(body)) {
    return readEventBridgeEvent(body, record.messageId, sources);
  }
  if (sources.includes(MessageSource.S3)) {
    if (isS3TestEvent(body)) return { notice: S3_TEST_EVENT, record };
    if (isS3Notification(body)) return readS3Notification(body, record.messageId, sources);
  }
  if (sources.includes(MessageSource.Outbox)) return readPiped(body, record, sources);
  return undefined;
}

/** What an `OutboxPipe` sent: the item's stream record, or (one release more) its old body. */
function readPiped(
  body: Json,
  record: SQSRecord,
  sources: readonly MessageSource[],
): UnwrappedRecord | undefined {
  if (isDynamoDBStreamRecord(body)) return readPipedStreamRecord(body, record.messageId, sources);
  const legacy = legacyPipedOutboxMessage(body);
  if (legacy === undefined) return undefined;
  return {
    envelope: { kind: MessageSource.Outbox, messageId: legacy.id },
    payload: { text: legacy.text },
    upstreamKey: outboxKey(legacy.id),
  };
}

function parseObject(text: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Json)
      : undefined;
  } catch {
    return undefined;
  }
}

function mismatch(
  record: SQSRecord,
  sources: readonly MessageSource[],
  body: Json | undefined,
): EnvelopeMismatchError {
  const outbox = sources.includes(MessageSource.Outbox)
    ? " and no outbox.messageId attribute (nor is it an outbox item's stream record, as OutboxPipe sends)"
    : '';
  const found = `${describeBody(record.body, body)}${outbox}`;
  const rawOnly =
    sources.includes(MessageSource.SnsRaw) && body !== undefined && isSnsMessage(body);
  return new EnvelopeMismatchError(
    record.messageId,
    sources,
    found,
    rawOnly
      ? "Turn raw message delivery on for the topic's subscription, or declare the source `sns`."
      : 'Declare the source that sends it (the construct: `sources`; the library: the `sources` ' +
          'option), or route it to another queue.',
  );
}

function describeBody(text: string, body: Json | undefined): string {
  if (body === undefined) {
    try {
      JSON.parse(text);
      return 'JSON that is not an object';
    } catch {
      return 'not JSON';
    }
  }
  if (isSnsMessage(body)) return 'an SNS notification';
  if (isEventBridgeEvent(body)) return 'an EventBridge event';
  if (isS3TestEvent(body) || isS3Notification(body)) return 'an S3 notification';
  if (isDynamoDBStreamRecord(body)) return 'a DynamoDB stream record';
  return 'a JSON object of no declared envelope';
}
