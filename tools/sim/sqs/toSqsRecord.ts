import type { SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import type { QueuedMessage, SentAttribute } from './SimQueue.js';

/**
 * A queued message as the Lambda event source mapping hands it to a function.
 *
 * @example
 * ```ts
 * const record = toSqsRecord(message, { fifo: false, arn: queue.arn });
 * ```
 */
export function toSqsRecord(
  message: QueuedMessage,
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

function toRecordAttributes(
  attributes: Readonly<Record<string, SentAttribute>> | undefined,
): SQSMessageAttributes {
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
