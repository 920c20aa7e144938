import { randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { isFifoRecord } from '../../batch/sqsEvent.js';
import { redrivenCopy as copyToSendBack } from '../../operations/redrivenCopy.js';
import { type DeliveryOptions, deliveredRecord } from './deliveredRecord.js';

/**
 * Options of {@link redrivenCopy}: the dead-letter queue's message and the run that sent it
 * back, and how SQS delivered the copy.
 *
 * @example
 * ```ts
 * const options: RedrivenCopyOptions = { dlqMessageId: 'dlq-1', operationId: 'op-1' };
 * ```
 * @public
 */
export interface RedrivenCopyOptions extends Pick<DeliveryOptions, 'messageId' | 'sentAtMillis'> {
  /**
   * The message id of the record in the dead-letter queue, sent as `inbox.redriveOf`; default
   * the record's (the queue's redrive policy moves a message with its id; a message the
   * library dead-lettered has a new one).
   */
  readonly dlqMessageId?: string;
  /** The redrive run's id, sent as `inbox.redriveOp`; default a random UUID. */
  readonly operationId?: string;
}

/**
 * The copy `sqs-inbox dlq redrive` sends back to the record's queue once the record is in the
 * dead-letter queue, delivered by SQS: a new message id on its first receive, the same body,
 * the attributes the redrive gives it (the message's own, `inbox.redriveOf` and
 * `inbox.redriveOp`, the library's annotations but its error — the redrive's own function
 * builds them), its trace header, and on a FIFO queue its group and the redrive's
 * deduplication id. The consumer keys it by its content, as the message it copies.
 *
 * @example
 * ```ts
 * import { redrivenCopy, sqsEvent } from 'sqs-inbox/testing';
 * const copy = redrivenCopy(record, { operationId: 'op-1' });
 * await processor.process(sqsEvent(copy)); // message.messageAttributes['inbox.redriveOp'].stringValue === 'op-1'
 * ```
 * @public
 */
export function redrivenCopy(record: SQSRecord, options: RedrivenCopyOptions = {}): SQSRecord {
  const fifo = isFifoRecord(record);
  const inDeadLetterQueue: SQSRecord = {
    ...record,
    messageId: options.dlqMessageId ?? record.messageId,
    eventSourceARN: deadLetterQueueArnOf(record.eventSourceARN),
  };
  const copy = copyToSendBack(inDeadLetterQueue, options.operationId ?? randomUUID());
  return deliveredRecord(
    {
      body: copy.body,
      messageAttributes: copy.messageAttributes,
      ...(fifo
        ? { fifo: { groupId: copy.groupId ?? '', deduplicationId: copy.deduplicationId } }
        : { fairGroupId: copy.groupId }),
    },
    {
      ...options,
      queueArn: record.eventSourceARN,
      ...(copy.traceHeader === undefined ? {} : { traceHeader: copy.traceHeader }),
    },
  );
}

/** A dead-letter queue beside the record's queue (a FIFO queue's is FIFO too). */
function deadLetterQueueArnOf(queueArn: string): string {
  return queueArn.replace(/(\.fifo)?$/, (fifo) => `-dlq${fifo}`);
}
