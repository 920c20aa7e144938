import type { SQSRecord } from 'aws-lambda';
import type { LoggedKey } from './loggedKey.js';

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
   * `DeadLetterSendError` if it was not accepted.
   */
  send(
    record: SQSRecord,
    error: unknown,
    consumer: string,
    key: LoggedKey | undefined,
  ): Promise<void>;
}
