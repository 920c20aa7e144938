import { TransientReason } from '../constants/values.js';
import type { ConflictBackoff } from '../contention/ConflictBackoff.js';
import { TransientStoreError } from '../errors.js';
import type { InboxRuntime } from '../runtime/InboxRuntime.js';

const BACKOFF_BASE_MILLIS = 50;
const BACKOFF_CAP_MILLIS = 1000;
/**
 * Conflicts in a row after which one is no longer retried, whatever the clock says: a guard
 * against a clock that stands still (a test's), far beyond what contention on a live table
 * produces (a thousand transactions in a row on one item take about half a minute).
 */
export const MAX_CONFLICTS_IN_ROW = 1_000;

/**
 * How a request meets `TransactionConflict`: after a short wait learned from the round trips
 * (`backoff`), as long as the clock is before `untilMillis` and the signal is not aborted.
 *
 * @example
 * ```ts
 * const conflicts: ConflictRetry = { backoff, untilMillis: Number.POSITIVE_INFINITY };
 * ```
 */
export interface ConflictRetry {
  readonly backoff: ConflictBackoff;
  /** No conflict is retried from then on (a batch without a deadline gets a budget). */
  readonly untilMillis: number;
}

/**
 * Runs `request`, and again after a transient DynamoDB error (`TransientStoreError`), waiting
 * between tries; stops retrying once `signal` is aborted (the batch's deadline). Throttling,
 * 5xx and timeouts get up to `attempts` tries in all with a full-jitter exponential backoff. A
 * `TransactionConflict` with `conflicts` given is another matter: the item is busy for about one
 * more transaction, so it is retried after a short wait for as long as the batch has time, and
 * does not use up the attempts. `onRetry` hears of each retry, to log it.
 *
 * @example
 * ```ts
 * const claim = await retryTransient(() => store.claim(request), { attempts: 3, runtime, signal });
 * ```
 */
export async function retryTransient<T>(
  request: () => Promise<T>,
  options: {
    readonly attempts: number;
    readonly runtime: Pick<InboxRuntime, 'sleep' | 'random' | 'now'>;
    readonly signal: AbortSignal;
    readonly conflicts?: ConflictRetry | undefined;
    readonly onRetry?: (attempt: number, error: TransientStoreError) => void;
  },
): Promise<T> {
  const { runtime, signal, conflicts } = options;
  let failures = 0;
  let conflictsInRow = 0;
  for (let tries = 1; ; tries++) {
    try {
      return await request();
    } catch (error) {
      if (!(error instanceof TransientStoreError) || signal.aborted) throw error;
      const conflict = conflicts !== undefined && reportedConflict(error);
      let waitMillis: number;
      if (conflict) {
        conflictsInRow++;
        if (conflictsInRow >= MAX_CONFLICTS_IN_ROW) throw error;
        waitMillis = conflicts.backoff.delayMillis(conflictsInRow, runtime.random());
        if (runtime.now() + waitMillis >= conflicts.untilMillis) throw error;
      } else {
        conflictsInRow = 0;
        failures++;
        if (failures >= options.attempts) throw error;
        waitMillis = backoffMillis(failures, runtime.random());
      }
      options.onRetry?.(tries, error);
      await runtime.sleep(waitMillis);
    }
  }
}

/**
 * Full jitter: a random wait up to an exponentially growing bound, capped at one second.
 *
 * @example
 * ```ts
 * await runtime.sleep(backoffMillis(attempt, runtime.random()));
 * ```
 */
export function backoffMillis(attempt: number, random: number): number {
  return random * Math.min(BACKOFF_CAP_MILLIS, BACKOFF_BASE_MILLIS * 2 ** attempt);
}

/**
 * A conflict DynamoDB reported: a cancellation with a `TransactionConflict` reason, a
 * `TransactionConflictException` or a `TransactionInProgressException`. A conflict the library
 * only infers (an entry gone between a refusal and its read) keeps the attempts: should it not
 * be the race it looks like, it must not spin until the deadline.
 *
 * @example
 * ```ts
 * reportedConflict(new TransientStoreError('TransactionConflict', undefined)); // => false
 * ```
 */
export function reportedConflict(error: unknown): boolean {
  if (!(error instanceof TransientStoreError)) return false;
  if (error.reason !== TransientReason.TransactionConflict) return false;
  const cause = error.cause as
    | { name?: unknown; CancellationReasons?: ReadonlyArray<{ Code?: unknown }> }
    | undefined;
  if (cause?.name === 'TransactionConflictException') return true;
  if (cause?.name === 'TransactionInProgressException') return true;
  return (cause?.CancellationReasons ?? []).some(
    (reason) => reason.Code === TransientReason.TransactionConflict,
  );
}
