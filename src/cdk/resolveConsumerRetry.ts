import { type Duration, Token, Tokenization } from 'aws-cdk-lib';
import { InboxEnvironment, RETRY_LIMITS } from '../constants/values.js';
import type { InboxRetryProps } from './InboxRetryProps.js';

/**
 * The `retry` prop in whole seconds, as the function's environment carries it. A value from a
 * token is the token's number, passed on unchecked (the library checks it at cold start).
 *
 * @example
 * ```ts
 * const retry: ConsumerRetrySettings = { backoff: { firstDelaySeconds: 5, maxDelaySeconds: 900 }, leaseHeldMarginSeconds: 2 };
 * ```
 */
export interface ConsumerRetrySettings {
  readonly backoff:
    | { readonly firstDelaySeconds: number; readonly maxDelaySeconds: number }
    | undefined;
  readonly leaseHeldMarginSeconds: number;
}

/**
 * The consumer's resolved queue settings the `retry` prop is checked against.
 *
 * @example
 * ```ts
 * const bounds: RetryBounds = { retentionPeriod, visibilityTimeout, maxReceiveCount: 5 };
 * ```
 */
export interface RetryBounds {
  readonly retentionPeriod: Duration;
  readonly visibilityTimeout: Duration;
  readonly maxReceiveCount: number;
}

type Fail = (message: string) => never;
type Backoff = NonNullable<ConsumerRetrySettings['backoff']>;

/**
 * The `retry` prop resolved (undefined for `false`: no visibility is ever changed), after the
 * checks the library and SQS would otherwise make at run time: whole seconds; `firstDelay` from
 * 1 s to `maxDelay`; `maxDelay` at most 42,000 s (`RETRY_LIMITS`), shorter than
 * `queue.retentionPeriod`; the longest path to the DLQ, `deadLetter.maxReceiveCount ×
 * (queue.visibilityTimeout + maxDelay)` (without a backoff, the visibility timeout alone), within
 * `queue.retentionPeriod`; `leaseHeldMargin` from 0 to 900 s. A check involving a token is skipped.
 *
 * @example
 * ```ts
 * resolveConsumerRetry({}, bounds, fail); // => { backoff: undefined, leaseHeldMarginSeconds: 2 }
 * ```
 */
export function resolveConsumerRetry(
  retry: InboxRetryProps | false | undefined,
  bounds: RetryBounds,
  fail: Fail,
): ConsumerRetrySettings | undefined {
  if (retry === false) {
    checkPathToDeadLetter(0, bounds, fail);
    return undefined;
  }
  const given = retry ?? {};
  const margin = given.leaseHeldMargin;
  const leaseHeldMarginSeconds =
    margin === undefined
      ? RETRY_LIMITS.defaultLeaseHeldMarginSeconds
      : wholeSeconds('retry.leaseHeldMargin', margin, fail);
  checkLeaseHeldMargin(leaseHeldMarginSeconds, fail);
  const backoff = given.backoff && resolveBackoff(given.backoff, fail);
  if (backoff) checkAgainstQueue(backoff.maxDelaySeconds, bounds, fail);
  checkPathToDeadLetter(backoff?.maxDelaySeconds ?? 0, bounds, fail);
  return { backoff, leaseHeldMarginSeconds };
}

/**
 * The `INBOX_RETRY_*` variables that `retryFromEnvironment` reads back as the same group: none
 * for `false`, the lease-held margin always otherwise (so that `retry: {}` still sets `retry`).
 *
 * @example
 * ```ts
 * retryEnvironment({ backoff: undefined, leaseHeldMarginSeconds: 2 }); // => { INBOX_RETRY_LEASE_HELD_MARGIN_SECONDS: '2' }
 * ```
 */
export function retryEnvironment(retry: ConsumerRetrySettings | undefined): Record<string, string> {
  if (retry === undefined) return {};
  const text = (seconds: number) => Tokenization.stringifyNumber(seconds);
  return {
    [InboxEnvironment.RetryLeaseHeldMarginSeconds]: text(retry.leaseHeldMarginSeconds),
    ...(retry.backoff && {
      [InboxEnvironment.RetryFirstDelaySeconds]: text(retry.backoff.firstDelaySeconds),
      [InboxEnvironment.RetryMaxDelaySeconds]: text(retry.backoff.maxDelaySeconds),
    }),
  };
}

function resolveBackoff(backoff: NonNullable<InboxRetryProps['backoff']>, fail: Fail): Backoff {
  if (backoff.firstDelay === undefined || backoff.maxDelay === undefined) {
    fail(
      'retry.backoff needs both firstDelay and maxDelay (Duration.seconds(5) and Duration.minutes(15), say).',
    );
  }
  const firstDelaySeconds = wholeSeconds('retry.backoff.firstDelay', backoff.firstDelay, fail);
  const maxDelaySeconds = wholeSeconds('retry.backoff.maxDelay', backoff.maxDelay, fail);
  const limit = RETRY_LIMITS.maxDelaySeconds;
  if (isLiteral(maxDelaySeconds) && maxDelaySeconds > limit) {
    fail(
      `retry.backoff.maxDelay (${maxDelaySeconds} s) exceeds ${limit} s: SQS refuses a message more than 12 hours (43200 s) of visibility since its receive, ` +
        'and the longest function timeout (900 s) and batching window (300 s) may already have passed. Lower retry.backoff.maxDelay.',
    );
  }
  if (isLiteral(firstDelaySeconds) && firstDelaySeconds < 1) {
    fail(`retry.backoff.firstDelay must be at least 1 s (given ${firstDelaySeconds} s).`);
  }
  if (isLiteral(firstDelaySeconds, maxDelaySeconds) && firstDelaySeconds > maxDelaySeconds) {
    fail(
      `retry.backoff.firstDelay (${firstDelaySeconds} s) exceeds retry.backoff.maxDelay (${maxDelaySeconds} s): ` +
        'the backoff starts at firstDelay and grows to maxDelay. Lower firstDelay or raise maxDelay.',
    );
  }
  return { firstDelaySeconds, maxDelaySeconds };
}

/** A delayed message must come back before the queue drops it. */
function checkAgainstQueue(maxDelaySeconds: number, bounds: RetryBounds, fail: Fail): void {
  const retention = literalSeconds(bounds.retentionPeriod);
  if (isLiteral(maxDelaySeconds) && retention !== undefined && maxDelaySeconds >= retention) {
    fail(
      `retry.backoff.maxDelay (${maxDelaySeconds} s) must be shorter than queue.retentionPeriod (${retention} s): ` +
        'a message delayed that long expires before it comes back. Lower retry.backoff.maxDelay or raise queue.retentionPeriod.',
    );
  }
}

/**
 * Every receive up to the last one, where the library dead-letters the message, must come before
 * the queue drops it: SQS counts the retention from the send, not from a receive.
 */
function checkPathToDeadLetter(maxDelaySeconds: number, bounds: RetryBounds, fail: Fail): void {
  const retention = literalSeconds(bounds.retentionPeriod);
  const visibility = literalSeconds(bounds.visibilityTimeout);
  const receives = bounds.maxReceiveCount;
  if (retention === undefined || visibility === undefined) return;
  if (!isLiteral(maxDelaySeconds, receives)) return;
  const path = receives * (visibility + maxDelaySeconds);
  if (path <= retention) return;
  const delay = maxDelaySeconds > 0 ? ' + retry.backoff.maxDelay' : '';
  const delayFigure = maxDelaySeconds > 0 ? ` + ${maxDelaySeconds} s` : '';
  fail(
    `the longest path to the DLQ, deadLetter.maxReceiveCount × (queue.visibilityTimeout${delay}) = ` +
      `${receives} × (${visibility} s${delayFigure}) = ${path} s, exceeds queue.retentionPeriod (${retention} s): ` +
      'SQS would drop a message still being retried before it reaches the DLQ. Raise queue.retentionPeriod, ' +
      `or lower deadLetter.maxReceiveCount${maxDelaySeconds > 0 ? ' or retry.backoff.maxDelay' : ' or queue.visibilityTimeout'}.`,
  );
}

function checkLeaseHeldMargin(seconds: number, fail: Fail): void {
  const max = RETRY_LIMITS.maxLeaseHeldMarginSeconds;
  if (isLiteral(seconds) && !(seconds >= 0 && seconds <= max)) {
    fail(`retry.leaseHeldMargin must be from 0 to ${max} s (given ${seconds} s).`);
  }
}

/** The duration in seconds, refused unless whole; a token's number (`Duration.seconds(token)`). */
function wholeSeconds(prop: string, duration: Duration, fail: Fail): number {
  if (duration.isUnresolved()) return duration.toSeconds();
  const seconds = duration.toSeconds({ integral: false });
  if (!Number.isInteger(seconds)) {
    fail(
      `${prop} must be whole seconds (given ${seconds} s): the library's variables take integers.`,
    );
  }
  return seconds;
}

function literalSeconds(duration: Duration): number | undefined {
  return duration.isUnresolved() ? undefined : duration.toSeconds();
}

function isLiteral(...values: readonly number[]): boolean {
  return values.every((value) => !Token.isUnresolved(value));
}
