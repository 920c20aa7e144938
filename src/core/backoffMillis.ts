const BACKOFF_BASE_MILLIS = 50;
const BACKOFF_CAP_MILLIS = 1000;

/**
 * The wait before retry `attempt` after a transient DynamoDB error: full jitter, a random wait
 * up to an exponentially growing bound capped at one second.
 *
 * @example
 * ```ts
 * await runtime.sleep(backoffMillis(attempt, runtime.random()));
 * ```
 */
export function backoffMillis(attempt: number, random: number): number {
  return random * Math.min(BACKOFF_CAP_MILLIS, BACKOFF_BASE_MILLIS * 2 ** attempt);
}
