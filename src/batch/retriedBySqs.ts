import { RecordStatus } from '../constants/values.js';
import type { RecordOutcome } from '../core/types.js';

/**
 * Whether the batch response asks SQS to deliver a record again: it failed, or it was skipped
 * behind a failure of its FIFO group.
 *
 * @example
 * ```ts
 * const itemIdentifiers = outcomes.filter(retriedBySqs).map((outcome) => outcome.messageId);
 * ```
 */
export function retriedBySqs(outcome: RecordOutcome): boolean {
  return outcome.status === RecordStatus.Failed || outcome.status === RecordStatus.Skipped;
}
