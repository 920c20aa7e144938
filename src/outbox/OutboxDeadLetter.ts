import type { OutgoingMessage } from './OutgoingMessage.js';

/**
 * The `kind` of the body of a message the relay dead-letters, so that the runbook (and
 * `redriveOutbox`) tells it from the metadata records Lambda sends to the same queue when it
 * gives up on a batch (`DDBStreamBatchInfo`).
 *
 * @example
 * ```ts
 * if (JSON.parse(record.body).kind === OUTBOX_DEAD_LETTER_KIND) console.log('a refused message');
 * ```
 * @public
 */
export const OUTBOX_DEAD_LETTER_KIND = 'sqs-inbox.outbox.dead-letter';

/**
 * What the relay dead-letters when a destination refuses a message for good, or a stream record
 * is no outbox item: the message in full (or the record's image), the reason, and where in the
 * stream it was. Sent as the JSON body of a message on the relay's dead-letter queue.
 *
 * @example
 * ```ts
 * const letter = JSON.parse(record.body) as OutboxDeadLetter;
 * console.log(letter.reason.code, letter.message?.destination);
 * ```
 * @public
 */
export interface OutboxDeadLetter {
  /** Always `OUTBOX_DEAD_LETTER_KIND`: what tells the letter from Lambda's records in the queue. */
  readonly kind: typeof OUTBOX_DEAD_LETTER_KIND;
  /**
   * Why: `error` is the error's class name (`DestinationRefusedError`, `OutboxRecordError`…),
   * `code` the destination's error code when it refused the message, and `message` the error's
   * message, cut to 1,024 characters; it names the destination and the outbox id, not the body.
   */
  readonly reason: { readonly error: string; readonly code?: string; readonly message: string };
  /** The refused message, with its id, destination, body and fields, as the relay sends it. */
  readonly message?: OutgoingMessage;
  /**
   * Instead of `message` when the letter in full did not fit in the dead-letter queue: the
   * refused message without its body and attributes (see `omitted`). The field keeps the name
   * letters already in dead-letter queues carry.
   */
  readonly messageEnvelope?: OutgoingMessageWithoutContent;
  /** A record that is no outbox item: its new image, in DynamoDB's JSON. */
  readonly image?: unknown;
  /**
   * Set when the dead-letter queue refused the letter in full (larger than its
   * `MaximumMessageSize`): the fields left out (`message.body`, `message.attributes` or
   * `image`) and the bytes the letter in full took. What was left out is still in the outbox
   * item `record.pk` until its TTL (a group's item: until the group's next commit) and in the
   * stream record `record.sequenceNumber` for 24 hours.
   */
  readonly omitted?: { readonly fields: readonly string[]; readonly letterBytes: number };
  /**
   * The stream record the letter comes from: its `sequenceNumber` (empty if it had none), its
   * `eventID`, and the outbox item's `pk`, each when the record carries it.
   */
  readonly record: {
    readonly sequenceNumber: string;
    readonly eventID?: string;
    readonly pk?: string;
  };
  /** When the relay gave up on the message or the record (ISO 8601). */
  readonly failedAt: string;
}

/**
 * An outgoing message without its content (its body and attributes): what a dead letter keeps
 * of a refused message, as `messageEnvelope`, when the message in full does not fit in the
 * dead-letter queue. The relay's side; not to be confused with `OutboxEnvelope`
 * (`sqs-inbox/types`), what a consumer's `message.envelope` says of a message that came
 * through an outbox.
 *
 * @example
 * ```ts
 * declare const letter: OutboxDeadLetter;
 * // ---cut---
 * const { id, destination } = letter.messageEnvelope ?? letter.message ?? {};
 * ```
 * @public
 */
export type OutgoingMessageWithoutContent = Omit<OutgoingMessage, 'body' | 'attributes'>;

/**
 * The letter without the content that can make it too large for its queue: the message's body
 * and attributes, or the record's image; `undefined` when it carries neither.
 *
 * @example
 * ```ts
 * const smaller = withoutContent(letter, Buffer.byteLength(JSON.stringify(letter)));
 * ```
 */
export function withoutContent(
  letter: OutboxDeadLetter,
  letterBytes: number,
): OutboxDeadLetter | undefined {
  const { message, image, ...rest } = letter;
  if (message !== undefined) {
    const { body: _body, attributes, ...envelope } = message;
    const fields = ['message.body', ...(attributes === undefined ? [] : ['message.attributes'])];
    return { ...rest, messageEnvelope: envelope, omitted: { fields, letterBytes } };
  }
  if (image !== undefined) return { ...rest, omitted: { fields: ['image'], letterBytes } };
  return undefined;
}

/**
 * Where the relay puts what it cannot send. `OutboxDeadLetterPublisher` sends to an SQS queue.
 *
 * @example
 * ```ts
 * const letters: OutboxDeadLetter[] = [];
 * const sink: OutboxDeadLetterSink = { send: async (letter) => { letters.push(letter); } };
 * ```
 * @public
 */
export interface OutboxDeadLetterSink {
  /**
   * Keeps one letter. Throw when it cannot: the relay then reports the stream record failed,
   * for Lambda to retry, rather than lose the message.
   */
  send(letter: OutboxDeadLetter): Promise<void>;
}
