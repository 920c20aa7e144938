import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { MalformedEventError } from '../errors.js';

/**
 * Checks that an invocation is an SQS batch event and returns its records. Anything else
 * fails loudly: acknowledging records of an event we cannot read would lose them, and a
 * batch response with an empty or invented `itemIdentifier` makes Lambda fail the batch.
 *
 * @example
 * ```ts
 * const records = readSqsRecords(event); // throws MalformedEventError for a non-SQS event
 * ```
 */
export function readSqsRecords(event: unknown): readonly SQSRecord[] {
  if (typeof event !== 'object' || event === null) {
    throw new MalformedEventError('the event', event, 'an object with a Records array');
  }
  const records = (event as Partial<SQSEvent>).Records;
  if (!Array.isArray(records)) {
    throw new MalformedEventError('event.Records', records, 'an array of SQS records');
  }
  records.forEach(checkRecord);
  return records;
}

function checkRecord(record: unknown, index: number): void {
  const at = `event.Records[${index}]`;
  if (typeof record !== 'object' || record === null) {
    throw new MalformedEventError(at, record, 'an SQS record object');
  }
  const { messageId, body, eventSource, attributes } = record as Partial<SQSRecord>;
  if (typeof messageId !== 'string' || messageId.trim() === '') {
    throw new MalformedEventError(`${at}.messageId`, messageId, 'a non-empty string');
  }
  if (typeof body !== 'string') throw new MalformedEventError(`${at}.body`, body, 'a string');
  if (eventSource !== 'aws:sqs') {
    throw new MalformedEventError(`${at}.eventSource`, eventSource, '"aws:sqs"');
  }
  if (typeof attributes !== 'object' || attributes === null) {
    throw new MalformedEventError(
      `${at}.attributes`,
      attributes,
      'the SQS system attributes object',
    );
  }
}

/**
 * Whether a record comes from a FIFO queue, by its source ARN. A `MessageGroupId` alone does
 * not tell: standard queues with fair queueing carry one too, without any ordering promise.
 *
 * @example
 * ```ts
 * isFifoRecord(record) // => true for arn:aws:sqs:…:orders.fifo
 * ```
 */
export function isFifoRecord(record: SQSRecord): boolean {
  return record.eventSourceARN?.endsWith('.fifo') === true;
}

/**
 * Splits a batch into the units that run one after the other: for a FIFO queue, the records
 * of each `MessageGroupId` in arrival order; for a standard queue, each record alone.
 *
 * @example
 * ```ts
 * groupRecords(records).map((group) => group.length) // => [3, 1] for groups a,a,b,a
 * ```
 */
export function groupRecords(records: readonly SQSRecord[]): SQSRecord[][] {
  const groups = new Map<string, SQSRecord[]>();
  for (const record of records) {
    const groupId = isFifoRecord(record)
      ? `group:${record.attributes.MessageGroupId ?? ''}`
      : `record:${record.messageId}`;
    const group = groups.get(groupId);
    if (group) group.push(record);
    else groups.set(groupId, [record]);
  }
  return [...groups.values()];
}
