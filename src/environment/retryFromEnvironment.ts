import type { SQSClient } from '@aws-sdk/client-sqs';
import { InboxEnvironment, RETRY_LIMITS } from '../constants/values.js';
import type { RetrySettings } from '../core/ProcessorSettings.js';
import { EnvironmentError } from '../errors.js';

const RETRY_VARIABLES = [
  InboxEnvironment.RetryFirstDelaySeconds,
  InboxEnvironment.RetryMaxDelaySeconds,
  InboxEnvironment.RetryLeaseHeldMarginSeconds,
] as const;

/**
 * The `retry` group the construct's `retry` prop put in the environment: none when no
 * `INBOX_RETRY_*` variable is set (no visibility is changed), otherwise the group, with the
 * backoff when both its delays are set, and `client` as its client. Throws `EnvironmentError`
 * naming the variable that is malformed, or the one missing beside its pair.
 *
 * @example
 * ```ts
 * const options = { ...retryFromEnvironment(process.env, sqsClient) }; // { retry: { … } } or {}
 * ```
 */
export function retryFromEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  client: SQSClient | undefined,
): { readonly retry?: RetrySettings } {
  if (RETRY_VARIABLES.every((name) => !env[name])) return {};
  const margin = env[InboxEnvironment.RetryLeaseHeldMarginSeconds];
  const backoff = backoffOf(env);
  return {
    retry: {
      ...(backoff ? { backoff } : {}),
      ...(margin
        ? {
            leaseHeldMarginSeconds: wholeSeconds(
              InboxEnvironment.RetryLeaseHeldMarginSeconds,
              margin,
              {
                min: 0,
                max: RETRY_LIMITS.maxLeaseHeldMarginSeconds,
              },
            ),
          }
        : {}),
      ...(client ? { client } : {}),
    },
  };
}

function backoffOf(
  env: Readonly<Record<string, string | undefined>>,
): RetrySettings['backoff'] | undefined {
  const first = env[InboxEnvironment.RetryFirstDelaySeconds];
  const max = env[InboxEnvironment.RetryMaxDelaySeconds];
  if (!first && !max) return undefined;
  if (!first || !max) {
    const [missing, set] = first
      ? [InboxEnvironment.RetryMaxDelaySeconds, InboxEnvironment.RetryFirstDelaySeconds]
      : [InboxEnvironment.RetryFirstDelaySeconds, InboxEnvironment.RetryMaxDelaySeconds];
    throw new EnvironmentError(
      [missing],
      'is not set',
      `Set it beside ${set}: the backoff takes both delays (the construct's retry.backoff).`,
    );
  }
  const limit = RETRY_LIMITS.maxDelaySeconds;
  const firstDelaySeconds = wholeSeconds(InboxEnvironment.RetryFirstDelaySeconds, first, {
    min: 1,
    max: limit,
  });
  return {
    firstDelaySeconds,
    maxDelaySeconds: wholeSeconds(InboxEnvironment.RetryMaxDelaySeconds, max, {
      min: firstDelaySeconds,
      max: limit,
    }),
  };
}

function wholeSeconds(
  variable: string,
  text: string,
  range: { readonly min: number; readonly max: number },
): number {
  const seconds = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(seconds >= range.min && seconds <= range.max)) {
    throw new EnvironmentError(
      [variable],
      `is ${JSON.stringify(text)}`,
      `Set it to whole seconds from ${range.min} to ${range.max}.`,
    );
  }
  return seconds;
}
