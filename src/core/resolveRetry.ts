import type { SQSClient } from '@aws-sdk/client-sqs';
import { RETRY_LIMITS } from '../constants/values.js';
import { InvalidConfigurationError } from '../errors.js';
import type { RetryPolicy } from '../retry/retryDelay.js';
import { checkOptionsObject } from './checkOptionsObject.js';
import { checkMethods, integerIn } from './optionChecks.js';
import type { ProcessorSettings } from './ProcessorSettings.js';
import { optionGroup } from './resolveOptionGroups.js';

/**
 * The `retry` group, validated, with the client its visibility changes go through (undefined:
 * built lazily when the first change is sent).
 *
 * @example
 * ```ts
 * const { retry } = resolveRetry({ consumer: 'ledger', retry: { backoff: { firstDelaySeconds: 5, maxDelaySeconds: 900 } } });
 * ```
 */
export interface ResolvedRetry extends RetryPolicy {
  readonly client: SQSClient | undefined;
}

/**
 * The `retry` group resolved: undefined when it is not given (no visibility is ever changed),
 * its client `retry.client`, else `deadLetter.client`.
 *
 * @example
 * ```ts
 * resolveRetry({ consumer: 'ledger', retry: {} }).retry?.leaseHeldMarginSeconds; // => 2
 * ```
 */
export function resolveRetry(options: ProcessorSettings): {
  readonly retry: ResolvedRetry | undefined;
} {
  if (options.retry === undefined) return { retry: undefined };
  const { backoff, leaseHeldMarginSeconds, client } = optionGroup(options, 'retry');
  checkMethods('retry.client', client, ['send']);
  return {
    retry: {
      backoff: resolveBackoff(backoff),
      leaseHeldMarginSeconds: integerIn(
        'retry.leaseHeldMarginSeconds',
        leaseHeldMarginSeconds,
        RETRY_LIMITS.defaultLeaseHeldMarginSeconds,
        { min: 0, max: RETRY_LIMITS.maxLeaseHeldMarginSeconds },
      ),
      client: client ?? options.deadLetter?.client,
    },
  };
}

function resolveBackoff(backoff: unknown): RetryPolicy['backoff'] {
  if (backoff === undefined) return undefined;
  const example = '{ firstDelaySeconds: 5, maxDelaySeconds: 900 }';
  checkOptionsObject(backoff, ['firstDelaySeconds', 'maxDelaySeconds'], example, {
    path: 'retry.backoff.',
  });
  const { maxDelaySeconds: limit } = RETRY_LIMITS;
  const firstDelaySeconds = requiredInteger(
    'retry.backoff.firstDelaySeconds',
    backoff.firstDelaySeconds,
    { min: 1, max: limit },
  );
  // The cap is at least the first delay: the backoff never shrinks.
  const maxDelaySeconds = requiredInteger(
    'retry.backoff.maxDelaySeconds',
    backoff.maxDelaySeconds,
    {
      min: firstDelaySeconds,
      max: limit,
    },
  );
  return { firstDelaySeconds, maxDelaySeconds };
}

function requiredInteger(
  name: string,
  value: unknown,
  range: { readonly min: number; readonly max: number },
): number {
  if (value === undefined) {
    throw new InvalidConfigurationError(
      name,
      value,
      `an integer from ${range.min} to ${range.max}`,
    );
  }
  return integerIn(name, value, range.min, range);
}
