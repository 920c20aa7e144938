import type { Duration } from 'aws-cdk-lib';

/**
 * The `retry` of {@link InboxConsumerProps}, in whole seconds: the library's `retry` group
 * (`backoff.firstDelay` is its `firstDelaySeconds`, and so on).
 *
 * @example
 * ```ts
 * import { Duration } from 'aws-cdk-lib';
 * const retry: InboxRetryProps = {
 *   backoff: { firstDelay: Duration.seconds(5), maxDelay: Duration.minutes(15) },
 * };
 * ```
 * @public
 */
export interface InboxRetryProps {
  /**
   * A retryable failure on receive n comes back after a full-jitter draw up to
   * `min(maxDelay, firstDelay × 2^(n−1))`. `firstDelay` at least 1 second; `maxDelay` from
   * `firstDelay` to 42,000 seconds (SQS's 12 hours less the longest function timeout and
   * batching window), shorter than `queue.retentionPeriod`, and with every receive before the
   * queue drops the message: `deadLetter.maxReceiveCount × (queue.visibilityTimeout + maxDelay)`
   * at most `queue.retentionPeriod` (so within `ttl`, which covers that retention). On a
   * FIFO queue the whole message group waits its head's delay.
   * @defaultValue none (a retryable failure waits `queue.visibilityTimeout`)
   */
  readonly backoff?: { readonly firstDelay: Duration; readonly maxDelay: Duration };

  /**
   * How long after the holder's lease ends a copy refused by it comes back, 0 to 900 seconds.
   * @defaultValue `Duration.seconds(2)`
   */
  readonly leaseHeldMargin?: Duration;
}
