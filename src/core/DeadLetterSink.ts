import type { SQSRecord } from 'aws-lambda';
import type { LoggedKey } from './loggedKey.js';

/**
 * The names of the SQS message attributes a message's key was read from: a redrive needs them
 * to key the message again (all of them, when the key function listed or copied them).
 *
 * @example
 * ```ts
 * const read: KeyAttributes = ['eventId'];
 * ```
 */
export type KeyAttributes = readonly string[];

/**
 * What a redrive of a dead-lettered message needs besides its body: the message attributes its
 * key was read from, which the copy keeps before any other, and the key itself, which the copy
 * carries in full (`inbox.key`, whatever `logKeys` says) when those attributes cannot all fit.
 *
 * @example
 * ```ts
 * await sink.send(record, error, 'ledger', { keyHash }, { key, keyAttributes: ['eventId'] });
 * ```
 */
export interface DeadLetterNeeds {
  readonly key: string;
  readonly keyAttributes: KeyAttributes;
}

/**
 * Where the processor sends a permanently failing message. `DeadLetterPublisher` (SQS) is the
 * implementation; the core sees only this port, so it needs no SQS client.
 *
 * @example
 * ```ts
 * const sink: DeadLetterSink = new DeadLetterPublisher(deadLetterQueueUrl);
 * await sink.send(record, new PermanentError('unknown account'), 'ledger', { keyHash: '5f1c…' });
 * ```
 */
export interface DeadLetterSink {
  /** The queue the messages go to, for logs. */
  readonly queueUrl: string;
  /**
   * Sends the record with the reason and the key as it may be logged; throws
   * `DeadLetterSendError` if it was not accepted. `needs` says what keeps the copy redrivable.
   */
  send(
    record: SQSRecord,
    error: unknown,
    consumer: string,
    key: LoggedKey | undefined,
    needs?: DeadLetterNeeds,
  ): Promise<void>;
}
