import { type MessageAttributeValue, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import {
  DEAD_LETTER_ATTRIBUTE_PREFIX,
  DeadLetterAttribute,
  OutboxMessageIdField,
} from '../constants.js';
import type { DeadLetterSink } from '../core/DeadLetterSink.js';
import type { LoggedKey } from '../core/loggedKey.js';
import { DeadLetterSendError, InvalidConfigurationError } from '../errors.js';
import { attributeText } from './attributeText.js';
import { BOUNDED_REQUEST_HANDLER } from './boundedRequestHandler.js';

const MAX_ERROR_MESSAGE_BYTES = 1024;
const MAX_ATTRIBUTE_BYTES = 1024;
const MAX_MESSAGE_ATTRIBUTES = 10;

/**
 * Sends permanently failing messages to a dead-letter queue, with message attributes that
 * name the error, the consumer, the original messageId and source queue. The body is sent
 * unchanged. For a FIFO DLQ the original message group is kept and the original messageId is
 * the deduplication id, so a resend after a crash is dropped by SQS within its 5-minute window.
 *
 * @example
 * ```ts
 * const dlq = new DeadLetterPublisher('https://sqs.eu-west-1.amazonaws.com/123456789012/ledger-dlq');
 * await dlq.send(record, new PermanentError('unknown account'), 'ledger', { key: 'evt-1' });
 * ```
 */
export class DeadLetterPublisher implements DeadLetterSink {
  readonly queueUrl: string;
  #client: SQSClient | undefined;

  constructor(queueUrl: string, client?: SQSClient) {
    this.queueUrl = queueUrl;
    this.#client = client;
  }

  /** Sends the record; throws {@link DeadLetterSendError} if SQS does not accept it. */
  async send(
    record: SQSRecord,
    error: unknown,
    consumer: string,
    key: LoggedKey | undefined,
  ): Promise<void> {
    if (isSameQueue(this.queueUrl, record.eventSourceARN)) {
      throw new DeadLetterSendError(
        this.queueUrl,
        new InvalidConfigurationError(
          'deadLetterQueueUrl',
          this.queueUrl,
          `a queue other than the source queue ${record.eventSourceARN}`,
        ),
      );
    }
    // Built on first use, not at import or creation; a stalled send times out and is retried.
    this.#client ??= new SQSClient({ requestHandler: BOUNDED_REQUEST_HANDLER });
    const fifo = this.queueUrl.endsWith('.fifo');
    const command = new SendMessageCommand({
      QueueUrl: this.queueUrl,
      MessageBody: record.body,
      MessageAttributes: attributesFor(record, error, consumer, key),
      ...(fifo
        ? {
            MessageGroupId: record.attributes.MessageGroupId ?? consumer,
            MessageDeduplicationId: record.messageId,
          }
        : {}),
    });
    try {
      await this.#client.send(command);
    } catch (cause) {
      throw new DeadLetterSendError(this.queueUrl, cause);
    }
  }
}

function attributesFor(
  record: SQSRecord,
  error: unknown,
  consumer: string,
  key: LoggedKey | undefined,
): Record<string, MessageAttributeValue> {
  const text = (value: string, maxBytes = MAX_ATTRIBUTE_BYTES): MessageAttributeValue => ({
    DataType: 'String',
    StringValue: attributeText(value, maxBytes) || '(none)',
  });
  const inbox: Record<string, MessageAttributeValue> = {
    [DeadLetterAttribute.Error]: text(error instanceof Error ? error.name : 'Error'),
    // A thrown non-Error (a string, an HTTP response) by its type: its text may be content.
    [DeadLetterAttribute.ErrorMessage]: text(
      error instanceof Error ? error.message : `the handler threw a ${typeof error}, not an Error`,
      MAX_ERROR_MESSAGE_BYTES,
    ),
    [DeadLetterAttribute.Consumer]: text(consumer),
    [DeadLetterAttribute.OriginalMessageId]: text(record.messageId),
  };
  if (record.eventSourceARN)
    inbox[DeadLetterAttribute.SourceQueueArn] = text(record.eventSourceARN);
  if (key !== undefined && 'key' in key) inbox[DeadLetterAttribute.Key] = text(key.key);
  if (key !== undefined && 'keyHash' in key) inbox[DeadLetterAttribute.KeyHash] = text(key.keyHash);
  return {
    ...originalAttributes(record, MAX_MESSAGE_ATTRIBUTES - Object.keys(inbox).length),
    ...inbox,
  };
}

/**
 * The record's own message attributes, as many as fit beside the inbox's, in name order, its
 * outbox id first: it keys the message again when the DLQ is redriven.
 */
function originalAttributes(
  record: SQSRecord,
  room: number,
): Record<string, MessageAttributeValue> {
  const first = (name: string) => (name === OutboxMessageIdField.Attribute ? 0 : 1);
  const names = Object.keys(record.messageAttributes ?? {})
    .filter((name) => !name.startsWith(DEAD_LETTER_ATTRIBUTE_PREFIX))
    .sort((a, b) => first(a) - first(b) || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, Math.max(0, room));
  const copied: Record<string, MessageAttributeValue> = {};
  for (const name of names) {
    const value = record.messageAttributes[name];
    if (value === undefined) continue;
    copied[name] = {
      DataType: value.dataType,
      ...(value.stringValue !== undefined ? { StringValue: value.stringValue } : {}),
      ...(value.binaryValue !== undefined
        ? { BinaryValue: Buffer.from(value.binaryValue, 'base64') }
        : {}),
    };
  }
  return copied;
}

/** Whether a queue URL (…/account/name) names the queue of an ARN (…:account:name). */
function isSameQueue(queueUrl: string, queueArn: string | undefined): boolean {
  if (!queueArn) return false;
  const [account, name] = new URL(queueUrl).pathname.split('/').filter(Boolean).slice(-2);
  const arnParts = queueArn.split(':');
  return account === arnParts[4] && name === arnParts[5];
}
