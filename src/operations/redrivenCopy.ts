import { createHash } from 'node:crypto';
import type { SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { DEAD_LETTER_ATTRIBUTE_PREFIX, DeadLetterAttribute } from '../constants/values.js';
import type { RedrivenCopy } from './RedriveQueue.js';

const MAX_MESSAGE_ATTRIBUTES = 10;

/**
 * The library's annotations a copy keeps, most useful first, after the message's own. Not
 * `inbox.originalMessageId`: the copy is a new message, and its own id is the one its consumer
 * logs (and, keyed by the message id, keys it by) and a redrive-policy move keeps; the way back
 * is `inbox.redriveOf`. `inbox.key` stays: the redrive sends back only messages keyed by their
 * content, whose copy its consumer keys the same, so it is checked against the consumer's key.
 */
const KEPT_ANNOTATIONS = [
  DeadLetterAttribute.Key,
  DeadLetterAttribute.KeyHash,
  DeadLetterAttribute.Consumer,
  DeadLetterAttribute.SourceQueueArn,
];

/**
 * The copy of a DLQ message the redrive sends back: the same body; the message's own attributes
 * (its key may be read from them), then `inbox.redriveOf` and `inbox.redriveOp`, then the
 * library's annotations but its error (the consumer tries again: a new failure records its
 * own), within SQS's ten attributes. On a FIFO queue: the same group, and a deduplication id
 * derived from the DLQ message, so a resend after a crash within five minutes is dropped.
 *
 * @example
 * ```ts
 * await queue.sendBack(source, redrivenCopy(record, operationId));
 * ```
 */
export function redrivenCopy(record: SQSRecord, operationId: string): RedrivenCopy {
  const all = record.messageAttributes ?? {};
  const own = Object.keys(all).filter((name) => !name.startsWith(DEAD_LETTER_ATTRIBUTE_PREFIX));
  const added: SQSMessageAttributes = {
    [DeadLetterAttribute.RedriveOf]: { dataType: 'String', stringValue: record.messageId },
    [DeadLetterAttribute.RedriveOperation]: { dataType: 'String', stringValue: operationId },
  };
  const ordered = [
    ...present(all, own),
    ...Object.entries(added),
    ...present(all, KEPT_ANNOTATIONS),
  ].slice(0, MAX_MESSAGE_ATTRIBUTES);
  const groupId = record.attributes.MessageGroupId;
  return {
    body: record.body,
    messageAttributes: Object.fromEntries(ordered),
    ...(record.attributes.AWSTraceHeader ? { traceHeader: record.attributes.AWSTraceHeader } : {}),
    ...(groupId === undefined ? {} : { groupId, deduplicationId: redriveDeduplicationId(record) }),
  };
}

function present(all: SQSMessageAttributes, names: readonly string[]) {
  return names.flatMap((name) => {
    const value = all[name];
    return value === undefined ? [] : [[name, value] as const];
  });
}

function redriveDeduplicationId(record: SQSRecord): string {
  return createHash('sha256')
    .update(`redrive\u0000${record.eventSourceARN}\u0000${record.messageId}`, 'utf8')
    .digest('hex');
}
