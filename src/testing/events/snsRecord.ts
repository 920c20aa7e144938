import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { InvalidConfigurationError } from '../../errors/configurationErrors.js';
import { systemRuntime } from '../../runtime/InboxRuntime.js';
import {
  bodyText,
  type DeliveryOptions,
  deliveredRecord,
  nextSequenceNumber,
  TEST_ACCOUNT,
  TEST_REGION,
} from './deliveredRecord.js';

const TOPIC_ARN = `arn:aws:sns:${TEST_REGION}:${TEST_ACCOUNT}:orders`;
const FIFO_SUFFIX = '.fifo';

/**
 * Options of {@link snsRecord}: the publish, the subscription's raw delivery, and how SQS
 * delivered the result.
 *
 * @example
 * ```ts
 * const options: SnsRecordOptions = { subject: 'OrderPlaced', messageAttributes: { eventId: 'e-1' } };
 * ```
 * @public
 */
export interface SnsRecordOptions extends DeliveryOptions {
  /**
   * The subscription delivers raw: the body is the message as published and its attributes
   * are the SQS message attributes (the `sns-raw` source). Default `false`: the body is SNS's
   * JSON notification (the `sns` source).
   */
  readonly raw?: boolean;
  /**
   * The topic's ARN; default `arn:aws:sns:us-east-1:123456789012:orders`, or `…:orders.fifo`
   * with a `groupId`.
   */
  readonly topicArn?: string;
  /** The publish's `Subject`; none by default. */
  readonly subject?: string;
  /** SNS's `MessageId` of the publish, the `sns` source's default key; default a random UUID. */
  readonly snsMessageId?: string;
  /**
   * The publish's `String` message attributes: in the notification's `MessageAttributes`, or,
   * delivered raw, the SQS message attributes.
   */
  readonly messageAttributes?: Readonly<Record<string, string>>;
  /**
   * The publish's `MessageGroupId`: the topic is a FIFO topic (its ARN ends in `.fifo`) and the
   * queue a FIFO queue, which gets the group, the deduplication id and a sequence number of its
   * own; the notification carries SNS's `SequenceNumber` and, as SNS writes it for a FIFO topic,
   * no signature. Default none: a standard topic.
   */
  readonly groupId?: string;
  /**
   * The publish's `MessageDeduplicationId`, which SNS passes to the queue; default the SHA-256
   * of the message, as the topic's content-based deduplication sets it. Only with `groupId`.
   */
  readonly deduplicationId?: string;
}

/**
 * A record of a queue subscribed to an SNS topic. By default the body is the notification SNS
 * writes with raw message delivery off — `Type`, `MessageId`, `TopicArn`, `Message`,
 * `Timestamp`, signature fields, `Subject` and `MessageAttributes` when given — which the
 * `sns` source unwraps and keys by SNS's `MessageId`; with `raw` the message is the body.
 * The message is given as published: a string as it is, another value as its JSON text. With
 * `groupId`, a FIFO topic's message in a FIFO queue.
 *
 * @example
 * ```ts
 * import { snsRecord, sqsEvent } from 'sqs-inbox/testing';
 * const record = snsRecord({ orderId: 'o-1' }, { snsMessageId: 'sns-1' });
 * await processor.process(sqsEvent(record)); // sources: ['sns']; the key is 'sns:sns-1'
 * const ordered = snsRecord({ orderId: 'o-1' }, { groupId: 'customer-1' }); // from a FIFO topic
 * ```
 * @public
 */
export function snsRecord(message: unknown, options: SnsRecordOptions = {}): SQSRecord {
  const text = bodyText(message);
  const topicArn = checkedTopicArn(options);
  const fifo =
    options.groupId === undefined ? undefined : fifoParts(options.groupId, text, options);
  if (options.raw === true) {
    return deliveredRecord(
      { body: text, messageAttributes: options.messageAttributes, fifo },
      options,
    );
  }
  const body = JSON.stringify(notification(text, topicArn, fifo !== undefined, options));
  return deliveredRecord({ body, fifo }, options);
}

/** The notification as SNS writes it to the queue, its fields in SNS's order. */
function notification(
  message: string,
  topicArn: string,
  fifo: boolean,
  options: SnsRecordOptions,
): Record<string, unknown> {
  const region = topicArn.split(':')[3] ?? TEST_REGION;
  const attributes = Object.entries(options.messageAttributes ?? {});
  return {
    Type: 'Notification',
    MessageId: options.snsMessageId ?? randomUUID(),
    ...(fifo ? { SequenceNumber: nextSequenceNumber() } : {}),
    TopicArn: topicArn,
    ...(options.subject === undefined ? {} : { Subject: options.subject }),
    Message: message,
    Timestamp: new Date(options.sentAtMillis ?? systemRuntime.now()).toISOString(),
    // A FIFO topic's notification carries no signature.
    ...(fifo ? {} : signature(region)),
    UnsubscribeURL: `https://sns.${region}.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${topicArn}:${randomUUID()}`,
    ...(attributes.length === 0
      ? {}
      : {
          MessageAttributes: Object.fromEntries(
            attributes.map(([name, value]) => [name, { Type: 'String', Value: value }]),
          ),
        }),
  };
}

function signature(region: string): Record<string, string> {
  return {
    SignatureVersion: '1',
    Signature: randomBytes(256).toString('base64'),
    SigningCertURL: `https://sns.${region}.amazonaws.com/SimpleNotificationService-${randomBytes(16).toString('hex')}.pem`,
  };
}

/** What a FIFO topic passes to its FIFO queue: the group, and the publish's deduplication id. */
function fifoParts(groupId: string, message: string, options: SnsRecordOptions) {
  return {
    groupId,
    deduplicationId:
      options.deduplicationId ?? createHash('sha256').update(message, 'utf8').digest('hex'),
  };
}

/** The topic's ARN: a FIFO topic's (ending `.fifo`) exactly when the publish has a group. */
function checkedTopicArn(options: SnsRecordOptions): string {
  const fifo = options.groupId !== undefined;
  if (!fifo && options.deduplicationId !== undefined) {
    throw new InvalidConfigurationError(
      'deduplicationId',
      options.deduplicationId,
      'no deduplication id without a groupId: only a FIFO topic takes one',
    );
  }
  const arn = options.topicArn ?? (fifo ? `${TOPIC_ARN}${FIFO_SUFFIX}` : TOPIC_ARN);
  if (arn.endsWith(FIFO_SUFFIX) === fifo) return arn;
  throw new InvalidConfigurationError(
    'topicArn',
    arn,
    fifo
      ? 'the ARN of a FIFO topic (ending .fifo): a publish with a groupId goes to one'
      : 'a standard topic’s ARN, or a groupId for a FIFO topic’s publish',
  );
}
