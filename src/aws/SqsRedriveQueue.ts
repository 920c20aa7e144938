import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  type Message,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';

/**
 * A DLQ as the inbox-aware redrive and report read it, over SQS (the `RedriveQueue` of
 * `src/operations`): receives with every attribute, in Lambda's record shape, and sends copies
 * back to source queues found by their ARN.
 *
 * @example
 * ```ts
 * const queue = await SqsRedriveQueue.open(new SQSClient({}), dlqUrl);
 * ```
 */
export class SqsRedriveQueue {
  readonly #urls = new Map<string, Promise<string>>();

  private constructor(
    private readonly client: SQSClient,
    readonly url: string,
    readonly arn: string,
    readonly fifo: boolean,
  ) {}

  /** Opens the queue at `url`: reads its ARN and whether it is FIFO. */
  static async open(client: SQSClient, url: string): Promise<SqsRedriveQueue> {
    const { Attributes = {} } = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn', 'FifoQueue'] }),
    );
    return new SqsRedriveQueue(
      client,
      url,
      Attributes.QueueArn ?? url,
      Attributes.FifoQueue === 'true',
    );
  }

  async receive(visibilitySeconds: number): Promise<readonly SQSRecord[]> {
    const { Messages = [] } = await this.client.send(
      new ReceiveMessageCommand({
        QueueUrl: this.url,
        MaxNumberOfMessages: 10,
        // Long polling asks every server, so a nearly empty queue is not read as empty.
        WaitTimeSeconds: 1,
        VisibilityTimeout: visibilitySeconds,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    return Messages.map((message) => this.#record(message));
  }

  hide(records: readonly SQSRecord[], visibilitySeconds: number): Promise<void> {
    return this.#changeVisibility(records, visibilitySeconds);
  }

  release(records: readonly SQSRecord[]): Promise<void> {
    return this.#changeVisibility(records, 0);
  }

  async #changeVisibility(records: readonly SQSRecord[], seconds: number): Promise<void> {
    if (records.length === 0) return;
    await this.client.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: this.url,
        Entries: records.map((record, index) => ({
          Id: String(index),
          ReceiptHandle: record.receiptHandle,
          VisibilityTimeout: seconds,
        })),
      }),
    );
  }

  async remove(record: SQSRecord): Promise<void> {
    await this.client.send(
      new DeleteMessageCommand({ QueueUrl: this.url, ReceiptHandle: record.receiptHandle }),
    );
  }

  async sendBack(
    destinationArn: string,
    copy: {
      readonly body: string;
      readonly messageAttributes: SQSMessageAttributes;
      readonly traceHeader?: string;
      readonly groupId?: string;
      readonly deduplicationId?: string;
    },
  ): Promise<string> {
    const { MessageId } = await this.client.send(
      new SendMessageCommand({
        QueueUrl: await this.#urlOf(destinationArn),
        MessageBody: copy.body,
        MessageAttributes: sdkAttributes(copy.messageAttributes),
        ...(copy.traceHeader
          ? {
              MessageSystemAttributes: {
                AWSTraceHeader: { DataType: 'String', StringValue: copy.traceHeader },
              },
            }
          : {}),
        ...(copy.groupId === undefined ? {} : { MessageGroupId: copy.groupId }),
        ...(copy.deduplicationId === undefined
          ? {}
          : { MessageDeduplicationId: copy.deduplicationId }),
      }),
    );
    return MessageId ?? '';
  }

  async depth(): Promise<{ visible: number; inFlight: number; retentionSeconds: number }> {
    const names = [
      'ApproximateNumberOfMessages',
      'ApproximateNumberOfMessagesNotVisible',
      'MessageRetentionPeriod',
    ] as const;
    const { Attributes = {} } = await this.client.send(
      new GetQueueAttributesCommand({ QueueUrl: this.url, AttributeNames: [...names] }),
    );
    return {
      visible: Number(Attributes.ApproximateNumberOfMessages ?? 0),
      inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0),
      retentionSeconds: Number(Attributes.MessageRetentionPeriod ?? 0),
    };
  }

  async retentionSecondsOf(queueArn: string): Promise<number | undefined> {
    const { Attributes = {} } = await this.client.send(
      new GetQueueAttributesCommand({
        QueueUrl: await this.#urlOf(queueArn),
        AttributeNames: ['MessageRetentionPeriod'],
      }),
    );
    const seconds = Number(Attributes.MessageRetentionPeriod);
    return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
  }

  /** A queue's URL from its ARN (`arn:aws:sqs:<region>:<account>:<name>`), asked of SQS once. */
  #urlOf(queueArn: string): Promise<string> {
    const known = this.#urls.get(queueArn);
    if (known) return known;
    const [, , , , account, name] = queueArn.split(':');
    const url = this.client
      .send(
        new GetQueueUrlCommand({ QueueName: name ?? queueArn, QueueOwnerAWSAccountId: account }),
      )
      .then(({ QueueUrl }) => QueueUrl ?? '');
    this.#urls.set(queueArn, url);
    return url;
  }

  #record(message: Message): SQSRecord {
    return {
      messageId: message.MessageId ?? '',
      receiptHandle: message.ReceiptHandle ?? '',
      body: message.Body ?? '',
      attributes: (message.Attributes ?? {}) as unknown as SQSRecordAttributes,
      messageAttributes: lambdaAttributes(message.MessageAttributes ?? {}),
      md5OfBody: message.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN: this.arn,
      awsRegion: this.arn.split(':')[3] ?? '',
    };
  }
}

function lambdaAttributes(attributes: Record<string, MessageAttributeValue>): SQSMessageAttributes {
  return Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [
      name,
      {
        dataType: value.DataType ?? 'String',
        ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
        ...(value.BinaryValue !== undefined
          ? { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }
          : {}),
      },
    ]),
  );
}

function sdkAttributes(attributes: SQSMessageAttributes): Record<string, MessageAttributeValue> {
  return Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [
      name,
      {
        DataType: value.dataType,
        ...(value.stringValue !== undefined ? { StringValue: value.stringValue } : {}),
        ...(value.binaryValue !== undefined
          ? { BinaryValue: Buffer.from(value.binaryValue, 'base64') }
          : {}),
      },
    ]),
  );
}
