import { InboxError } from './InboxError.js';
import { PermanentError } from './messageErrors.js';

/**
 * The handler published a message the outbox cannot relay: an unknown destination address, a
 * missing or forbidden field for that kind of destination (a FIFO destination needs a
 * `groupId`, an event bus a `source` and `detailType`), a body that is no JSON value, a
 * message larger than its destination accepts, counted as it counts (262,144 bytes for a queue
 * or topic with its attributes, 262,143 for an event entry), a bad or reserved attribute, a
 * name used twice, or no outbox configured; with `OutboxPipe`, what a pipe cannot send. A programming error:
 * the message is dead-lettered with this reason and nothing of it is committed. The text names
 * the field and the rule, never the body.
 *
 * @example
 * ```ts
 * if (error instanceof OutgoingMessageError) console.log(error.field); // e.g. 'groupId'
 * ```
 * @public
 */
export class OutgoingMessageError extends PermanentError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'OutgoingMessageError';
  /** The field of the published message to change (`destination`, `body`, `groupId`…). */
  readonly field: string;
  /** The position of the message among the handler's `tx.publish` calls, from 0. */
  readonly index: number;
  constructor(field: string, index: number, problem: string) {
    super(`Outgoing message #${index}: ${field} ${problem}.`);
    this.field = field;
    this.index = index;
  }
}

/**
 * A destination refused an outgoing message for good: the queue or topic does not exist, the
 * relay may not send there, a KMS key is missing or not granted, the message breaks a rule of
 * the destination (too large, invalid characters, a FIFO field missing), or the service
 * answered with a 4xx it does not document. Retrying cannot help, so the relay dead-letters the message
 * with this reason, in full, and goes on: fix the cause, then redrive it (see the runbook).
 *
 * @example
 * ```ts
 * if (error instanceof DestinationRefusedError) console.log(error.code); // e.g. 'QueueDoesNotExist'
 * ```
 * @public
 */
export class DestinationRefusedError extends PermanentError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'DestinationRefusedError';
  /** The destination's address: the SQS queue URL, SNS topic ARN or event bus ARN. */
  readonly destination: string;
  /** The refused message's outbox id (`OutgoingMessage.id`), not an SQS message id. */
  readonly messageId: string;
  /** The service's error code (`QueueDoesNotExist`, `AccessDenied`, an EventBridge `ErrorCode`). */
  readonly code: string;
  constructor(destination: string, messageId: string, code: string, cause?: unknown) {
    super(
      `${destination} refused outgoing message ${messageId} (${code}); it is dead-lettered with ` +
        'this reason. Fix the destination or its grant, then redrive it.',
      { cause },
    );
    this.destination = destination;
    this.messageId = messageId;
    this.code = code;
  }
}

/**
 * A destination could not take an outgoing message now: throttling (KMS's included), a KMS key
 * disabled or pending, a server error, a timeout, a lost connection. The relay reports the stream record failed, so Lambda retries it (and the
 * records after it), keeping each group's order.
 *
 * @example
 * ```ts
 * if (error instanceof DestinationUnavailableError) console.log(error.code); // e.g. 'ThrottlingException'
 * ```
 * @public
 */
export class DestinationUnavailableError extends InboxError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'DestinationUnavailableError';
  /** The destination's address: the SQS queue URL, SNS topic ARN or event bus ARN. */
  readonly destination: string;
  /**
   * The service's error code, or the error's name when it has none (`ThrottlingException`,
   * `InternalError`, `TimeoutError`, an EventBridge `ErrorCode`).
   */
  readonly code: string;
  constructor(destination: string, code: string, cause?: unknown) {
    super(`${destination} could not take a message now (${code}); the record is retried.`, {
      cause,
    });
    this.destination = destination;
    this.code = code;
  }
}

/**
 * A batch Lambda gave up on could not be read back whole from the stream: its last record
 * (`endSequenceNumber`) was not reached — past the shard's end, or after as many pages as the
 * reader reads. None of it was relayed: `redriveOutbox` leaves its dead letter in the queue
 * with this reason.
 *
 * @example
 * ```ts
 * if (error instanceof StreamBatchIncompleteError) console.log(error.recordsRead);
 * ```
 * @public
 */
export class StreamBatchIncompleteError extends InboxError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'StreamBatchIncompleteError';
  /** The sequence number of the batch's last record (its `DDBStreamBatchInfo`), not reached. */
  readonly endSequenceNumber: string;
  /** How many of the batch's records were read before the reader gave up; none was relayed. */
  readonly recordsRead: number;
  constructor(endSequenceNumber: string, recordsRead: number) {
    super(
      `The stream batch ending at sequence number ${endSequenceNumber} could not be read back whole (${recordsRead} records read, the last one not reached); nothing of it was relayed.`,
    );
    this.endSequenceNumber = endSequenceNumber;
    this.recordsRead = recordsRead;
  }
}

/**
 * A stream record is not an outbox item the relay can read: the stream carries no new image
 * (its view type must be `NEW_IMAGE` or `NEW_AND_OLD_IMAGES`), or the item's `messages` are not
 * what `tx.publish` writes (an item written to the outbox table by other code). The first is
 * retried (the record is reported failed); the second is dead-lettered with its image. The text
 * names what is wrong, never the content.
 *
 * @example
 * ```ts
 * if (error instanceof OutboxRecordError) console.log(error.sequenceNumber);
 * ```
 * @public
 */
export class OutboxRecordError extends InboxError {
  /** The class's name, fixed so that `name` survives a minifying bundler. */
  static override readonly errorName: string = 'OutboxRecordError';
  /** The stream record's `SequenceNumber`. */
  readonly sequenceNumber: string;
  constructor(sequenceNumber: string, problem: string) {
    super(`Stream record ${sequenceNumber} is no outbox item the relay can send: ${problem}.`);
    this.sequenceNumber = sequenceNumber;
  }
}
