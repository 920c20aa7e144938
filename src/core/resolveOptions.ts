import type { SQSClient } from '@aws-sdk/client-sqs';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import {
  CONSUMER_NAME_PATTERN,
  CONSUMER_NAME_RULE,
  DEFAULT_CONCURRENCY,
  DEFAULT_TRANSACTION_ATTEMPTS,
  DEFAULT_TTL_SECONDS,
  LEASE_LIMITS,
  MAX_RECEIVE_COUNT_RANGE,
  type Precheck,
  TTL_SECONDS_RANGE,
} from '../constants/values.js';
import { ConflictBackoff } from '../contention/ConflictBackoff.js';
import { InvalidConfigurationError } from '../errors.js';
import { resolvePrecheck } from '../precheck/resolvePrecheck.js';
import { type InboxRuntime, resolveRuntime } from '../runtime/InboxRuntime.js';
import type { MessageSource } from '../sources/MessageSource.js';
import { resolveSources, sourcesWithoutUpstreamId } from '../sources/resolveSources.js';
import { checkOptionsObject } from './checkOptionsObject.js';
import { createConsoleLogger } from './consoleLogger.js';
import type { DeadLetterSink } from './DeadLetterSink.js';
import { guardLogger, guardMetrics } from './guardSinks.js';
import type { InboxStore } from './InboxStore.js';
import type { InboxLogger, InboxMetrics, ParsedMessage, ProcessorOptions } from './types.js';

/**
 * Options with every default filled in, as the processing core uses them.
 *
 * @example
 * ```ts
 * const resolved: ResolvedOptions = resolveOptions({ store, consumer: 'ledger', key }, createSink);
 * ```
 */
export interface ResolvedOptions {
  readonly store: InboxStore;
  readonly consumer: string;
  readonly sources: readonly MessageSource[];
  /** Undefined: every declared source has an upstream id, which is the key. */
  readonly key: ((message: ParsedMessage<unknown>) => string) | undefined;
  readonly schema: StandardSchemaV1 | undefined;
  /** Undefined: the default of the payload's source (`JSON.parse`; SNS: JSON or text). */
  readonly parser: ((rawBody: string) => unknown) | undefined;
  readonly ttlSeconds: number;
  readonly concurrency: number;
  readonly deadLetter: DeadLetterSink | undefined;
  readonly precheck: Precheck;
  readonly coalesce: boolean;
  readonly logKeys: boolean;
  readonly transactionAttempts: number;
  readonly maxReceiveCount: number | undefined;
  readonly deadlineMarginMillis: number;
  /** Undefined: a step's lease lasts the invocation's remaining time (60 s without a context). */
  readonly leaseMillis: number | undefined;
  /** The clock, waiting, randomness and timers: the system's unless `runtime` or `now` is given. */
  readonly runtime: InboxRuntime;
  readonly logger: InboxLogger;
  readonly metrics: InboxMetrics | undefined;
  /** Warnings already logged by this processor, so each is logged once per container. */
  readonly warned: Set<string>;
  /** The wait after a `TransactionConflict`, learned from this processor's commits. */
  readonly conflictBackoff: ConflictBackoff;
}

const CONCURRENCY_RANGE = { min: 1, max: 1000 } as const;
const DEFAULT_DEADLINE_MARGIN_MILLIS = 1_000;
const DEADLINE_MARGIN_RANGE = { min: 0, max: 900_000 } as const;
const ATTEMPTS_RANGE = { min: 1, max: 10 } as const;
const LEASE_MILLIS_RANGE = { min: LEASE_LIMITS.minMillis, max: 43_200_000 } as const;
const KNOWN_OPTIONS = [
  'store',
  'consumer',
  'sources',
  'key',
  'schema',
  'parser',
  'ttlSeconds',
  'concurrency',
  'deadLetterQueueUrl',
  'sqsClient',
  'precheck',
  'coalesce',
  'logKeys',
  'transactionAttempts',
  'maxReceiveCount',
  'deadlineMarginMillis',
  'leaseMillis',
  'now',
  'runtime',
  'logger',
  'metrics',
];

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
 * Validates options once, at creation, and fills in defaults. Unknown keys are rejected so a
 * typo (`ttlSecond`) does not silently fall back to a default. The dead-letter sink is built by
 * `createDeadLetterSink`, so that this core needs no SQS client of its own.
 *
 * @example
 * ```ts
 * resolveOptions({ store, consumer: 'ledger', key, concurrency: 0 }, createSink); // throws InvalidConfigurationError
 * ```
 */
export function resolveOptions<TSchema extends StandardSchemaV1>(
  options: ProcessorOptions<TSchema>,
  createDeadLetterSink: DeadLetterSinkFactory,
): ResolvedOptions {
  checkShapes(options);
  const sources = resolveSources(options.sources);
  checkKey(options.key, sources);
  return {
    store: options.store,
    consumer: options.consumer,
    sources,
    key: options.key as ResolvedOptions['key'],
    schema: options.schema,
    parser: options.parser,
    ttlSeconds: integerIn('ttlSeconds', options.ttlSeconds, DEFAULT_TTL_SECONDS, TTL_SECONDS_RANGE),
    concurrency: integerIn(
      'concurrency',
      options.concurrency,
      defaultConcurrency(options.store),
      CONCURRENCY_RANGE,
    ),
    deadLetter: deadLetterSink(options.deadLetterQueueUrl, options.sqsClient, createDeadLetterSink),
    precheck: resolvePrecheck(options.precheck),
    coalesce: options.coalesce ?? false,
    logKeys: options.logKeys ?? false,
    transactionAttempts: integerIn(
      'transactionAttempts',
      options.transactionAttempts,
      DEFAULT_TRANSACTION_ATTEMPTS,
      ATTEMPTS_RANGE,
    ),
    maxReceiveCount: maxReceiveCount(options),
    deadlineMarginMillis: integerIn(
      'deadlineMarginMillis',
      options.deadlineMarginMillis,
      DEFAULT_DEADLINE_MARGIN_MILLIS,
      DEADLINE_MARGIN_RANGE,
    ),
    leaseMillis:
      options.leaseMillis === undefined
        ? undefined
        : integerIn('leaseMillis', options.leaseMillis, 0, LEASE_MILLIS_RANGE),
    runtime: resolveRuntime(options.runtime, options.now),
    logger: guardLogger(options.logger ?? createConsoleLogger()),
    metrics: options.metrics === undefined ? undefined : guardMetrics(options.metrics),
    warned: new Set(),
    conflictBackoff: new ConflictBackoff(),
  };
}

function checkShapes<TSchema extends StandardSchemaV1>(options: ProcessorOptions<TSchema>): void {
  checkOptionsObject(options, KNOWN_OPTIONS, "{ store, consumer: 'ledger', key }");
  checkStore(options.store);
  if (typeof options.consumer !== 'string' || !CONSUMER_NAME_PATTERN.test(options.consumer)) {
    throw new InvalidConfigurationError(
      'consumer',
      options.consumer,
      `a name of ${CONSUMER_NAME_RULE}`,
    );
  }
  checkFunction('parser', options.parser);
  checkFunction('now', options.now);
  checkSchema(options.schema);
  checkBoolean('logKeys', options.logKeys);
  checkCoalesce(options);
  checkMethods('logger', options.logger, ['debug', 'info', 'warn', 'error']);
  checkMethods('metrics', options.metrics, ['addMetric']);
  checkMethods('sqsClient', options.sqsClient, ['send']);
}

function deadLetterSink(
  url: unknown,
  sqsClient: SQSClient | undefined,
  create: DeadLetterSinkFactory,
): DeadLetterSink | undefined {
  if (url === undefined) {
    if (sqsClient !== undefined) {
      throw new InvalidConfigurationError(
        'sqsClient',
        sqsClient,
        'to be given only together with deadLetterQueueUrl',
      );
    }
    return undefined;
  }
  if (typeof url !== 'string' || !isQueueUrl(url)) {
    throw new InvalidConfigurationError(
      'deadLetterQueueUrl',
      url,
      'an SQS queue URL such as https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq',
    );
  }
  return create(url, sqsClient);
}

/**
 * Whether `text` can be an SQS queue URL: an absolute http(s) URL.
 *
 * @example
 * ```ts
 * isQueueUrl('https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq'); // => true
 * ```
 */
export function isQueueUrl(text: string): boolean {
  return URL.canParse(text) && /^https?:$/.test(new URL(text).protocol);
}

/** Coalescing needs a store that can share a transaction between messages. */
function checkCoalesce<TSchema extends StandardSchemaV1>(options: ProcessorOptions<TSchema>): void {
  checkBoolean('coalesce', options.coalesce);
  if (options.coalesce !== true) return;
  const store = options.store as Partial<InboxStore>;
  const sharing = [store.prepareCommit, store.commitPrepared, store.commitTogether];
  if (sharing.some((method) => typeof method !== 'function')) {
    throw new InvalidConfigurationError(
      'coalesce',
      true,
      'false, or a DynamoDBInboxStore as store',
    );
  }
}

/**
 * A whole batch at once, up to {@link DEFAULT_CONCURRENCY}, and within the socket pool of a
 * client the store was given.
 */
function defaultConcurrency(store: InboxStore): number {
  return Math.min(DEFAULT_CONCURRENCY, store.socketLimit?.() ?? DEFAULT_CONCURRENCY);
}

function checkStore(store: unknown): void {
  checkMethods('store', store, ['find', 'commit', 'claim', 'journal', 'heartbeat', 'release']);
  if (store === undefined) {
    throw new InvalidConfigurationError(
      'store',
      store,
      "an inbox store, e.g. new DynamoDBInboxStore({ tableName: 'inbox' })",
    );
  }
}

function maxReceiveCount<TSchema extends StandardSchemaV1>(
  options: ProcessorOptions<TSchema>,
): number | undefined {
  if (options.maxReceiveCount === undefined) return undefined;
  const count = integerIn('maxReceiveCount', options.maxReceiveCount, 0, MAX_RECEIVE_COUNT_RANGE);
  if (options.deadLetterQueueUrl === undefined) {
    throw new InvalidConfigurationError(
      'maxReceiveCount',
      count,
      'to be given together with deadLetterQueueUrl, where a message on its last receive is sent',
    );
  }
  return count;
}

function checkKey(key: unknown, sources: readonly MessageSource[]): void {
  if (typeof key === 'function') return;
  const withoutId = sourcesWithoutUpstreamId(sources);
  if (key === undefined && withoutId.length === 0) return;
  const why =
    key === undefined
      ? `the declared source${withoutId.length > 1 ? 's' : ''} ${withoutId.join(', ')} carr` +
        `${withoutId.length > 1 ? 'y' : 'ies'} no upstream id to key by. `
      : '';
  throw new InvalidConfigurationError(
    'key',
    key,
    `a function returning the message's own id, e.g. ({ body }) => body.paymentId: ${why}The ` +
      'SQS messageId is no default: a DLQ redrive gives a message a new one, and the inbox would ' +
      'apply it again. To accept that, pass redriveUnsafeMessageIdKey',
  );
}

function checkSchema(schema: unknown): void {
  if (schema === undefined) return;
  const standard = (schema as { '~standard'?: { version?: unknown; validate?: unknown } } | null)?.[
    '~standard'
  ];
  if (standard?.version !== 1 || typeof standard.validate !== 'function') {
    throw new InvalidConfigurationError(
      'schema',
      schema,
      'a Standard Schema v1 validator (zod 3.24+, valibot 1, arktype 2…)',
    );
  }
}

function checkFunction(name: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'function') {
    throw new InvalidConfigurationError(name, value, 'a function');
  }
}

function checkBoolean(name: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'boolean') {
    throw new InvalidConfigurationError(name, value, 'true or false');
  }
}

function checkMethods(name: string, value: unknown, methods: readonly string[]): void {
  if (value === undefined) return;
  const target = value as Record<string, unknown> | null;
  const missing = methods.filter((method) => typeof target?.[method] !== 'function');
  if (typeof value !== 'object' || value === null || missing.length > 0) {
    throw new InvalidConfigurationError(
      name,
      value,
      `an object with the methods ${methods.join(', ')}`,
    );
  }
}

function integerIn(
  name: string,
  value: unknown,
  fallback: number,
  range: { readonly min: number; readonly max: number },
): number {
  if (value === undefined) return fallback;
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < range.min ||
    value > range.max
  ) {
    throw new InvalidConfigurationError(
      name,
      value,
      `an integer from ${range.min} to ${range.max}`,
    );
  }
  return value;
}
