import { WORLD_EPOCH_MILLIS } from '../lambda/SimLambda.js';

/** The topic the SNS worlds publish to. */
const TOPIC_ARN = 'arn:aws:sns:eu-west-1:111122223333:payments';

/**
 * The body SNS gives an SQS subscription for a published message (raw delivery off): the
 * notification envelope, its `Message` the published text.
 *
 * @example
 * ```ts
 * queue.send({ body: snsNotification(payload, 'sns-evt-1-1', kernel.nowMillis) }, kernel.nowMillis);
 * ```
 */
export function snsNotification(message: string, messageId: string, atMillis: number): string {
  return JSON.stringify({
    Type: 'Notification',
    MessageId: messageId,
    TopicArn: TOPIC_ARN,
    Message: message,
    Timestamp: new Date(WORLD_EPOCH_MILLIS + atMillis).toISOString(),
    SignatureVersion: '1',
  });
}

/**
 * What was published, read back from a record's body: the `Message` of an SNS notification, or
 * the body itself.
 *
 * @example
 * ```ts
 * const event = byBody.get(publishedText(message.body));
 * ```
 */
export function publishedText(body: string): string {
  if (!body.startsWith('{"Type":"Notification"')) return body;
  try {
    const message = (JSON.parse(body) as { Message?: unknown }).Message;
    return typeof message === 'string' ? message : body;
  } catch {
    return body;
  }
}
