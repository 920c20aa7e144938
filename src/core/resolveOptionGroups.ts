import type { SQSClient } from '@aws-sdk/client-sqs';
import {
  DEFAULT_CONCURRENCY,
  DEFAULT_TRANSACTION_ATTEMPTS,
  LEASE_LIMITS,
  MAX_RECEIVE_COUNT_RANGE,
  type Precheck,
} from '../constants/values.js';
import { InvalidConfigurationError } from '../errors.js';
import { checkOptionsObject } from './checkOptionsObject.js';
import type { DeadLetterSink } from './DeadLetterSink.js';
import type { InboxStore } from './InboxStore.js';
import { checkBoolean, checkMethods, integerIn, isQueueUrl } from './optionChecks.js';
import type {
  DeadLetterSettings,
  PerformanceSettings,
  ProcessorSettings,
  ReliabilitySettings,
} from './ProcessorSettings.js';
import { resolvePrecheck } from './resolvePrecheck.js';

const CONCURRENCY_RANGE = { min: 1, max: 1000 } as const;
const DEFAULT_DEADLINE_MARGIN_MILLIS = 1_000;
const DEADLINE_MARGIN_RANGE = { min: 0, max: 900_000 } as const;
const ATTEMPTS_RANGE = { min: 1, max: 10 } as const;
const LEASE_MILLIS_RANGE = { min: LEASE_LIMITS.minMillis, max: 43_200_000 } as const;
/** The groups of a processor's options and the keys of each. */
export const GROUPS = {
  deadLetter: ['queueUrl', 'maxReceiveCount', 'client'],
  reliability: ['transactionAttempts', 'leaseMillis', 'deadlineMarginMillis'],
  observability: ['logger', 'metrics', 'logKeys', 'tracer'],
  performance: ['concurrency', 'precheck', 'coalesce'],
  retry: ['backoff', 'leaseHeldMarginSeconds', 'client'],
} as const satisfies Record<string, readonly string[]>;
/**
 * Builds the dead-letter sink of a validated `deadLetterQueueUrl`.
 *
 * @example
 * ```ts
 * const create: DeadLetterSinkFactory = (url, client) => new DeadLetterPublisher(url, client);
 * ```
 */
export type DeadLetterSinkFactory = (
  queueUrl: string,
  client: SQSClient | undefined,
) => DeadLetterSink;

/**
 * A group of the options, its keys checked; `{}` when it is not given.
 *
 * @example
 * ```ts
 * const { logger } = optionGroup(options, 'observability');
 * ```
 */
type Groups = Required<Pick<ProcessorSettings, keyof typeof GROUPS>>;

export function optionGroup<TName extends keyof typeof GROUPS>(
  options: ProcessorSettings,
  name: TName,
): Partial<Groups[TName]> {
  const value = options[name];
  if (value === undefined) return {};
  checkOptionsObject(value, GROUPS[name], `{ ${GROUPS[name][0]} }`, { path: `${name}.` });
  return value as Partial<Groups[TName]>;
}

/** The `deadLetter` group, resolved. */
export function resolveDeadLetter(
  deadLetter: Partial<DeadLetterSettings>,
  create: DeadLetterSinkFactory,
): {
  readonly deadLetter: DeadLetterSink | undefined;
  readonly maxReceiveCount: number | undefined;
} {
  const { queueUrl, client, maxReceiveCount } = deadLetter;
  if (Object.keys(deadLetter).length === 0) {
    return { deadLetter: undefined, maxReceiveCount: undefined };
  }
  if (typeof queueUrl !== 'string' || !isQueueUrl(queueUrl)) {
    throw new InvalidConfigurationError(
      'deadLetter.queueUrl',
      queueUrl,
      'an SQS queue URL such as https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq',
    );
  }
  checkMethods('deadLetter.client', client, ['send']);
  return {
    deadLetter: create(queueUrl, client),
    maxReceiveCount:
      maxReceiveCount === undefined
        ? undefined
        : integerIn('deadLetter.maxReceiveCount', maxReceiveCount, 0, MAX_RECEIVE_COUNT_RANGE),
  };
}

/** The `reliability` group, resolved. */
export function resolveReliability(reliability: Partial<ReliabilitySettings>): {
  readonly transactionAttempts: number;
  readonly leaseMillis: number | undefined;
  readonly deadlineMarginMillis: number;
} {
  const { transactionAttempts, leaseMillis, deadlineMarginMillis } = reliability;
  return {
    transactionAttempts: integerIn(
      'reliability.transactionAttempts',
      transactionAttempts,
      DEFAULT_TRANSACTION_ATTEMPTS,
      ATTEMPTS_RANGE,
    ),
    leaseMillis:
      leaseMillis === undefined
        ? undefined
        : integerIn('reliability.leaseMillis', leaseMillis, 0, LEASE_MILLIS_RANGE),
    deadlineMarginMillis: integerIn(
      'reliability.deadlineMarginMillis',
      deadlineMarginMillis,
      DEFAULT_DEADLINE_MARGIN_MILLIS,
      DEADLINE_MARGIN_RANGE,
    ),
  };
}

/** The `performance` group, resolved. */
export function resolvePerformance(
  performance: Partial<PerformanceSettings>,
  store: InboxStore,
): { readonly concurrency: number; readonly precheck: Precheck; readonly coalesce: boolean } {
  const coalesce = resolveCoalesce(performance.coalesce, store);
  return {
    concurrency: integerIn(
      'performance.concurrency',
      performance.concurrency,
      defaultConcurrency(store),
      CONCURRENCY_RANGE,
    ),
    precheck: resolvePrecheck(performance.precheck),
    coalesce,
  };
}

/** Coalescing needs a store that can share a transaction between messages. */
function resolveCoalesce(coalesce: unknown, store: InboxStore): boolean {
  checkBoolean('performance.coalesce', coalesce);
  if (coalesce !== true) return false;
  const sharing = [store.prepareCommit, store.commitPrepared, store.commitTogether];
  if (sharing.some((method) => typeof method !== 'function')) {
    throw new InvalidConfigurationError(
      'performance.coalesce',
      true,
      'false, or a DynamoDBInboxStore as store',
    );
  }
  return true;
}

/**
 * A whole batch at once, up to {@link DEFAULT_CONCURRENCY}, and within the socket pool of a
 * client the store was given.
 */
function defaultConcurrency(store: InboxStore): number {
  return Math.min(DEFAULT_CONCURRENCY, store.socketLimit?.() ?? DEFAULT_CONCURRENCY);
}
