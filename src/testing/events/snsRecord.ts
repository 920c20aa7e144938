import { randomBytes, randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { systemRuntime } from '../../runtime/InboxRuntime.js';
import {
  bodyText,
  type DeliveryOptions,
  deliveredRecord,
  TEST_ACCOUNT,
  TEST_REGION,
} from './deliveredRecord.js';

const TOPIC_ARN = `arn:aws:sns:${TEST_REGION}:${TEST_ACCOUNT}:orders`;

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
  /** The topic's ARN; default `arn:aws:sns:us-east-1:123456789012:orders`. */
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
}

/**
 * A record of a queue subscribed to an SNS topic. By default the body is the notification SNS
 * writes with raw message delivery off — `Type`, `MessageId`, `TopicArn`, `Message`,
 * `Timestamp`, signature fields, `Subject` and `MessageAttributes` when given — which the
 * `sns` source unwraps and keys by SNS's `MessageId`; with `raw` the message is the body.
 * The message is given as published: a string as it is, another value as its JSON text.
 *
 * @example
 * ```ts
 * import { snsRecord, sqsEvent } from 'sqs-inbox/testing';
 * const record = snsRecord({ orderId: 'o-1' }, { snsMessageId: 'sns-1' });
 * await processor.process(sqsEvent(record)); // sources: ['sns']; the key is 'sns:sns-1'
 * ```
 * @public
 */
export function snsRecord(message: unknown, options: SnsRecordOptions = {}): SQSRecord {
  const text = bodyText(message);
  if (options.raw === true) {
    return deliveredRecord({ body: text, messageAttributes: options.messageAttributes }, options);
  }
  return deliveredRecord({ body: JSON.stringify(notification(text, options)) }, options);
}

/** The notification as SNS writes it to the queue, its fields in SNS's order. */
function notification(message: string, options: SnsRecordOptions): Record<string, unknown> {
  const topicArn = options.topicArn ?? TOPIC_ARN;
  const region = topicArn.split(':')[3] ?? TEST_REGION;
  const attributes = Object.entries(options.messageAttributes ?? {});
  return {
    Type: 'Notification',
    MessageId: options.snsMessageId ?? randomUUID(),
    TopicArn: topicArn,
    ...(options.subject === undefined ? {} : { Subject: options.subject }),
    Message: message,
    Timestamp: new Date(options.sentAtMillis ?? systemRuntime.now()).toISOString(),
    SignatureVersion: '1',
    Signature: randomBytes(256).toString('base64'),
    SigningCertURL: `https://sns.${region}.amazonaws.com/SimpleNotificationService-${randomBytes(16).toString('hex')}.pem`,
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
