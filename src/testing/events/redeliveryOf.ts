import type { SQSRecord } from 'aws-lambda';
import { receiptHandle } from './deliveredRecord.js';

/**
 * The same SQS message received again, as SQS delivers it after its visibility timeout (a
 * failed or timed-out attempt, a batch item failure, a crash): the same message id, body and
 * attributes, its `ApproximateReceiveCount` one more, and a new receipt handle.
 *
 * @example
 * ```ts
 * import { redeliveryOf, sqsEvent, sqsRecord } from 'sqs-inbox/testing';
 * const record = sqsRecord({ paymentId: 'pay-1' });
 * await processor.process(sqsEvent(record));
 * await processor.process(sqsEvent(redeliveryOf(record))); // receive count 2: a duplicate
 * ```
 * @public
 */
export function redeliveryOf(record: SQSRecord): SQSRecord {
  return {
    ...record,
    receiptHandle: receiptHandle(record.messageId),
    attributes: {
      ...record.attributes,
      ApproximateReceiveCount: String(Number(record.attributes.ApproximateReceiveCount) + 1),
    },
  };
}
