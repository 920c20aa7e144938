import { RETRY_LIMITS } from '../constants/values.js';
import { LeaseHeldError } from '../errors.js';

/**
 * The `retry` option group as the processor uses it, validated: without `backoff`, only
 * lease-held copies are re-timed.
 *
 * @example
 * ```ts
 * const policy: RetryPolicy = { backoff: { firstDelaySeconds: 5, maxDelaySeconds: 900 }, leaseHeldMarginSeconds: 2 };
 * ```
 */
export interface RetryPolicy {
  readonly backoff:
    | { readonly firstDelaySeconds: number; readonly maxDelaySeconds: number }
    | undefined;
  readonly leaseHeldMarginSeconds: number;
}

/**
 * Why a failed record was given a delay: the backoff of a retryable failure, or the end of the
 * live lease it met.
 *
 * @example
 * ```ts
 * if (delay.cause === RetryCause.LeaseHeld) metrics.addMetric(InboxMetric.LeaseHeldRetimed, 'Count', 1);
 * ```
 */
export const RetryCause = {
  Backoff: 'backoff',
  LeaseHeld: 'leaseHeld',
} as const;
/** One of the values of `RetryCause`. */
export type RetryCause = (typeof RetryCause)[keyof typeof RetryCause];

/**
 * A failed record's failure and the moment it is judged at.
 *
 * @example
 * ```ts
 * const failure: RetriedFailure = { error, receiveCount: 3, nowMillis: runtime.now(), invocationStartMillis };
 * ```
 */
export interface RetriedFailure {
  /** Why it failed: a `LeaseHeldError` is timed by the lease, anything else by the backoff. */
  readonly error: unknown;
  /** Its `ApproximateReceiveCount` (1 on the first receive). */
  readonly receiveCount: number;
  readonly nowMillis: number;
  /** When the invocation started: the receive was at most a batching window before. */
  readonly invocationStartMillis: number;
}

/**
 * The visibility timeout, in whole seconds, to give a record that failed with a retryable error,
 * or undefined to leave it to the queue's own timeout (no backoff configured). A copy refused by
 * a live lease comes back the lease's remaining time plus `leaseHeldMarginSeconds` later. Any
 * other failure on receive n waits a full-jitter draw, `ceil(random × min(max, first × 2^(n−1)))`
 * seconds (at least 1), so copies failing together spread out instead of coming back as a herd.
 * Either is then held under SQS's 12-hour limit, counted from a receive that may precede the
 * invocation by a batching window (an invocation Lambda retried after a throttle may start later:
 * SQS then refuses a delay near the cap, and the record keeps the queue's timeout). `random` is
 * the runtime's: [0, 1).
 *
 * @example
 * ```ts
 * retryDelay({ error: new Error('503'), receiveCount: 3, nowMillis, invocationStartMillis: nowMillis },
 *   { backoff: { firstDelaySeconds: 5, maxDelaySeconds: 900 }, leaseHeldMarginSeconds: 2 }, () => 0.5);
 * // => { delaySeconds: 10, cause: 'backoff' }
 * ```
 */
export function retryDelay(
  failure: RetriedFailure,
  policy: RetryPolicy,
  random: () => number,
): { readonly delaySeconds: number; readonly cause: RetryCause } | undefined {
  const ceiling = visibilityCeilingSeconds(failure);
  if (failure.error instanceof LeaseHeldError) {
    const remainingSeconds = Math.ceil((failure.error.leaseUntilMillis - failure.nowMillis) / 1000);
    const delaySeconds = Math.max(0, remainingSeconds) + policy.leaseHeldMarginSeconds;
    return { delaySeconds: Math.min(ceiling, delaySeconds), cause: RetryCause.LeaseHeld };
  }
  if (policy.backoff === undefined) return undefined;
  const delaySeconds = backoffSeconds(failure.receiveCount, policy.backoff, random());
  return { delaySeconds: Math.min(ceiling, delaySeconds), cause: RetryCause.Backoff };
}

/** Full jitter over the exponential step of receive `receiveCount`, within [1, step]. */
function backoffSeconds(
  receiveCount: number,
  backoff: { readonly firstDelaySeconds: number; readonly maxDelaySeconds: number },
  draw: number,
): number {
  const exponent = Number.isFinite(receiveCount) ? Math.max(0, Math.floor(receiveCount) - 1) : 0;
  // 2^exponent overflows to Infinity past 1023 receives; min() holds it at the cap all the same.
  const stepSeconds = Math.min(backoff.maxDelaySeconds, backoff.firstDelaySeconds * 2 ** exponent);
  const unit = Number.isFinite(draw) ? Math.min(1, Math.max(0, draw)) : 1;
  return Math.max(1, Math.ceil(unit * stepSeconds));
}

/**
 * The most visibility SQS still accepts for the message: 12 hours from its receive, which was
 * at most a batching window before the invocation started; never negative.
 */
function visibilityCeilingSeconds(failure: RetriedFailure): number {
  const elapsedSeconds = Math.ceil(
    Math.max(0, failure.nowMillis - failure.invocationStartMillis) / 1000,
  );
  const { visibilitySeconds, batchingWindowSeconds } = RETRY_LIMITS;
  return Math.max(0, visibilitySeconds - elapsedSeconds - batchingWindowSeconds);
}
