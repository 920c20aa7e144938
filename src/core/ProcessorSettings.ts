import type { SQSClient } from '@aws-sdk/client-sqs';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { Precheck } from '../constants/values.js';
import type { InboxRuntime } from '../runtime/InboxRuntime.js';
import type { MessageSource } from '../sources/MessageSource.js';
import type { InboxStore } from './InboxStore.js';
import type { InboxTracer } from './InboxTracer.js';
import type { InboxLogger, InboxMetrics, ParsedMessage } from './types.js';

/**
 * Every option of a processor but its store: what `InboxOptions` adds a `DynamoDBInboxStore`
 * to. At the top, what every consumer sets: who it is and how a message is keyed, parsed and
 * unwrapped. In groups, what a reader looks for later: `deadLetter`, `reliability`,
 * `observability`, `performance`, and the `runtime` seam for tests and simulations.
 *
 * @example
 * ```ts
 * const settings: ProcessorSettings<typeof PaymentSchema> = {
 *   consumer: 'ledger', schema: PaymentSchema, key: (m) => m.body.eventId,
 *   deadLetter: { queueUrl: dlqUrl, maxReceiveCount: 5 },
 * };
 * ```
 * @public
 */
export interface ProcessorSettings<TSchema extends StandardSchemaV1 = StandardSchemaV1<unknown>> {
  /**
   * The dedup scope: two consumers of one event each apply it once. `[A-Za-z0-9._:-]{1,128}`.
   * Behind the construct (its `consumer`), `inboxConfigFromEnvironment()` sets it.
   */
  readonly consumer: string;
  /**
   * Derives the dedup key: the message's own id, e.g. `({ body }) => body.paymentId`.
   * Required when a source without an upstream id is declared (`sqs`, the default, and
   * `sns-raw`): an SQS-assigned id changes when a DLQ is redriven, so no default can be safe;
   * to accept that risk knowingly, pass `redriveUnsafeMessageIdKey`. A key is at most 1,024
   * bytes (UTF-8). Behind the construct, `inboxConfigFromEnvironment()` sets it when the
   * construct declares one (`MessageKey`).
   * @defaultValue the upstream id (SNS `MessageId`, EventBridge `id`, S3 bucket, object key and
   * `sequencer`); none, so required, with the sources `sqs` and `sns-raw`
   */
  readonly key?: (message: ParsedMessage<StandardSchemaV1.InferOutput<TSchema>>) => string;
  /**
   * How long the inbox remembers a key (the entry's TTL), in whole seconds, 60 s to 366 days.
   * A copy that comes back later is applied again: keep it above the time a copy can come
   * back, one DLQ redrive included. Behind the construct (its `ttl`),
   * `inboxConfigFromEnvironment()` sets it.
   * @defaultValue `1987200` (23 days: one DLQ redrive with SQS's default retention periods)
   */
  readonly ttlSeconds?: number;
  /**
   * Where the messages come from: `sqs` (producers call `SendMessage`), `sns`, `sns-raw`,
   * `eventbridge`, `s3`. With `sns`,
   * `eventbridge` or `s3` the body is unwrapped: the parser and schema get the payload, the
   * handler also the `envelope`, the payload hash covers the payload only, and the upstream's
   * id is the default key. A body that none of the declared sources sends is dead-lettered
   * with an `EnvelopeMismatchError`. Behind the construct, `inboxConfigFromEnvironment()` sets it.
   * @defaultValue `['sqs']`
   */
  readonly sources?: readonly MessageSource[];
  /**
   * A Standard Schema v1 validator (zod 4, valibot 1, arktype 2) applied to the parsed body; a
   * body it refuses fails permanently with a `SchemaValidationError`.
   * @defaultValue none: the parsed body reaches the handler as it is
   */
  readonly schema?: TSchema;
  /**
   * Turns the payload text (the body; for SNS the `Message`) into the value the schema sees.
   * It may be async; a throw or a rejection is the record's `MessageParseError` (permanent).
   * EventBridge and S3 payloads are JSON already and do not pass through it.
   * @defaultValue `JSON.parse`; for SNS, `JSON.parse` where the text is JSON, the text otherwise
   */
  readonly parser?: (rawBody: string) => unknown;
  /**
   * Where a message that must not be retried goes, with its reason. Behind the construct,
   * `inboxConfigFromEnvironment()` sets it; a `deadLetter` of your own replaces the
   * environment's whole, `maxReceiveCount` included.
   * @defaultValue unset: such a message is reported failed and the queue's redrive policy decides
   */
  readonly deadLetter?: DeadLetterSettings;
  /**
   * Retries of DynamoDB, step leases and the batch's deadline.
   * @defaultValue each member's default
   */
  readonly reliability?: ReliabilitySettings;
  /**
   * When SQS delivers a failed message again: set, the processor changes the failed records'
   * visibility before it answers (the function needs `sqs:ChangeMessageVisibility` on the
   * source queue). Behind the construct, `inboxConfigFromEnvironment()` sets it unless the
   * construct's `retry` is `false`.
   * @defaultValue unset: a failed message comes back after the queue's visibility timeout
   */
  readonly retry?: RetrySettings;
  /**
   * Logs, metrics and traces.
   * @defaultValue each member's default
   */
  readonly observability?: ObservabilitySettings;
  /**
   * How much of a batch runs at once and how it reaches DynamoDB.
   * @defaultValue each member's default
   */
  readonly performance?: PerformanceSettings;
  /**
   * The clock, the retry backoff's sleep and randomness, and the deadline's timer, method by
   * method. A test or a simulation passes its own so that no global is read while records are
   * processed.
   * @defaultValue the system's: `Date.now`, Node's timers, `Math.random`
   */
  readonly runtime?: Partial<InboxRuntime>;
}

/**
 * The `deadLetter` group of {@link ProcessorSettings}: the library's own dead-letter queue.
 *
 * @example
 * ```ts
 * const deadLetter: DeadLetterSettings = { queueUrl: dlqUrl, maxReceiveCount: 5 };
 * ```
 * @public
 */
export interface DeadLetterSettings {
  /** The queue's URL: a permanently failing message is sent there with its reason, then acknowledged. */
  readonly queueUrl: string;
  /**
   * The source queue's redrive `maxReceiveCount`, an integer from 1 to 1,000. A record that
   * fails on its last receive is then dead-lettered by the library with its last error as the
   * reason (`inbox.error`, after reading that its key has no committed entry), instead of moved
   * by SQS without one, and the rest of its FIFO group goes on.
   * @defaultValue unset (behind the construct, its environment sets it)
   */
  readonly maxReceiveCount?: number;
  /**
   * The client that sends to the queue.
   * @defaultValue built lazily from the environment
   */
  readonly client?: SQSClient;
}

/**
 * The `retry` group of {@link ProcessorSettings}: when SQS delivers a failed message again. With
 * the group set, a copy refused by another attempt's live lease (`LeaseHeldError`) comes back
 * just after that lease ends instead of after the queue's visibility timeout; with `backoff`,
 * every other retryable failure waits a delay growing with the message's receive count, drawn
 * with full jitter (`runtime.random`), so a downstream that is down is not hit at a fixed
 * rhythm. A `PermanentError`, the last receive (with `deadLetter.maxReceiveCount`) and a record
 * failed at the batch's deadline keep their rules. FIFO: a group delivers nothing while its head
 * waits, so the group waits its head's delay; the records skipped behind it are released at
 * once, to come back behind it in order. The changes go in `ChangeMessageVisibilityBatch` calls
 * to the record's own queue before the batch answers; one that fails leaves the record reported
 * failed, back after the queue's timeout (logged once per batch, `InboxVisibilityChangesFailed`).
 *
 * @example
 * ```ts
 * const retry: RetrySettings = { backoff: { firstDelaySeconds: 5, maxDelaySeconds: 900 } };
 * ```
 * @public
 */
export interface RetrySettings {
  /**
   * The per-message backoff: on receive n, a draw up to `min(maxDelaySeconds,
   * firstDelaySeconds × 2^(n−1))` seconds, at least 1; `firstDelaySeconds` a whole number from
   * 1, `maxDelaySeconds` a whole number from `firstDelaySeconds` to 42,000 (SQS's 12 hours less
   * the longest function timeout and batching window). Keep `maxDelaySeconds` to what a FIFO
   * group may lag.
   * @defaultValue unset: a retryable failure waits the queue's visibility timeout
   */
  readonly backoff?: { readonly firstDelaySeconds: number; readonly maxDelaySeconds: number };
  /**
   * A copy refused by a live lease comes back this long after the lease ends, in whole
   * seconds, 0 to 900.
   * @defaultValue `2`
   */
  readonly leaseHeldMarginSeconds?: number;
  /**
   * The client that sends `ChangeMessageVisibilityBatch`.
   * @defaultValue `deadLetter.client`, else built lazily
   */
  readonly client?: SQSClient;
}

/**
 * The `reliability` group of {@link ProcessorSettings}.
 *
 * @example
 * ```ts
 * const reliability: ReliabilitySettings = { transactionAttempts: 5, leaseMillis: 120_000 };
 * ```
 * @public
 */
export interface ReliabilitySettings {
  /**
   * Attempts per record (and per claim or journal write of a step) when DynamoDB answers with
   * throttling, a 5xx or a timeout, an integer from 1 to 10. A `TransactionConflict` does not
   * use them up: it is retried after a wait on the scale of one transaction for as long as the
   * batch has time (30 s without a Lambda context).
   * @defaultValue `3`
   */
  readonly transactionAttempts?: number;
  /**
   * How long a step's lease lasts before a heartbeat renews it (every third of it, never past
   * the invocation's end), in whole milliseconds, 1,000 to 43,200,000. A lease never outlasts
   * the invocation; keep the queue's visibility timeout above it, so a copy redelivered after a
   * timeout finds the lease lapsed.
   * @defaultValue the invocation's remaining time, so no heartbeat is needed (`60000` with a
   * heartbeat when called without a Lambda context)
   */
  readonly leaseMillis?: number;
  /**
   * How long before the Lambda timeout the batch stops waiting for unsettled records and
   * answers, reporting them failed (`RecordDeadlineError`) so that the committed ones are
   * acknowledged; `message.signal` aborts then. Whole milliseconds, 0 to 900,000, and at most
   * half the remaining time. Only with a Lambda `context`.
   * @defaultValue `1000`
   */
  readonly deadlineMarginMillis?: number;
}

/**
 * The `observability` group of {@link ProcessorSettings}.
 *
 * @example
 * ```ts
 * import { Logger } from '@aws-lambda-powertools/logger';
 * import { Metrics } from '@aws-lambda-powertools/metrics';
 * const observability: ObservabilitySettings = { logger: new Logger(), metrics: new Metrics() };
 * ```
 * @public
 */
export interface ObservabilitySettings {
  /**
   * Structured logger (`debug`, `info`, `warn`, `error`; Powertools Logger fits). A logger that
   * throws fails nothing.
   * @defaultValue JSON lines on the console, at the level of `AWS_LAMBDA_LOG_LEVEL` or `LOG_LEVEL`
   */
  readonly logger?: InboxLogger;
  /**
   * Metrics sink (Powertools Metrics fits), used alone: the library's own sink is then never
   * used beside it. `false`: no metrics. The metrics and their units are `InboxMetric`'s.
   * @defaultValue when `POWERTOOLS_METRICS_NAMESPACE` is set (the constructs set it), one
   * CloudWatch embedded-metric-format line per batch on standard output, under that namespace
   * and the `service` dimension `POWERTOOLS_SERVICE_NAME`, as Powertools writes them
   * (`POWERTOOLS_METRICS_DISABLED=true` turns it off); without a namespace, none
   */
  readonly metrics?: InboxMetrics | false;
  /**
   * Write dedup keys into log lines and the `inbox.key` DLQ attribute; otherwise logs carry
   * `keyHash` and the DLQ `inbox.keyHash` instead, as a key can be personal data.
   * @defaultValue `false`
   */
  readonly logKeys?: boolean;
  /**
   * Opens a span per record (linked to the context its `AWSTraceHeader` or `traceparent`
   * carries) and a child span per step. `openTelemetryTracer()` from `sqs-inbox/otel` adapts
   * `@opentelemetry/api`. A tracer that throws fails nothing.
   * @defaultValue none: no spans, and no tracing code is loaded
   */
  readonly tracer?: InboxTracer;
}

/**
 * The `performance` group of {@link ProcessorSettings}.
 *
 * @example
 * ```ts
 * const performance: PerformanceSettings = { concurrency: 20, precheck: Precheck.Before };
 * ```
 * @public
 */
export interface PerformanceSettings {
  /**
   * Records (standard queue) or message groups (FIFO) processed at once, an integer from 1 to
   * 1,000. With a client of your own given to the store, the default stays within the SDK's
   * default pool of 50 sockets: raise both together.
   * @defaultValue the whole batch, up to 100; up to 50 when the store was given a client
   */
  readonly concurrency?: number;
  /**
   * How the batch reads the inbox so that known duplicates skip work (see `Precheck`):
   * `'concurrent'`: one read alongside the handlers, in series with nothing; `'before'`: that
   * read awaited before the handlers; `'off'`: none.
   * @defaultValue `'concurrent'`
   */
  readonly precheck?: Precheck;
  /**
   * Commit several messages of a batch in one `TransactWriteItems` (their items distinct,
   * within 100 items and 4 MB), each message's effects still all or nothing; default false.
   * Either way, messages whose update of one item is an unconditional `ADD` of integers share
   * a transaction: the item is written once, adding their amounts, so a hot account takes many
   * messages per transaction, and its table's stream shows one change for them all, not one
   * per message (give an update a `ConditionExpression` to have it written on its own).
   * @defaultValue `false`
   * @beta
   */
  readonly coalesce?: boolean;
}

/**
 * The options the per-record engine works with: a processor's settings and the store port it
 * commits through (a `DynamoDBInboxStore` behind the public `InboxOptions`). Internal.
 *
 * @example
 * ```ts
 * const resolved = resolveOptions(options as ProcessorOptions<typeof PaymentSchema>, createSink);
 * ```
 */
export interface ProcessorOptions<TSchema extends StandardSchemaV1 = StandardSchemaV1<unknown>>
  extends ProcessorSettings<TSchema> {
  /** Where inbox entries live and where the transaction is committed. */
  readonly store: InboxStore;
}
