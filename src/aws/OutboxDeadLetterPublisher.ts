import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { OutboxMessageIdField } from '../constants.js';
import { DeadLetterSendError } from '../errors.js';
import type { OutboxDeadLetter, OutboxDeadLetterSink } from '../relay/OutboxDeadLetter.js';
import { attributeText } from './attributeText.js';

/**
 * Sends the relay's dead letters to an SQS queue: the letter as the JSON body, its reason and
 * the message's outbox id as attributes (`outbox.error`, `outbox.messageId`) for a console
 * filter. Throws {@link DeadLetterSendError} when SQS does not take it.
 *
 * @example
 * ```ts
 * const sink = new OutboxDeadLetterPublisher(queueUrl, () => new SQSClient({}));
 * ```
 */
export class OutboxDeadLetterPublisher implements OutboxDeadLetterSink {
  readonly queueUrl: string;
  readonly #client: () => SQSClient;

  constructor(queueUrl: string, client: () => SQSClient) {
    this.queueUrl = queueUrl;
    this.#client = client;
  }

  async send(letter: OutboxDeadLetter): Promise<void> {
    const attributes: Record<string, { DataType: 'String'; StringValue: string }> = {
      'outbox.error': { DataType: 'String', StringValue: attributeText(letter.reason.error, 256) },
    };
    if (letter.message !== undefined) {
      attributes[OutboxMessageIdField.Attribute] = {
        DataType: 'String',
        StringValue: letter.message.id,
      };
    }
    try {
      await this.#client().send(
        new SendMessageCommand({
          QueueUrl: this.queueUrl,
          MessageBody: JSON.stringify(letter),
          MessageAttributes: attributes,
        }),
      );
    } catch (cause) {
      throw new DeadLetterSendError(this.queueUrl, cause);
    }
  }
}
