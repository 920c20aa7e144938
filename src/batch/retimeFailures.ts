import type { SQSRecord } from 'aws-lambda';
import type { SqsVisibilityChanger, VisibilityChange } from '../aws/SqsVisibilityChanger.js';
import { InboxMetric, RecordStatus } from '../constants/values.js';
import type { ResolvedOptions } from '../core/resolveOptions.js';
import type { ResolvedRetry } from '../core/resolveRetry.js';
import { isLastReceive } from '../core/settleFailure.js';
import type { RecordOutcome } from '../core/types.js';
import { DeadLetterSendError, PermanentError } from '../errors.js';
import { RetryCause, retryDelay } from '../retry/retryDelay.js';

type Delayed = VisibilityChange & { readonly cause: RetryCause };

/**
 * With `retry`, sets when SQS delivers each failed record again, before the batch answers: a
 * retryable failure its backoff delay, a lease-held copy the end of the lease plus the margin,
 * and the records of a FIFO group skipped behind a delayed head 0, so they come back with it
 * rather than after the queue's timeout. A `PermanentError`, a last receive, a dead-letter send
 * that failed, and every record of a batch that reached its deadline keep the queue's timeout.
 * Each delay SQS applied is logged (`message retry delayed`, with `messageId`, `delaySeconds`
 * and `cause`) and counted (`InboxRetryDelaySeconds`, `InboxLeaseHeldRetimed`); what it refused
 * is logged once for the batch, by code, and counted (`InboxVisibilityChangesFailed`). Never
 * throws; abandoned when `signal` (the batch's deadline) aborts.
 *
 * @example
 * ```ts
 * await retimeFailures(records, outcomes, { options, changer, signal, invocationStartMillis });
 * ```
 */
export async function retimeFailures(
  records: readonly SQSRecord[],
  outcomes: readonly RecordOutcome[],
  batch: {
    readonly options: ResolvedOptions & { readonly retry: ResolvedRetry };
    readonly changer: SqsVisibilityChanger;
    readonly signal: AbortSignal;
    readonly invocationStartMillis: number;
  },
): Promise<void> {
  const { options, changer, signal } = batch;
  if (signal.aborted) return;
  const delayed = delaysOf(records, outcomes, options, batch.invocationStartMillis);
  const changes = [...delayed, ...releasedFollowers(records, outcomes, delayed)];
  if (changes.length === 0) return;
  const abandoned = new Promise<undefined>((resolve) =>
    signal.addEventListener('abort', () => resolve(undefined), { once: true }),
  );
  const result = await Promise.race([changer.change(changes, signal), abandoned]);
  const failedByCode = result?.failedByCode ?? { BatchDeadline: changes.length };
  for (const change of delayed) {
    if (result?.changed.has(change.record)) reportDelay(change, options);
  }
  reportFailures(failedByCode, options);
}

/** The delay of each record that failed with a retryable error, as the policy sets it. */
function delaysOf(
  records: readonly SQSRecord[],
  outcomes: readonly RecordOutcome[],
  options: ResolvedOptions & { readonly retry: ResolvedRetry },
  invocationStartMillis: number,
): Delayed[] {
  return records.flatMap((record, index) => {
    const outcome = outcomes[index];
    if (outcome === undefined || !retryable(record, outcome, options)) return [];
    const failure = {
      error: outcome.error,
      receiveCount: Number(record.attributes?.ApproximateReceiveCount),
      nowMillis: options.runtime.now(),
      invocationStartMillis,
    };
    const delay = retryDelay(failure, options.retry, options.runtime.random);
    return delay === undefined
      ? []
      : [{ record, visibilityTimeoutSeconds: delay.delaySeconds, cause: delay.cause }];
  });
}

/** Whether SQS retries the record after a failure the retry policy times. */
function retryable(record: SQSRecord, outcome: RecordOutcome, options: ResolvedOptions): boolean {
  if (outcome.status !== RecordStatus.Failed) return false;
  const { error } = outcome;
  // A failed dead-letter send reports a permanent or last-receive failure: the queue times it.
  if (error instanceof PermanentError || error instanceof DeadLetterSendError) return false;
  return !isLastReceive(record, options);
}

/** The records skipped behind a delayed FIFO head: visible again at once, to follow it. */
function releasedFollowers(
  records: readonly SQSRecord[],
  outcomes: readonly RecordOutcome[],
  delayed: readonly Delayed[],
): VisibilityChange[] {
  const heldGroups = new Set(delayed.map(({ record }) => record.attributes?.MessageGroupId));
  return records.flatMap((record, index) =>
    outcomes[index]?.status === RecordStatus.Skipped &&
    heldGroups.has(record.attributes?.MessageGroupId)
      ? [{ record, visibilityTimeoutSeconds: 0 }]
      : [],
  );
}

function reportDelay(change: Delayed, options: ResolvedOptions): void {
  options.metrics?.addMetric(
    InboxMetric.RetryDelaySeconds,
    'Seconds',
    change.visibilityTimeoutSeconds,
  );
  if (change.cause === RetryCause.LeaseHeld) {
    options.metrics?.addMetric(InboxMetric.LeaseHeldRetimed, 'Count', 1);
  }
  options.logger.info('message retry delayed', {
    consumer: options.consumer,
    messageId: change.record.messageId,
    delaySeconds: change.visibilityTimeoutSeconds,
    cause: change.cause,
  });
}

function reportFailures(failedByCode: Readonly<Record<string, number>>, options: ResolvedOptions) {
  const failed = Object.values(failedByCode).reduce((sum, count) => sum + count, 0);
  if (failed === 0) return;
  options.metrics?.addMetric(InboxMetric.VisibilityChangesFailed, 'Count', failed);
  options.logger.warn(
    "visibility changes failed; those records stay reported failed and come back after the queue's visibility timeout",
    { consumer: options.consumer, failed, codes: failedByCode },
  );
}
