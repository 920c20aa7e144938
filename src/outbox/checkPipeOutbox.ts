import { OUTBOX_LIMITS, OutboxMessageIdField } from '../constants.js';
import { OutgoingMessageError } from '../errors.js';
import { utf8Bytes } from './messageSize.js';
import type { OutgoingMessage } from './OutgoingMessage.js';

/** A string's text between the quotes of a JSON string: what Pipes puts into its template. */
const escaped = (text: string) => JSON.stringify(text).slice(1, -1);

/**
 * The body an `OutboxPipe` sends to its queue for a message, character for character as its
 * input template `{"outboxMessageId": "<id>", "body": "<body>"}` gives it (a space after each
 * colon, each value escaped as a JSON string): what SQS counts, a pipe setting no attribute.
 *
 * @example
 * ```ts
 * pipedBody(message); // '{"outboxMessageId": "9f…", "body": "{\"a\":1}"}'
 * ```
 */
export function pipedBody(message: OutgoingMessage): string {
  const id = OutboxMessageIdField.EventMember;
  const body = OutboxMessageIdField.PipedBodyMember;
  return `{"${id}": "${escaped(message.id)}", "${body}": "${escaped(message.body)}"}`;
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
    const pipedBytes = utf8Bytes(pipedBody(message));
    const maxBytes = OUTBOX_LIMITS.maxBytesByKind[message.kind];
    if (pipedBytes > maxBytes) {
      throw new OutgoingMessageError(
        'body',
        index,
        `is too large: the pipe sends ${pipedBytes} bytes (the body escaped as a JSON string inside { outboxMessageId, body }), ${pipedBytes - maxBytes} over the ${maxBytes} every SQS queue accepts at its default settings. Store large payloads in S3 and send a pointer`,
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
