import { InboxEnvironment, RETRY_LIMITS } from '../../../src/constants/values.js';
import type { Prng } from '../kernel/Prng.js';

/**
 * The consumer's `retry` option group in a world, as the construct's `retry` prop sets it: absent
 * (no visibility is ever changed), bare (only copies refused by a live lease are re-timed), or
 * with a backoff of a few seconds.
 *
 * @example
 * ```ts
 * const retry: WorldRetry = { backoff: { firstDelaySeconds: 2, maxDelaySeconds: 8 } };
 * ```
 */
export interface WorldRetry {
  readonly backoff?: { readonly firstDelaySeconds: number; readonly maxDelaySeconds: number };
  /** Unset: the library's default (2 s). */
  readonly leaseHeldMarginSeconds?: number;
}

/**
 * The settings of a world that its `retry` draw adds.
 *
 * @example
 * ```ts
 * if (config.retry?.backoff) expectBackoffDelays();
 * ```
 */
export interface WorldRetrySettings {
  /** The processor's `retry` group (issue 34); default none, so that older worlds replay as they were. */
  readonly retry?: WorldRetry;
}

/** The share of worlds whose consumer has `retry`, … */
const RETRY_SHARE = 0.6;
/** … of those, the share with a backoff (the others re-time lease-held copies only), … */
const BACKOFF_SHARE = 2 / 3;
/** … and the share that set `leaseHeldMarginSeconds`. */
const MARGIN_SHARE = 0.5;

/**
 * Draws the world's `retry` group: in most worlds with it a backoff of seconds (the first 1–3 s,
 * the cap often below the first delay's doubling by the receives, so that the cap matters), kept
 * under the queue's visibility timeout and, receive after receive, within half the inbox TTL; a
 * margin past the lease now and then.
 *
 * @example
 * ```ts
 * const config = { ...drawn, ...drawRetry(random, drawn) };
 * ```
 */
export function drawRetry(
  random: Prng,
  drawn: {
    readonly visibilityTimeoutMillis: number;
    readonly maxReceiveCount: number;
    readonly ttlSeconds: number;
  },
): WorldRetrySettings {
  if (!random.chance(RETRY_SHARE)) return {};
  const backoff = random.chance(BACKOFF_SHARE) ? drawBackoff(random, drawn) : undefined;
  const margin = random.chance(MARGIN_SHARE) ? random.pick([0, 1, 5]) : undefined;
  return {
    retry: {
      ...(backoff ? { backoff } : {}),
      ...(margin === undefined ? {} : { leaseHeldMarginSeconds: margin }),
    },
  };
}

function drawBackoff(
  random: Prng,
  drawn: Parameters<typeof drawRetry>[1],
): NonNullable<WorldRetry['backoff']> {
  const firstDelaySeconds = random.int(1, 3);
  const drawnMaxSeconds = random.pick([firstDelaySeconds, 2 * firstDelaySeconds, 5, 10, 30]);
  const horizonSeconds = Math.min(
    Math.floor(drawn.visibilityTimeoutMillis / 1000),
    Math.floor(drawn.ttlSeconds / (2 * drawn.maxReceiveCount)),
  );
  return {
    firstDelaySeconds,
    maxDelaySeconds: Math.max(firstDelaySeconds, Math.min(drawnMaxSeconds, horizonSeconds)),
  };
}

/**
 * The `INBOX_RETRY_*` variables the construct gives the function for the world's `retry`. The
 * environment has no variable for the bare group: without a backoff the margin is set (to the
 * library's default when the world draws none), as the construct's default `{}` must.
 *
 * @example
 * ```ts
 * const env = { ...requiredVariables, ...retryEnvironment(config.retry) };
 * ```
 */
export function retryEnvironment(retry: WorldRetry | undefined): Record<string, string> {
  if (retry === undefined) return {};
  const margin =
    retry.leaseHeldMarginSeconds ??
    (retry.backoff ? undefined : RETRY_LIMITS.defaultLeaseHeldMarginSeconds);
  return {
    ...(retry.backoff
      ? {
          [InboxEnvironment.RetryFirstDelaySeconds]: String(retry.backoff.firstDelaySeconds),
          [InboxEnvironment.RetryMaxDelaySeconds]: String(retry.backoff.maxDelaySeconds),
        }
      : {}),
    ...(margin === undefined
      ? {}
      : { [InboxEnvironment.RetryLeaseHeldMarginSeconds]: String(margin) }),
  };
}
