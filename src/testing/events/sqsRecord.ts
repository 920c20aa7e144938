import type { SQSRecord } from 'aws-lambda';
import { bodyText, type DeliveryOptions, deliveredRecord } from './deliveredRecord.js';
import type { TestMessageAttributes } from './lambdaAttributes.js';

/**
 * Options of {@link sqsRecord}: how SQS delivered it, and the message attributes the producer
 * set.
 *
 * @example
 * ```ts
 * const options: SqsRecordOptions = { messageAttributes: { eventId: 'e-1' }, receiveCount: 2 };
 * ```
 * @public
 */
export interface SqsRecordOptions extends DeliveryOptions {
  /** The producer's message attributes; a string value is a `String` attribute. */
  readonly messageAttributes?: TestMessageAttributes;
}

/**
 * Options of {@link fifoRecord}: those of {@link sqsRecord} and the FIFO queue's ids.
 *
 * @example
 * ```ts
 * const options: FifoRecordOptions = { groupId: 'account-1', deduplicationId: 'pay-1' };
 * ```
 * @public
 */
export interface FifoRecordOptions extends SqsRecordOptions {
  /** `MessageGroupId`: the records of one group are processed one at a time, in order. */
  readonly groupId: string;
  /** `MessageDeduplicationId`; default the SHA-256 of the body (content-based deduplication). */
  readonly deduplicationId?: string;
  /**
   * `SequenceNumber`; default greater than every one made before in the process, so records
   * made one after the other are in order.
   */
  readonly sequenceNumber?: string;
}

/**
 * A record of a standard queue, as Lambda receives it when a producer calls `SendMessage`:
 * the body as given (a value other than a string as its JSON text).
 *
 * @example
 * ```ts
 * import { sqsEvent, sqsRecord } from 'sqs-inbox/testing';
 * const record = sqsRecord({ paymentId: 'pay-1', amountCents: 1250 }, { messageAttributes: { tenant: 'acme' } });
 * await processor.process(sqsEvent(record));
 * ```
 * @public
 */
export function sqsRecord(body: unknown, options: SqsRecordOptions = {}): SQSRecord {
  return deliveredRecord(
    { body: bodyText(body), messageAttributes: options.messageAttributes },
    options,
  );
}

/**
 * A record of a FIFO queue (its ARN ends in `.fifo`), with its group, deduplication id and
 * sequence number.
 *
 * @example
 * ```ts
 * import { fifoRecord, sqsEvent } from 'sqs-inbox/testing';
 * const first = fifoRecord({ paymentId: 'pay-1' }, { groupId: 'account-1' });
 * const second = fifoRecord({ paymentId: 'pay-2' }, { groupId: 'account-1' });
 * await processor.process(sqsEvent(first, second)); // pay-1, then pay-2
 * ```
 * @public
 */
export function fifoRecord(body: unknown, options: FifoRecordOptions): SQSRecord {
  const { groupId, deduplicationId, sequenceNumber } = options;
  return deliveredRecord(
    {
      body: bodyText(body),
      messageAttributes: options.messageAttributes,
      fifo: { groupId, deduplicationId, sequenceNumber },
    },
    options,
  );
}
