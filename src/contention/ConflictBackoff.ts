/** A transaction's round trip at DynamoDB's published p50, before any is observed. */
const INITIAL_ROUND_TRIP_MILLIS = 25;
/** Bounds of the learned round trip: a clock step or a stalled request must not swing it far. */
const MIN_ROUND_TRIP_MILLIS = 1;
const MAX_ROUND_TRIP_MILLIS = 5_000;
/** Weight of each new observation in the moving average. */
const SMOOTHING = 0.2;
/** After this many conflicts in a row the wait stops growing. */
const MAX_GROWTH = 4;

/**
 * How long to wait after a `TransactionConflict` before trying again. A conflict means another
 * transaction holds one of the items for about one more transaction's time, not that DynamoDB is
 * overloaded: the wait is a full-jitter draw on the scale of the round trip of this container's
 * recent commits (an exponentially weighted moving average, 25 ms until one is observed), up to
 * that round trip for a first conflict and up to four of them after repeated ones, so contenders
 * spread out without idling the item. Throttling and 5xx keep their exponential backoff.
 *
 * One per processor, so the round trip it learns lasts as long as the container.
 *
 * @example
 * ```ts
 * const backoff = new ConflictBackoff();
 * backoff.observe(31); // a commit answered after 31 ms
 * await runtime.sleep(backoff.delayMillis(1, runtime.random()));
 * ```
 */
export class ConflictBackoff {
  #roundTripMillis = INITIAL_ROUND_TRIP_MILLIS;

  /** The round trip of a transaction as learned so far, in milliseconds. */
  get roundTripMillis(): number {
    return this.#roundTripMillis;
  }

  /** Learns from the round trip of a transaction that was answered, committed or cancelled. */
  observe(millis: number): void {
    if (!Number.isFinite(millis) || millis < 0) return;
    const bounded = Math.min(MAX_ROUND_TRIP_MILLIS, Math.max(MIN_ROUND_TRIP_MILLIS, millis));
    this.#roundTripMillis += SMOOTHING * (bounded - this.#roundTripMillis);
  }

  /** The wait before the try that follows the `conflicts`-th conflict in a row (1 or more). */
  delayMillis(conflicts: number, random: number): number {
    const growth = Math.min(MAX_GROWTH, Math.max(1, conflicts));
    return random * growth * this.#roundTripMillis;
  }
}
