import { randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { isFifoRecord } from '../../batch/sqsEvent.js';
import { systemRuntime } from '../../runtime/InboxRuntime.js';
import { type DeliveryOptions, nextSequenceNumber, receiptHandle } from './deliveredRecord.js';

/**
 * The same message sent to the queue again: what a producer's retry, SNS's or EventBridge's
 * delivery retry, a relay's resend or a DLQ redrive by the console makes. The body and the
 * message attributes are the record's (an SNS notification keeps its `MessageId`, an event its
 * `id`, a relayed message its outbox id), so the library keys it as the record; SQS gives it a
 * new message id, a first receive, and on a FIFO queue a later sequence number (the same
 * deduplication id: SQS drops it within five minutes of the first, delivers it after).
 *
 * @example
 * ```ts
 * import { copyOf, sqsEvent, sqsRecord } from 'sqs-inbox/testing';
 * const record = sqsRecord({ paymentId: 'pay-1' });
 * await processor.process(sqsEvent(record));
 * const [outcome] = await processor.processRecords(sqsEvent(copyOf(record))); // 'duplicate'
 * ```
 * @public
 */
export function copyOf(
  record: SQSRecord,
  options: Pick<DeliveryOptions, 'messageId' | 'sentAtMillis'> = {},
): SQSRecord {
  const messageId = options.messageId ?? randomUUID();
  const sentAt = String(options.sentAtMillis ?? systemRuntime.now());
  return {
    ...record,
    messageId,
    receiptHandle: receiptHandle(messageId),
    attributes: {
      ...record.attributes,
      ApproximateReceiveCount: '1',
      SentTimestamp: sentAt,
      ApproximateFirstReceiveTimestamp: sentAt,
      ...(isFifoRecord(record) ? { SequenceNumber: nextSequenceNumber() } : {}),
    },
  };
}
