import { createHash, randomBytes } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { systemRuntime } from '../../runtime/InboxRuntime.js';
import { S3_TEST_EVENT } from '../../sources/readS3Notification.js';
import { type DeliveryOptions, deliveredRecord, TEST_REGION } from './deliveredRecord.js';

const EMPTY_MD5 = createHash('md5').digest('hex');

/**
 * One S3 object event, as {@link s3Record} notifies it.
 *
 * @example
 * ```ts
 * const object: S3ObjectNotice = { bucket: 'uploads', key: 'invoices/a b.pdf', size: 1024 };
 * ```
 * @public
 */
export interface S3ObjectNotice {
  /** The bucket's name. */
  readonly bucket: string;
  /** The object key as stored (`a b.pdf`): the record carries it URL-encoded, as S3 does. */
  readonly key: string;
  /** The object's size in bytes; default 0, and none on an `ObjectRemoved` event. */
  readonly size?: number;
  /** The object's ETag; default the empty object's, and none on an `ObjectRemoved` event. */
  readonly eTag?: string;
  /** Orders the events of one key; default greater than every one made before in the process. */
  readonly sequencer?: string;
  /** What happened, as S3 names it; default `ObjectCreated:Put`. */
  readonly eventName?: string;
  /** The object's version, in a bucket with versioning; none by default. */
  readonly versionId?: string;
}

// S3 orders the events of a key by `sequencer`, a hexadecimal number that grows; one counter
// for the process keeps events made one after the other in order.
let lastSequencer = 0x0055aed6dcd90281e5n;

/**
 * A record of a queue an S3 bucket notifies: the body is the event notification
 * (`{ "Records": [ … ] }`, one object event) as S3 sends it, which the `s3` source unwraps and
 * keys by event name, bucket, key and sequencer.
 *
 * @example
 * ```ts
 * import { s3Record, sqsEvent } from 'sqs-inbox/testing';
 * const record = s3Record({ bucket: 'uploads', key: 'invoices/a b.pdf', sequencer: '0A1B' });
 * await processor.process(sqsEvent(record)); // sources: ['s3']; message.envelope.objects[0].key is 'invoices/a b.pdf'
 * ```
 * @public
 */
export function s3Record(object: S3ObjectNotice, options: DeliveryOptions = {}): SQSRecord {
  const eventName = object.eventName ?? 'ObjectCreated:Put';
  const removed = eventName.startsWith('ObjectRemoved');
  // S3 notifies queues of its bucket's own region.
  const region = options.queueArn?.split(':')[3] ?? TEST_REGION;
  const record = {
    eventVersion: '2.1',
    eventSource: 'aws:s3',
    awsRegion: region,
    eventTime: new Date(options.sentAtMillis ?? systemRuntime.now()).toISOString(),
    eventName,
    userIdentity: { principalId: 'AWS:AIDAINPONIXQXHT3IKHL2' },
    requestParameters: { sourceIPAddress: '192.0.2.1' },
    responseElements: requestIds(),
    s3: {
      s3SchemaVersion: '1.0',
      configurationId: 'inbox-notification',
      bucket: {
        name: object.bucket,
        ownerIdentity: { principalId: 'A3NL1KOZZKExample' },
        arn: `arn:aws:s3:::${object.bucket}`,
      },
      object: {
        key: encodeObjectKey(object.key),
        ...(removed && object.size === undefined ? {} : { size: object.size ?? 0 }),
        ...(removed && object.eTag === undefined ? {} : { eTag: object.eTag ?? EMPTY_MD5 }),
        ...(object.versionId === undefined ? {} : { versionId: object.versionId }),
        sequencer: object.sequencer ?? nextSequencer(),
      },
    },
  };
  return deliveredRecord({ body: JSON.stringify({ Records: [record] }) }, options);
}

/**
 * A record of the test message S3 sends once, when a bucket's notification to the queue is
 * configured: the `s3` source acknowledges it without running the handler (`ignored`).
 *
 * @example
 * ```ts
 * import { s3TestEventRecord, sqsEvent } from 'sqs-inbox/testing';
 * const [outcome] = await processor.processRecords(sqsEvent(s3TestEventRecord({ bucket: 'uploads' })));
 * // outcome.status === 'ignored'
 * ```
 * @public
 */
export function s3TestEventRecord(
  notice: { readonly bucket: string },
  options: DeliveryOptions = {},
): SQSRecord {
  const { 'x-amz-request-id': RequestId, 'x-amz-id-2': HostId } = requestIds();
  const body = {
    Service: 'Amazon S3',
    Event: S3_TEST_EVENT,
    Time: new Date(options.sentAtMillis ?? systemRuntime.now()).toISOString(),
    Bucket: notice.bucket,
    RequestId,
    HostId,
  };
  return deliveredRecord({ body: JSON.stringify(body) }, options);
}

/** S3 sends each path segment URL-encoded, a space as `+`, and keeps the `/` between them. */
function encodeObjectKey(key: string): string {
  return key
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/%20/g, '+'))
    .join('/');
}

function nextSequencer(): string {
  lastSequencer += 1n;
  return lastSequencer.toString(16).toUpperCase().padStart(18, '0');
}

function requestIds() {
  return {
    'x-amz-request-id': randomBytes(8).toString('hex').toUpperCase(),
    'x-amz-id-2': randomBytes(48).toString('base64'),
  };
}
