import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import type { DeadLetterNeeds, DeadLetterSink } from '../core/DeadLetterSink.js';
import type { LoggedKey } from '../core/loggedKey.js';
import { DeadLetterSendError, InvalidConfigurationError } from '../errors.js';
import { BOUNDED_REQUEST_HANDLER } from './boundedRequestHandler.js';
import { deadLetterCopies } from './deadLetterCopies.js';
import { isSqsTooLarge } from './sendFailure.js';

/**
 * Sends permanently failing messages to a dead-letter queue, with message attributes that
 * name the error, the consumer, the original messageId and source queue, and the key. The body
 * is sent unchanged, and the message's own attributes its key was read from are kept before any
 * other, so a redriven copy is keyed again (see {@link deadLetterCopies} for the order within
 * SQS's ten). A copy the queue refuses as too large is sent again with fewer annotations, down to
 * the reason alone. For a FIFO DLQ the original message group is kept and the original messageId
 * is the deduplication id, so a resend after a crash is dropped by SQS within its 5-minute window.
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

  /** Sends the record; throws `DeadLetterSendError` if SQS does not accept it. */
  async send(
    record: SQSRecord,
    error: unknown,
    consumer: string,
    key: LoggedKey | undefined,
    needs?: DeadLetterNeeds,
  ): Promise<void> {
    if (isSameQueue(this.queueUrl, record.eventSourceARN)) {
      throw new DeadLetterSendError(
        this.queueUrl,
        new InvalidConfigurationError(
          'deadLetter.queueUrl',
          this.queueUrl,
          `a queue other than the source queue ${record.eventSourceARN}`,
        ),
      );
    }
    // Built on first use, not at import or creation; a stalled send times out and is retried.
    this.#client ??= new SQSClient({ requestHandler: BOUNDED_REQUEST_HANDLER });
    const copies = deadLetterCopies(record, { error, consumer, key, needs });
    for (const [n, attributes] of copies.entries()) {
      try {
        await this.#client.send(this.#command(record, consumer, attributes));
        return;
      } catch (cause) {
        if (n === copies.length - 1 || !isSqsTooLarge(cause)) {
          throw new DeadLetterSendError(this.queueUrl, cause);
        }
      }
    }
  }

  #command(
    record: SQSRecord,
    consumer: string,
    attributes: SendMessageCommand['input']['MessageAttributes'],
  ): SendMessageCommand {
    const fifo = this.queueUrl.endsWith('.fifo');
    return new SendMessageCommand({
      QueueUrl: this.queueUrl,
      MessageBody: record.body,
      MessageAttributes: attributes,
      ...(fifo
        ? {
            MessageGroupId: record.attributes.MessageGroupId ?? consumer,
            MessageDeduplicationId: record.messageId,
          }
        : {}),
    });
  }
}

/** Whether a queue URL (…/account/name) names the queue of an ARN (…:account:name). */
function isSameQueue(queueUrl: string, queueArn: string | undefined): boolean {
  if (!queueArn) return false;
  const [account, name] = new URL(queueUrl).pathname.split('/').filter(Boolean).slice(-2);
  const arnParts = queueArn.split(':');
  return account === arnParts[4] && name === arnParts[5];
}
