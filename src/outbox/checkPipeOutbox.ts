import { OUTBOX_LIMITS } from '../constants/values.js';
import { OutgoingMessageError } from '../errors.js';
import type { OutgoingMessage } from './OutgoingMessage.js';
import { type OutboxItem, outboxItem } from './outboxItem.js';
import { pipedRecordBytes } from './pipedRecordBytes.js';
import { itemPlanOf } from './planOutboxItems.js';

/**
 * The pipe an outbox is relayed by: the one SQS queue it sends to, and the outbox table whose
 * stream it reads (its name is in every record the pipe sends).
 *
 * @example
 * ```ts
 * const pipe: PipeOutbox = { destination: creditsQueueUrl, tableName: 'outbox' };
 * ```
 */
export interface PipeOutbox {
  readonly destination: string;
  readonly tableName: string;
}

/**
 * Refuses what an EventBridge pipe cannot relay (`OutboxPipe`): a pipe sends each outbox item's
 * stream record to its one SQS queue, and sets no message attribute. So every message must go
 * to the pipe's destination, carry no `attributes`, have an item of its own (a transaction may
 * publish at most one message to a group: the messages of one group share an item), and its
 * item's stream record must fit in an SQS message (`pipedRecordBytes`, with `common`, the
 * attributes every item of the commit holds). Throws {@link OutgoingMessageError} naming the
 * field, as `tx.publish`'s own checks do: the record is dead-lettered with it.
 *
 * @example
 * ```ts
 * checkPipeOutbox(transaction.outgoing, { destination: creditsQueueUrl, tableName: 'outbox' }, common);
 * ```
 */
export function checkPipeOutbox(
  outgoing: readonly OutgoingMessage[],
  pipe: PipeOutbox,
  common: OutboxItem,
): void {
  const groups = new Set<string>();
  outgoing.forEach((message, index) => {
    checkRoute(message, index, pipe.destination);
    checkRecordBytes(message, index, pipe.tableName, common);
    if (message.groupId === undefined) return;
    if (groups.has(message.groupId)) {
      throw new OutgoingMessageError(
        'groupId',
        index,
        "is the group of an earlier message of this transaction; the outbox's EventBridge pipe sends one message per group and transaction (publish them in one body, or use the Lambda relay, OutboxRelay)",
      );
    }
    groups.add(message.groupId);
  });
}

function checkRoute(message: OutgoingMessage, index: number, destination: string): void {
  if (message.destination !== destination) {
    throw new OutgoingMessageError(
      'destination',
      index,
      `must be ${destination}, the one queue the outbox's EventBridge pipe sends to; use the Lambda relay (OutboxRelay) to publish elsewhere`,
    );
  }
  if (message.attributes !== undefined) {
    throw new OutgoingMessageError(
      'attributes',
      index,
      "cannot be sent by the outbox's EventBridge pipe (a pipe sets no message attribute); put them in the body, or use the Lambda relay (OutboxRelay)",
    );
  }
}

function checkRecordBytes(
  message: OutgoingMessage,
  index: number,
  tableName: string,
  common: OutboxItem,
): void {
  const item = outboxItem(itemPlanOf(message), common);
  const { imageBytes, envelopeBytes, totalBytes } = pipedRecordBytes(item, tableName);
  const maxBytes = OUTBOX_LIMITS.maxBytesByKind[message.kind];
  if (totalBytes <= maxBytes) return;
  throw new OutgoingMessageError(
    'body',
    index,
    `is too large: the pipe sends the outbox item's stream record, counted as ${totalBytes} bytes (the item in DynamoDB JSON with the body escaped as a JSON string, ${imageBytes}, and at most ${envelopeBytes} for the record's other fields), ${totalBytes - maxBytes} over the ${maxBytes} every SQS queue accepts at its default settings. Store large payloads in S3 and send a pointer`,
  );
}
