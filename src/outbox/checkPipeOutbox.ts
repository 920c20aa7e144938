import { OUTBOX_LIMITS, OutboxMessageIdField } from '../constants.js';
import { OutgoingMessageError } from '../errors.js';
import type { OutgoingMessage } from './OutgoingMessage.js';

const encoder = new TextEncoder();

/** The size of the body a pipe sends for `message`: its id and its body, a JSON string. */
function pipedBodyBytes(message: OutgoingMessage): number {
  const piped = {
    [OutboxMessageIdField.EventMember]: message.id,
    [OutboxMessageIdField.PipedBodyMember]: message.body,
  };
  return encoder.encode(JSON.stringify(piped)).byteLength;
}

/**
 * Refuses what an EventBridge pipe cannot relay (`OutboxPipe`): a pipe sends each outbox item's
 * first message to its one SQS queue, and sets no message attribute. So every message must go
 * to `pipeDestination`, carry no `attributes`, fit in an SQS message once wrapped and escaped
 * as the pipe sends it, and a transaction may publish at most one message to a group (the messages of one group share an item). Throws {@link OutgoingMessageError}
 * naming the field, as `tx.publish`'s own checks do: the record is dead-lettered with it.
 *
 * @example
 * ```ts
 * checkPipeOutbox(tx.outgoing, 'https://sqs.eu-west-1.amazonaws.com/123456789012/credits.fifo');
 * ```
 */
export function checkPipeOutbox(
  outgoing: readonly OutgoingMessage[],
  pipeDestination: string,
): void {
  const groups = new Set<string>();
  outgoing.forEach((message, index) => {
    if (message.destination !== pipeDestination) {
      throw new OutgoingMessageError(
        'destination',
        index,
        `must be ${pipeDestination}, the one queue the outbox's EventBridge pipe sends to; use the Lambda relay (OutboxRelay) to publish elsewhere`,
      );
    }
    if (message.attributes !== undefined) {
      throw new OutgoingMessageError(
        'attributes',
        index,
        "cannot be sent by the outbox's EventBridge pipe (a pipe sets no message attribute); put them in the body, or use the Lambda relay (OutboxRelay)",
      );
    }
    const piped = pipedBodyBytes(message);
    if (piped > OUTBOX_LIMITS.messageBytes) {
      throw new OutgoingMessageError(
        'body',
        index,
        `takes ${piped} bytes as the pipe sends it (the body escaped as a JSON string inside { outboxMessageId, body }); at most ${OUTBOX_LIMITS.messageBytes} reach the queue. Store large payloads in S3 and send a pointer`,
      );
    }
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
