import {
  type MessageAttributeValue,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { OutboxMessageIdField } from '../constants/values.js';
import { DeadLetterSendError } from '../errors.js';
import { utf8Bytes } from '../outbox/messageSize.js';
import {
  type OutboxDeadLetter,
  type OutboxDeadLetterSink,
  withoutContent,
} from '../outbox/OutboxDeadLetter.js';
import { attributeText } from './attributeText.js';
import { isSqsTooLarge } from './sendFailure.js';

/**
 * Sends the relay's dead letters to an SQS queue: the letter as the JSON body, its reason and
 * the message's outbox id as attributes (`outbox.error`, `outbox.messageId`) for a console
 * filter. A letter carries the message in full, and JSON escapes its body again, so a message
 * that fit its destination can outgrow the queue's `MaximumMessageSize`; when the queue refuses
 * the letter, it is sent again without the message's body and attributes (or the record's
 * image), saying so in `omitted`, rather than failing the stream record at every retry. Throws
 * `DeadLetterSendError` when SQS takes neither.
 *
 * @example
 * ```ts
 * import { SQSClient } from '@aws-sdk/client-sqs';
 * const sink = new OutboxDeadLetterPublisher(relayDlqUrl, () => new SQSClient({}));
 * ```
 * @public
 */
export class OutboxDeadLetterPublisher implements OutboxDeadLetterSink {
  /** The URL of the dead-letter queue the letters go to. */
  readonly queueUrl: string;
  readonly #client: () => SQSClient;

  constructor(queueUrl: string, client: () => SQSClient) {
    this.queueUrl = queueUrl;
    this.#client = client;
  }

  /**
   * Sends one letter: in full, or without the content when the queue refuses it for its size.
   * Throws `DeadLetterSendError` when SQS takes neither.
   */
  async send(letter: OutboxDeadLetter): Promise<void> {
    const command = this.#command(letter);
    try {
      await this.#client().send(command);
      return;
    } catch (cause) {
      const smaller = withoutContent(letter, sqsCountedBytes(command));
      // Only a refusal for its size: any other (no grant, no queue) would refuse it as well.
      if (smaller === undefined || !isSqsTooLarge(cause)) {
        throw new DeadLetterSendError(this.queueUrl, cause);
      }
      try {
        await this.#client().send(this.#command(smaller));
      } catch (again) {
        throw new DeadLetterSendError(this.queueUrl, again);
      }
    }
  }

  #command(letter: OutboxDeadLetter): SendMessageCommand {
    const attributes: Record<string, MessageAttributeValue> = {
      'outbox.error': { DataType: 'String', StringValue: attributeText(letter.reason.error, 256) },
    };
    const id = letter.message?.id ?? letter.messageEnvelope?.id;
    if (id !== undefined) {
      attributes[OutboxMessageIdField.Attribute] = { DataType: 'String', StringValue: id };
    }
    return new SendMessageCommand({
      QueueUrl: this.queueUrl,
      MessageBody: JSON.stringify(letter),
      MessageAttributes: attributes,
    });
  }
}

/** A message's size as SQS counts it: its body and each attribute's name, data type, value. */
function sqsCountedBytes(command: SendMessageCommand): number {
  const { MessageBody = '', MessageAttributes = {} } = command.input;
  let bytes = utf8Bytes(MessageBody);
  for (const [name, value] of Object.entries(MessageAttributes)) {
    bytes += utf8Bytes(name) + utf8Bytes(value.DataType ?? '') + utf8Bytes(value.StringValue ?? '');
  }
  return bytes;
}
