import type { StandardSchemaV1 } from '@standard-schema/spec';
import {
  CONSUMER_NAME_PATTERN,
  CONSUMER_NAME_RULE,
  DEFAULT_TTL_SECONDS,
  type Precheck,
  TTL_SECONDS_RANGE,
} from '../constants/values.js';
import { ConflictBackoff } from '../contention/ConflictBackoff.js';
import { InvalidConfigurationError } from '../errors.js';
import { type InboxRuntime, resolveRuntime } from '../runtime/InboxRuntime.js';
import type { MessageSource } from '../sources/MessageSource.js';
import { resolveSources, sourcesWithoutUpstreamId } from '../sources/resolveSources.js';
import { checkOptionsObject, type MovedOptions } from './checkOptionsObject.js';
import { createConsoleLogger } from './consoleLogger.js';
import type { DeadLetterSink } from './DeadLetterSink.js';
import { guardLogger } from './guardSinks.js';
import { guardTracer } from './guardTracer.js';
import type { InboxStore } from './InboxStore.js';
import type { InboxTracer } from './InboxTracer.js';

import { checkBoolean, checkFunction, checkMethods, integerIn } from './optionChecks.js';
import type { ProcessorOptions } from './ProcessorSettings.js';
import { resolveMetrics } from './resolveMetrics.js';
import {
  type DeadLetterSinkFactory,
  optionGroup,
  resolveDeadLetter,
  resolvePerformance,
  resolveReliability,
} from './resolveOptionGroups.js';
import { type ResolvedRetry, resolveRetry } from './resolveRetry.js';
import type { InboxLogger, InboxMetrics, ParsedMessage } from './types.js';

export type { DeadLetterSinkFactory };

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
  /** The clock, waiting, randomness and timers: the system's unless `runtime` is given. */
  readonly runtime: InboxRuntime;
  readonly logger: InboxLogger;
  readonly metrics: InboxMetrics | undefined;
  /** Undefined: no spans. */
  readonly tracer: InboxTracer | undefined;
  /** Writes what the library's own sink holds (a user's sink is theirs to publish). */
  readonly flushMetrics: () => void;
  /** Warnings already logged by this processor, so each is logged once per container. */
  readonly warned: Set<string>;
  /** The wait after a `TransactionConflict`, learned from this processor's commits. */
  readonly conflictBackoff: ConflictBackoff;
  /** Undefined: SQS's visibility timeout times every retry, no visibility is changed. */
  readonly retry: ResolvedRetry | undefined;
}

const KNOWN_OPTIONS = [
  'store',
  'consumer',
  'key',
  'ttlSeconds',
  'sources',
  'schema',
  'parser',
  'deadLetter',
  'reliability',
  'observability',
  'performance',
  'retry',
  'runtime',
];
/** The flat options of 0.1.0, by where each went. */
const MOVED_OPTIONS: MovedOptions = {
  deadLetterQueueUrl: 'deadLetter.queueUrl',
  maxReceiveCount: 'deadLetter.maxReceiveCount',
  sqsClient: 'deadLetter.client',
  transactionAttempts: 'reliability.transactionAttempts',
  leaseMillis: 'reliability.leaseMillis',
  deadlineMarginMillis: 'reliability.deadlineMarginMillis',
  logger: 'observability.logger',
  metrics: 'observability.metrics',
  logKeys: 'observability.logKeys',
  concurrency: 'performance.concurrency',
  precheck: 'performance.precheck',
  coalesce: 'performance.coalesce',
  now: 'runtime.now',
};

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
  const observability = optionGroup(options, 'observability');
  const runtime = resolveRuntime(options.runtime);
  return {
    store: options.store,
    consumer: options.consumer,
    sources,
    key: options.key as ResolvedOptions['key'],
    schema: options.schema,
    parser: options.parser,
    ttlSeconds: integerIn('ttlSeconds', options.ttlSeconds, DEFAULT_TTL_SECONDS, TTL_SECONDS_RANGE),
    ...resolveDeadLetter(optionGroup(options, 'deadLetter'), createDeadLetterSink),
    ...resolveReliability(optionGroup(options, 'reliability')),
    ...resolvePerformance(optionGroup(options, 'performance'), options.store),
    ...resolveRetry(options),
    logKeys: observability.logKeys ?? false,
    runtime,
    logger: guardLogger(observability.logger ?? createConsoleLogger()),
    ...resolveMetrics(observability.metrics, runtime.now),
    tracer: observability.tracer === undefined ? undefined : guardTracer(observability.tracer),
    warned: new Set(),
    conflictBackoff: new ConflictBackoff(),
  };
}

function checkShapes<TSchema extends StandardSchemaV1>(options: ProcessorOptions<TSchema>): void {
  checkOptionsObject(options, KNOWN_OPTIONS, "{ store, consumer: 'ledger', key }", {
    moved: MOVED_OPTIONS,
  });
  checkStore(options.store);
  if (typeof options.consumer !== 'string' || !CONSUMER_NAME_PATTERN.test(options.consumer)) {
    throw new InvalidConfigurationError(
      'consumer',
      options.consumer,
      `a name of ${CONSUMER_NAME_RULE}`,
    );
  }
  checkFunction('parser', options.parser);
  checkSchema(options.schema);
  const observability = optionGroup(options, 'observability');
  checkBoolean('observability.logKeys', observability.logKeys);
  checkMethods('observability.logger', observability.logger, ['debug', 'info', 'warn', 'error']);
  if (observability.metrics !== false) {
    checkMethods('observability.metrics', observability.metrics, ['addMetric']);
  }
  checkMethods('observability.tracer', observability.tracer, ['startSpan']);
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
      'a Standard Schema v1 validator (zod 4, valibot 1, arktype 2…)',
    );
  }
}
