import type { OutgoingMessage } from '../outbox/OutgoingMessage.js';

/**
 * The `kind` of the body of a message the relay dead-letters, so that the runbook (and
 * `redriveOutbox`) tells it from the metadata records Lambda sends to the same queue when it
 * gives up on a batch (`DDBStreamBatchInfo`).
 *
 * @example
 * ```ts
 * if (JSON.parse(body).kind === OUTBOX_DEAD_LETTER_KIND) console.log('a refused message');
 * ```
 */
export const OUTBOX_DEAD_LETTER_KIND = 'sqs-inbox.outbox.dead-letter';

/**
 * What the relay dead-letters when a destination refuses a message for good, or a stream record
 * is no outbox item: the message in full (or the record's image), the reason, and where in the
 * stream it was. Sent as the JSON body of a message on the relay's dead-letter queue.
 *
 * @example
 * ```ts
 * const letter = JSON.parse(body) as OutboxDeadLetter;
 * console.log(letter.reason.code, letter.message?.destination);
 * ```
 */
export interface OutboxDeadLetter {
  readonly kind: typeof OUTBOX_DEAD_LETTER_KIND;
  readonly reason: { readonly error: string; readonly code?: string; readonly message: string };
  /** The refused message, with its id, destination, body and fields, as the relay sends it. */
  readonly message?: OutgoingMessage;
  /** A record that is no outbox item: its new image, in DynamoDB's JSON. */
  readonly image?: unknown;
  readonly record: {
    readonly sequenceNumber: string;
    readonly eventID?: string;
    readonly pk?: string;
  };
  readonly failedAt: string;
}

/**
 * Where the relay puts what it cannot send. `OutboxDeadLetterPublisher` sends to an SQS queue.
 *
 * @example
 * ```ts
 * const sink: OutboxDeadLetterSink = { send: async (letter) => { letters.push(letter); } };
 * ```
 */
export interface OutboxDeadLetterSink {
  send(letter: OutboxDeadLetter): Promise<void>;
}
