import type { SQSMessageAttributes, SQSRecord } from 'aws-lambda';

/** What a record is made of: a queued message's fields (structural, so SimQueue can import this). */
interface RecordedMessage {
  readonly messageId: string;
  readonly receiptHandle: string | undefined;
  readonly body: string;
  readonly receiveCount: number;
  readonly sentAtMillis: number;
  readonly firstReceiveAtMillis: number | undefined;
  readonly groupId?: string | undefined;
  readonly deduplicationId?: string | undefined;
  readonly sequence: number;
  readonly attributes?: Readonly<
    Record<string, { readonly DataType?: string; readonly StringValue?: string }>
  >;
}

/**
 * A queued message as the Lambda event source mapping hands it to a function.
 *
 * @example
 * ```ts
 * const record = toSqsRecord(message, { fifo: false, arn: queue.arn });
 * ```
 */
export function toSqsRecord(
  message: RecordedMessage,
  queue: { readonly fifo: boolean; readonly arn: string },
): SQSRecord {
  return {
    messageId: message.messageId,
    receiptHandle: message.receiptHandle ?? '',
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.sentAtMillis),
      SenderId: 'AIDASIMULATED',
      ApproximateFirstReceiveTimestamp: String(
        message.firstReceiveAtMillis ?? message.sentAtMillis,
      ),
      ...(queue.fifo
        ? {
            MessageGroupId: message.groupId,
            MessageDeduplicationId: message.deduplicationId ?? message.messageId,
            SequenceNumber: String(message.sequence).padStart(20, '0'),
          }
        : {}),
    },
    messageAttributes: toRecordAttributes(message.attributes),
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: queue.arn,
    awsRegion: 'us-east-1',
  };
}

function toRecordAttributes(attributes: RecordedMessage['attributes']): SQSMessageAttributes {
  const converted: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(attributes ?? {})) {
    converted[name] = {
      dataType: value.DataType ?? 'String',
      stringValue: value.StringValue,
      stringListValues: [],
      binaryListValues: [],
    };
  }
  return converted;
}
