import { TransientStoreError } from '../errors.js';
import type { InboxRuntime } from '../runtime/InboxRuntime.js';

const BACKOFF_BASE_MILLIS = 50;
const BACKOFF_CAP_MILLIS = 1000;

/**
 * Runs `request`, and again after a transient DynamoDB error (`TransientStoreError`) up to
 * `attempts` times in all, waiting a full-jitter backoff between tries; stops retrying once
 * `signal` is aborted (the batch's deadline). `onRetry` hears of each retry, to log it.
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
    readonly runtime: Pick<InboxRuntime, 'sleep' | 'random'>;
    readonly signal: AbortSignal;
    readonly onRetry?: (attempt: number, error: TransientStoreError) => void;
  },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await request();
    } catch (error) {
      const retry = error instanceof TransientStoreError && attempt < options.attempts;
      if (!retry || options.signal.aborted) throw error;
      options.onRetry?.(attempt, error);
      await options.runtime.sleep(backoffMillis(attempt, options.runtime.random()));
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
