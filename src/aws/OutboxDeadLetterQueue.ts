import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';

/** A message of the relay's dead-letter queue, as `redriveOutbox` handles it. */
export interface QueuedDeadLetter {
  readonly messageId: string;
  readonly body: string;
  readonly receiptHandle: string;
}

/**
 * The relay's dead-letter queue as the redrive reads it: receive a page (hidden from others for
 * `visibilitySeconds`), delete what was redriven, make the rest visible again at once.
 *
 * @example
 * ```ts
 * const queue = new OutboxDeadLetterQueue(sqs, url, 60);
 * for (const letter of await queue.receive()) await queue.delete(letter);
 * ```
 */
export class OutboxDeadLetterQueue {
  constructor(
    readonly sqs: SQSClient,
    readonly queueUrl: string,
    readonly visibilitySeconds: number,
  ) {}

  /** Up to `maxMessages` (1–10); none when the queue shows none within a second. */
  async receive(maxMessages = 10): Promise<QueuedDeadLetter[]> {
    const { Messages = [] } = await this.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: this.queueUrl,
        MaxNumberOfMessages: maxMessages,
        WaitTimeSeconds: 1,
        VisibilityTimeout: this.visibilitySeconds,
      }),
    );
    return Messages.slice(0, maxMessages).map((message) => ({
      messageId: message.MessageId ?? '',
      body: message.Body ?? '',
      receiptHandle: message.ReceiptHandle ?? '',
    }));
  }

  async delete(letter: QueuedDeadLetter): Promise<void> {
    await this.sqs.send(
      new DeleteMessageCommand({ QueueUrl: this.queueUrl, ReceiptHandle: letter.receiptHandle }),
    );
  }

  /** Visible again now: a dead letter left in the queue stays in front of the operator. */
  async release(letter: QueuedDeadLetter): Promise<void> {
    await this.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: this.queueUrl,
        ReceiptHandle: letter.receiptHandle,
        VisibilityTimeout: 0,
      }),
    );
  }
}
