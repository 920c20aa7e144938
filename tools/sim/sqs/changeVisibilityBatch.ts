import type {
  BatchResultErrorEntry,
  ChangeMessageVisibilityBatchRequestEntry,
  ChangeMessageVisibilityBatchResultEntry,
} from '@aws-sdk/client-sqs';
import { visibilityBatchRefusal } from '../../../src/testing/sqs/changeVisibility.js';
import type { SimQueue } from './SimQueue.js';
import { sqsError } from './sqsRefusals.js';

/**
 * What `ChangeMessageVisibilityBatch` answers: the entries applied and those refused.
 *
 * @example
 * ```ts
 * const codes = result.Failed.map((failure) => failure.Code);
 * ```
 */
export interface VisibilityBatchResult {
  readonly Successful: ChangeMessageVisibilityBatchResultEntry[];
  readonly Failed: BatchResultErrorEntry[];
}

/**
 * `ChangeMessageVisibilityBatch` as SQS applies it: each entry on its own, a refused entry
 * listed in `Failed` (its code, `SenderFault`, the message) while the others apply. The whole
 * request is refused when it has no entry, more than 10, two with one `Id`, or an `Id` SQS does
 * not take.
 *
 * @example
 * ```ts
 * const { Failed } = changeVisibilityBatch(queue, [{ Id: '0', ReceiptHandle: handle, VisibilityTimeout: 30 }], now);
 * ```
 */
export function changeVisibilityBatch(
  queue: SimQueue,
  entries: readonly ChangeMessageVisibilityBatchRequestEntry[],
  nowMillis: number,
): VisibilityBatchResult {
  checkBatch(entries);
  const result: VisibilityBatchResult = { Successful: [], Failed: [] };
  for (const { Id, ReceiptHandle, VisibilityTimeout } of entries) {
    try {
      changeVisibility(queue, ReceiptHandle, VisibilityTimeout, nowMillis);
      result.Successful.push({ Id });
    } catch (error) {
      const { name, message } = error as Error;
      result.Failed.push({ Id, Code: name, SenderFault: true, Message: message });
    }
  }
  return result;
}

/**
 * One `ChangeMessageVisibility` with the SDK's optional fields checked as SQS checks them.
 *
 * @example
 * ```ts
 * changeVisibility(queue, input.ReceiptHandle, input.VisibilityTimeout, now);
 * ```
 */
export function changeVisibility(
  queue: SimQueue,
  receiptHandle: string | undefined,
  seconds: number | undefined,
  nowMillis: number,
): void {
  if (receiptHandle === undefined) throw missing('ReceiptHandle');
  if (seconds === undefined) throw missing('VisibilityTimeout');
  queue.changeVisibility(receiptHandle, seconds, nowMillis);
}

function checkBatch(entries: readonly ChangeMessageVisibilityBatchRequestEntry[]): void {
  const refusal = visibilityBatchRefusal(entries);
  if (refusal) throw sqsError(refusal.shape, refusal.message);
}

function missing(parameter: string): Error {
  return sqsError('MissingParameter', `The request must contain the parameter ${parameter}.`);
}
