import type { SQSEvent, SQSRecord } from 'aws-lambda';

/**
 * The event Lambda invokes an SQS consumer with: a batch of records, in the order given (a
 * FIFO queue's records of one group in their order).
 *
 * @example
 * ```ts
 * import { sqsEvent, sqsRecord } from 'sqs-inbox/testing';
 * const response = await processor.process(sqsEvent(sqsRecord('a'), sqsRecord('b')));
 * ```
 * @public
 */
export function sqsEvent(...records: SQSRecord[]): SQSEvent {
  return { Records: records };
}
