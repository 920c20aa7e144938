import { PermanentError } from './messageErrors.js';

/**
 * The handler published a message the outbox cannot relay: an unknown destination address, a
 * missing or forbidden field for that kind of destination (a FIFO destination needs a
 * `groupId`, an event bus a `source` and `detailType`), a body that is no JSON value or is too
 * large, a bad attribute, a name used twice, or no outbox configured. A programming error:
 * the message is dead-lettered with this reason and nothing of it is committed. The text names
 * the field and the rule, never the body.
 *
 * @example
 * ```ts
 * if (error instanceof OutgoingMessageError) console.log(error.field); // e.g. 'groupId'
 * ```
 */
export class OutgoingMessageError extends PermanentError {
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
