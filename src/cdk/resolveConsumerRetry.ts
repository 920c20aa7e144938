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
 * const bounds: RetryBounds = { retentionPeriod, visibilityTimeout, maxReceiveCount: 5, ttl };
 * ```
 */
export interface RetryBounds {
  readonly retentionPeriod: Duration;
  readonly visibilityTimeout: Duration;
  readonly maxReceiveCount: number;
  readonly ttl: Duration;
}

type Fail = (message: string) => never;
type Backoff = NonNullable<ConsumerRetrySettings['backoff']>;

/**
 * The `retry` prop resolved (undefined for `false`: no visibility is ever changed), after the
 * checks the library and SQS would otherwise make at run time: whole seconds; `firstDelay` from
 * 1 s to `maxDelay`; `maxDelay` at most 42,000 s (`RETRY_LIMITS`), shorter than
 * `queue.retentionPeriod`, and with `deadLetter.maxReceiveCount` and `queue.visibilityTimeout`
 * within `ttl`; `leaseHeldMargin` from 0 to 900 s. A check involving a token is skipped.
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
  if (retry === false) return undefined;
  const given = retry ?? {};
  const margin = given.leaseHeldMargin;
  const leaseHeldMarginSeconds =
    margin === undefined
      ? RETRY_LIMITS.defaultLeaseHeldMarginSeconds
      : wholeSeconds('retry.leaseHeldMargin', margin, fail);
  checkLeaseHeldMargin(leaseHeldMarginSeconds, fail);
  const backoff = given.backoff && resolveBackoff(given.backoff, fail);
  if (backoff) checkAgainstQueue(backoff.maxDelaySeconds, bounds, fail);
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

/**
 * A delayed message must come back before the queue drops it, and every receive up to the
 * redrive must fit in the time its inbox entry is remembered.
 */
function checkAgainstQueue(maxDelaySeconds: number, bounds: RetryBounds, fail: Fail): void {
  const retention = literalSeconds(bounds.retentionPeriod);
  if (isLiteral(maxDelaySeconds) && retention !== undefined && maxDelaySeconds >= retention) {
    fail(
      `retry.backoff.maxDelay (${maxDelaySeconds} s) must be shorter than queue.retentionPeriod (${retention} s): ` +
        'a message delayed that long expires before it comes back. Lower retry.backoff.maxDelay or raise queue.retentionPeriod.',
    );
  }
  const visibility = literalSeconds(bounds.visibilityTimeout);
  const ttl = literalSeconds(bounds.ttl);
  const receives = bounds.maxReceiveCount;
  if (!isLiteral(maxDelaySeconds, receives) || visibility === undefined || ttl === undefined) {
    return;
  }
  const horizon = receives * (maxDelaySeconds + visibility);
  if (horizon > ttl) {
    fail(
      `the redrive horizon with retry.backoff, deadLetter.maxReceiveCount × (retry.backoff.maxDelay + queue.visibilityTimeout) = ` +
        `${receives} × (${maxDelaySeconds} s + ${visibility} s) = ${horizon} s, exceeds ttl (${ttl} s): ` +
        'a message still retried after its inbox entry expired is applied again. Raise ttl, or lower retry.backoff.maxDelay or deadLetter.maxReceiveCount.',
    );
  }
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
