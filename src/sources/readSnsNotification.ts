import { OutboxMessageIdField } from '../constants/values.js';
import { EnvelopeMismatchError } from '../errors.js';
import { MessageSource, type SnsMessageAttribute, type UnwrappedRecord } from './MessageSource.js';
import { outboxIdOf, outboxKey } from './readOutboxId.js';

type Json = Record<string, unknown>;

/**
 * Whether a parsed body is an SNS message as SNS writes it to a subscribed queue with raw
 * delivery off: an object with `Type`, `TopicArn` and `MessageId` strings.
 *
 * @example
 * ```ts
 * isSnsMessage({ Type: 'Notification', TopicArn: 'arn:aws:sns:…', MessageId: 'm-1', Message: '{}' }); // => true
 * ```
 */
export function isSnsMessage(value: Json): boolean {
  return ['Type', 'TopicArn', 'MessageId'].every((name) => typeof value[name] === 'string');
}

const SNS_CONFIRMATIONS = ['SubscriptionConfirmation', 'UnsubscribeConfirmation'];

/**
 * Reads an SNS notification: `Message` is the payload text, the rest is the envelope, and
 * the SNS `MessageId` (the same on every delivery retry) is the default key.
 *
 * @example
 * ```ts
 * readSnsNotification(JSON.parse(record.body), record.messageId, ['sns']).upstreamKey; // => 'sns:<MessageId>'
 * ```
 */
export function readSnsNotification(
  notification: Json,
  messageId: string,
  declared: readonly string[],
): UnwrappedRecord {
  const type = String(notification.Type);
  if (type !== 'Notification') {
    const known = SNS_CONFIRMATIONS.includes(type);
    throw new EnvelopeMismatchError(
      messageId,
      declared,
      known ? `an SNS ${type}` : 'an SNS message of a Type other than Notification',
      known
        ? 'A subscription in another account must be confirmed: call ConfirmSubscription with ' +
            "the message's Token (it is kept in the dead-letter queue for that), or subscribe " +
            "from the topic owner's account."
        : 'Only notifications carry a payload.',
    );
  }
  if (typeof notification.Message !== 'string') {
    throw new EnvelopeMismatchError(
      messageId,
      declared,
      'an SNS notification without a Message string',
      'Deliver SNS notifications unchanged to the queue.',
    );
  }
  const snsMessageId = String(notification.MessageId);
  const messageAttributes = snsAttributes(notification.MessageAttributes);
  // A relayed message keeps its outbox id across sends; SNS gives each send a new MessageId.
  const outboxId = outboxIdOf(messageAttributes[OutboxMessageIdField.Attribute]?.value);
  return {
    envelope: {
      kind: MessageSource.Sns,
      messageId: snsMessageId,
      topicArn: String(notification.TopicArn),
      timestamp: optionalString(notification.Timestamp) ?? '',
      subject: optionalString(notification.Subject),
      sequenceNumber: optionalString(notification.SequenceNumber),
      messageAttributes,
    },
    payload: { text: notification.Message },
    upstreamKey: outboxId === undefined ? `sns:${snsMessageId}` : outboxKey(outboxId),
  };
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function snsAttributes(value: unknown): Record<string, SnsMessageAttribute> {
  const attributes: Record<string, SnsMessageAttribute> = {};
  if (typeof value !== 'object' || value === null) return attributes;
  for (const [name, attribute] of Object.entries(value as Json)) {
    const { Type, Value } = (attribute ?? {}) as Json;
    if (typeof Type === 'string' && typeof Value === 'string') {
      attributes[name] = { type: Type, value: Value };
    }
  }
  return attributes;
}

/**
 * The default parser of SNS payloads: JSON where the text is JSON, the text itself otherwise
 * (SNS carries any string).
 *
 * @example
 * ```ts
 * parseJsonOrText('{"a":1}'); // => { a: 1 }
 * parseJsonOrText('hello'); // => 'hello'
 * ```
 */
export function parseJsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
