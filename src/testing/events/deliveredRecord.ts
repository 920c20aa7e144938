import { createHash, randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { TraceCarrier } from '../../constants/values.js';
import { InvalidConfigurationError } from '../../errors.js';
import { systemRuntime } from '../../runtime/InboxRuntime.js';
import {
  lambdaAttributes,
  md5OfMessageAttributes,
  type TestMessageAttributes,
} from './lambdaAttributes.js';

/** Where the factories' defaults live: AWS's documentation account, in one region. */
export const TEST_REGION = 'us-east-1';
export const TEST_ACCOUNT = '123456789012';
const STANDARD_QUEUE_ARN = `arn:aws:sqs:${TEST_REGION}:${TEST_ACCOUNT}:orders`;
const FIFO_QUEUE_ARN = `arn:aws:sqs:${TEST_REGION}:${TEST_ACCOUNT}:orders.fifo`;
const FIFO_SUFFIX = '.fifo';
// What SQS reports as the sender (an IAM principal's id): one for every sender, nothing reads it.
const SENDER_ID = 'AIDAIENQZJOLO23YVJ4VO';

/**
 * How SQS delivered a record, in Lambda's event: every factory of `sqs-inbox/testing` takes
 * these, and makes up what is not given (a random message id, now, the first receive).
 *
 * @example
 * ```ts
 * const options: DeliveryOptions = { messageId: 'm-1', receiveCount: 3, sentAtMillis: 0 };
 * ```
 * @public
 */
export interface DeliveryOptions {
  /** The SQS message id; default a random UUID. */
  readonly messageId?: string;
  /**
   * The queue's ARN (`eventSourceARN`); default `arn:aws:sqs:us-east-1:123456789012:orders`,
   * or `…:orders.fifo` for a FIFO record. Its region is the record's `awsRegion`.
   */
  readonly queueArn?: string;
  /** `ApproximateReceiveCount`: 1 on the first delivery (the default), 2 on the next… */
  readonly receiveCount?: number;
  /**
   * `SentTimestamp` and `ApproximateFirstReceiveTimestamp`, epoch milliseconds; default now by
   * `Date.now`. With `InboxTest`, whose clock starts at 2026-01-01, pass `inbox.clock.now()` for
   * a record sent at the harness's time.
   */
  readonly sentAtMillis?: number;
  /** The `AWSTraceHeader` system attribute (X-Ray format), as a traced producer sets it. */
  readonly traceHeader?: string;
}

/** A FIFO record's own system attributes. */
export interface FifoParts {
  readonly groupId: string;
  /** Default: SHA-256 of the body, as content-based deduplication sets it. */
  readonly deduplicationId?: string | undefined;
  /** Default: greater than every one made before in this process. */
  readonly sequenceNumber?: string | undefined;
}

/** What a factory puts in the record besides the delivery: the body, attributes, FIFO ids. */
export interface RecordParts {
  readonly body: string;
  readonly messageAttributes?: TestMessageAttributes | undefined;
  readonly fifo?: FifoParts | undefined;
  /** On a standard queue: the group a fair queue delivers it with (no order promised). */
  readonly fairGroupId?: string | undefined;
}

/**
 * The record SQS delivers to Lambda of the given parts: system attributes as Lambda spells them
 * (every value a string), message attributes in Lambda's shape, `md5OfBody` computed. A FIFO
 * queue's ARN ends in `.fifo`: FIFO parts need one and other parts refuse one.
 */
export function deliveredRecord(parts: RecordParts, options: DeliveryOptions = {}): SQSRecord {
  const queueArn = checkedQueueArn(options.queueArn, parts.fifo !== undefined);
  const messageId = options.messageId ?? randomUUID();
  const sentAt = String(options.sentAtMillis ?? systemRuntime.now());
  const messageAttributes = lambdaAttributes(parts.messageAttributes ?? {});
  return {
    messageId,
    receiptHandle: receiptHandle(messageId),
    body: parts.body,
    attributes: {
      ApproximateReceiveCount: String(options.receiveCount ?? 1),
      SentTimestamp: sentAt,
      SenderId: SENDER_ID,
      ApproximateFirstReceiveTimestamp: sentAt,
      ...(options.traceHeader === undefined
        ? {}
        : { [TraceCarrier.AwsTraceHeader]: options.traceHeader }),
      ...(parts.fairGroupId === undefined ? {} : { MessageGroupId: parts.fairGroupId }),
      ...(parts.fifo === undefined ? {} : fifoAttributes(parts.fifo, parts.body)),
    },
    messageAttributes,
    md5OfBody: md5(parts.body),
    ...(Object.keys(messageAttributes).length === 0
      ? {}
      : { md5OfMessageAttributes: md5OfMessageAttributes(messageAttributes) }),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: queueArn.split(':')[3] ?? TEST_REGION,
  };
}

/**
 * A body as a producer sends it: a string as it is, any other value as its JSON text.
 *
 * @example
 * ```ts
 * bodyText({ orderId: 'o-1' }); // => '{"orderId":"o-1"}'
 * ```
 */
export function bodyText(body: unknown): string {
  return typeof body === 'string' ? body : JSON.stringify(body);
}

/**
 * A receipt handle: new on every receive, as SQS makes one.
 *
 * @example
 * ```ts
 * const again = { ...record, receiptHandle: receiptHandle(record.messageId) };
 * ```
 */
export function receiptHandle(messageId: string): string {
  return `AQEB${Buffer.from(`${messageId}:${randomUUID()}`).toString('base64')}`;
}

// SQS numbers each FIFO message above every earlier one of its group; one counter for the
// process keeps that across factories and tests (its values only ever grow).
let lastSequenceNumber = 18_000_000_000_000_000_000n;

/**
 * The next FIFO sequence number: 20 digits, greater than every one given before.
 *
 * @example
 * ```ts
 * BigInt(nextSequenceNumber()) > BigInt(nextSequenceNumber()); // => false
 * ```
 */
export function nextSequenceNumber(): string {
  lastSequenceNumber += 1n;
  return lastSequenceNumber.toString();
}

function fifoAttributes(fifo: FifoParts, body: string) {
  if (typeof fifo.groupId !== 'string' || !/^[\x21-\x7E]{1,128}$/.test(fifo.groupId)) {
    throw new InvalidConfigurationError(
      'groupId',
      fifo.groupId,
      '1-128 printable ASCII characters',
    );
  }
  return {
    MessageGroupId: fifo.groupId,
    MessageDeduplicationId:
      fifo.deduplicationId ?? createHash('sha256').update(body, 'utf8').digest('hex'),
    SequenceNumber: fifo.sequenceNumber ?? nextSequenceNumber(),
  };
}

/**
 * The queue a factory's record comes from when the test names none.
 *
 * @example
 * ```ts
 * defaultQueueArn(true); // => 'arn:aws:sqs:us-east-1:123456789012:orders.fifo'
 * ```
 */
export function defaultQueueArn(fifo: boolean): string {
  return fifo ? FIFO_QUEUE_ARN : STANDARD_QUEUE_ARN;
}

/**
 * The ARN given, when it is an SQS queue's; an `InvalidConfigurationError` otherwise.
 *
 * @example
 * ```ts
 * checkQueueArn('arn:aws:sqs:eu-west-1:123456789012:credits.fifo'); // returned as is
 * ```
 */
export function checkQueueArn(arn: string): string {
  if (!/^arn:aws[a-z-]*:sqs:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,75}(\.fifo)?$/.test(arn)) {
    throw new InvalidConfigurationError('queueArn', arn, 'an SQS queue ARN');
  }
  return arn;
}

function checkedQueueArn(given: string | undefined, fifo: boolean): string {
  const arn = checkQueueArn(given ?? defaultQueueArn(fifo));
  if (arn.endsWith(FIFO_SUFFIX) !== fifo) {
    throw new InvalidConfigurationError(
      'queueArn',
      arn,
      fifo
        ? 'the ARN of a FIFO queue (ending .fifo): a FIFO record comes from one'
        : 'the ARN of a standard queue: use fifoRecord for a FIFO queue',
    );
  }
  return arn;
}

function md5(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}
