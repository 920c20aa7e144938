import { createHash } from 'node:crypto';
import { MAX_KEY_BYTES } from '../constants/values.js';
import { EnvelopeMismatchError } from '../errors.js';
import { MessageSource, type S3ObjectEvent, type UnwrappedRecord } from './MessageSource.js';

type Json = Record<string, unknown>;

/**
 * The `Event` of the message S3 sends when a notification is configured.
 *
 * @example
 * ```ts
 * if (read.notice === S3_TEST_EVENT) logger.info('notification configured');
 * ```
 */
export const S3_TEST_EVENT = 's3:TestEvent';

/**
 * Whether a parsed body is S3's test message, sent once when a notification is configured.
 *
 * @example
 * ```ts
 * isS3TestEvent({ Service: 'Amazon S3', Event: 's3:TestEvent', Bucket: 'uploads' }); // => true
 * ```
 */
export function isS3TestEvent(value: Json): boolean {
  return value.Service === 'Amazon S3' && value.Event === S3_TEST_EVENT;
}

/**
 * Whether a parsed body is an S3 event notification: `Records` whose `eventSource` is `aws:s3`.
 *
 * @example
 * ```ts
 * isS3Notification({ Records: [{ eventSource: 'aws:s3' }] }); // => true
 * ```
 */
export function isS3Notification(value: Json): boolean {
  const records = value.Records;
  return (
    Array.isArray(records) &&
    records.length > 0 &&
    records.every((record) => (record as Json | null)?.eventSource === 'aws:s3')
  );
}

/**
 * Reads an S3 event notification: the records are the payload, their objects (keys decoded)
 * the envelope, and the default key is made of each record's event name, bucket, object key
 * and `sequencer` — the same on every delivery of the event.
 *
 * @example
 * ```ts
 * readS3Notification(JSON.parse(record.body), record.messageId, ['s3']).upstreamKey; // => 's3:ObjectCreated:Put:uploads/a.csv@0A1B'
 * ```
 */
export function readS3Notification(
  notification: Json,
  messageId: string,
  declared: readonly string[],
): UnwrappedRecord {
  const records = notification.Records as Json[];
  const objects = records.map((record) => objectEvent(record, messageId, declared));
  const parts = records.map((record, index) => keyPart(record, objects[index] as S3ObjectEvent));
  const key = `s3:${parts.join('|')}`;
  return {
    envelope: { kind: MessageSource.S3, objects },
    payload: { value: records },
    upstreamKey:
      Buffer.byteLength(key) <= MAX_KEY_BYTES ? key : `s3:sha256:${sha256(parts.join('|'))}`,
  };
}

function objectEvent(record: Json, messageId: string, declared: readonly string[]): S3ObjectEvent {
  const s3 = (record.s3 ?? {}) as Json;
  const bucket = (s3.bucket ?? {}) as Json;
  const object = (s3.object ?? {}) as Json;
  if (
    typeof record.eventName !== 'string' ||
    typeof bucket.name !== 'string' ||
    typeof object.key !== 'string'
  ) {
    throw new EnvelopeMismatchError(
      messageId,
      declared,
      'an S3 notification record without eventName, s3.bucket.name or s3.object.key',
      'Deliver S3 event notifications unchanged to the queue.',
    );
  }
  return {
    eventName: record.eventName,
    eventTime: stringOrUndefined(record.eventTime),
    bucket: bucket.name,
    key: decodeObjectKey(object.key),
    size: typeof object.size === 'number' ? object.size : undefined,
    eTag: stringOrUndefined(object.eTag),
    versionId: stringOrUndefined(object.versionId),
    sequencer: stringOrUndefined(object.sequencer),
  };
}

/**
 * One record's share of the key: with a `sequencer`, readable; without one (some event
 * types have none), the hash of the record, which a redelivery repeats unchanged.
 */
function keyPart(record: Json, event: S3ObjectEvent): string {
  const encodedKey = String(((record.s3 as Json).object as Json).key);
  const id =
    event.sequencer === undefined ? `#${sha256(JSON.stringify(record))}` : `@${event.sequencer}`;
  return `${event.eventName}:${event.bucket}/${encodedKey}${id}`;
}

/** S3 sends object keys URL-encoded with `+` for a space; a key that fails to decode is kept. */
function decodeObjectKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded.replace(/\+/g, ' '));
  } catch {
    return encoded;
  }
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
