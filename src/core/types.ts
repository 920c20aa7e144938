import type { SQSClient } from '@aws-sdk/client-sqs';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { Context, SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import type { Precheck, RecordStatus } from '../constants/values.js';
import type { InboxRuntime } from '../runtime/InboxRuntime.js';
import type { MessageEnvelope, MessageSource } from '../sources/MessageSource.js';
import type { StepFunction } from '../steps/StepFunction.js';
import type { InboxStore } from './InboxStore.js';
import type { TransactionBuilder } from './TransactionBuilder.js';

/**
 * A message as the key function sees it: parsed and validated, before its key is known.
 * With a declared source, `body` is the payload (the SNS `Message`, the EventBridge `detail`,
 * the S3 records) and `envelope` what the envelope said around it.
 *
 * @example
 * ```ts
 * const key = (message: ParsedMessage<{ eventId: string }>) => message.body.eventId;
 * ```
 * @public
 */
export interface ParsedMessage<TBody> {
  /** The payload, parsed and validated by the `schema`. */
  readonly body: TBody;
  /** Where the message came from and what its envelope said (`kind` tells which). */
  readonly envelope: MessageEnvelope;
  /** The SQS message id (new on each upstream delivery retry and on a DLQ redrive). */
  readonly messageId: string;
  /** SQS's attributes of the record (`ApproximateReceiveCount`, `SentTimestamp`, …). */
  readonly attributes: SQSRecordAttributes;
  /** The message attributes the producer set, as SQS delivered them. */
  readonly messageAttributes: SQSMessageAttributes;
  /** The SQS record itself, as the event carried it. */
  readonly record: SQSRecord;
}

/**
 * A message as the handler sees it: parsed, validated and keyed.
 *
 * @example
 * ```ts
 * const handler = async (message: InboxMessage<Payment>, tx: TransactionBuilder) => {
 *   tx.put({ TableName: 'payments', Item: { pk: message.key, ...message.body } });
 * };
 * ```
 * @public
 */
export interface InboxMessage<TBody> extends ParsedMessage<TBody> {
  /** The dedup key: the inbox entry's key for this consumer. */
  readonly key: string;
  /**
   * The Lambda invocation's context (request id, remaining time), when the processor was called
   * with one, as Lambda and middy do; undefined when `process(event)` is called without it.
   */
  readonly context: Context | undefined;
  /**
   * Aborted when the batch's deadline passes (the Lambda's remaining time less
   * `deadlineMarginMillis`): the record is then reported failed and will not commit. Pass it to
   * clients that take one (`fetch(url, { signal })`) so a hanging call stops too.
   */
  readonly signal: AbortSignal;
  /**
   * Wraps an effect outside DynamoDB (a payment, an email, an HTTP call, an S3 object) in a
   * named step: journaled on the inbox entry under a fenced lease, skipped when the message
   * comes again, and given an idempotency key stable across attempts. A handler that never
   * calls it costs what it did before: one transaction, no lease. See {@link StepFunction}.
   */
  readonly step: StepFunction;
}

/**
 * The per-message function. It may read anything; every write it wants covered by the
 * exactly-once guarantee must go through `tx`, and every effect elsewhere through `step`.
 * Writes made any other way happen again when the message is redelivered. Throw
 * {@link PermanentError} for a message that must not be retried; any other error makes SQS
 * redeliver the message.
 *
 * @example
 * ```ts
 * const handler: MessageHandler<Payment> = async ({ body }, tx) => {
 *   tx.update({ TableName: 'accounts', Key: { pk: body.accountId },
 *     UpdateExpression: 'ADD balance :a', ExpressionAttributeValues: { ':a': body.amountCents } });
 * };
 * ```
 * @public
 */
export type MessageHandler<TBody> = (
  message: InboxMessage<TBody>,
  tx: TransactionBuilder,
) => Promise<void> | void;

/**
 * A structured logger: Powertools Logger and a console-like object both fit.
 *
 * @example
 * ```ts
 * const logger: InboxLogger = new Logger({ serviceName: 'ledger' }); // @aws-lambda-powertools/logger
 * ```
 * @public
 */
export interface InboxLogger {
  /** Detail for troubleshooting; off at the default level. */
  debug(message: string, ...extra: Array<Record<string, unknown>>): void;
  /** A routine event worth a line. */
  info(message: string, ...extra: Array<Record<string, unknown>>): void;
  /** Something an operator should look at; nothing was lost. */
  warn(message: string, ...extra: Array<Record<string, unknown>>): void;
  /** A failure an operator must act on or know of. */
  error(message: string, ...extra: Array<Record<string, unknown>>): void;
}

/**
 * Where counts and latencies go: Powertools Metrics fits.
 *
 * @example
 * ```ts
 * const metrics: InboxMetrics = new Metrics({ namespace: 'shop' }); // @aws-lambda-powertools/metrics
 * ```
 * @public
 */
export interface InboxMetrics {
  /** Adds one value to a metric (the names are in `InboxMetric`, `sqs-inbox/constants`). */
  addMetric(name: string, unit: 'Count' | 'Milliseconds', value: number): void;
}

/**
 * Every option of a processor but its store: what {@link InboxOptions} adds a
 * `DynamoDBInboxStore` to. The README's configuration table lists defaults and effects.
 *
 * @example
 * ```ts
 * const settings: ProcessorSettings<typeof PaymentSchema> = {
 *   consumer: 'ledger', schema: PaymentSchema, key: (m) => m.body.eventId,
 * };
 * ```
 * @public
 */
export interface ProcessorSettings<TSchema extends StandardSchemaV1 = StandardSchemaV1<unknown>> {
  /** The dedup scope: two consumers of one event each apply it once. `[A-Za-z0-9._:-]{1,128}`. */
  readonly consumer: string;
  /**
   * Where the messages come from; default `['sqs']` (producers call `SendMessage`). With `sns`,
   * `eventbridge` or `s3` the body is unwrapped: the parser and schema get the payload, the
   * handler also the `envelope`, the payload hash covers the payload only, and the upstream's
   * id is the default key. A body that none of the declared sources sends is dead-lettered
   * with an `EnvelopeMismatchError`. Behind the construct, `inboxConfigFromEnvironment()` sets it.
   */
  readonly sources?: readonly MessageSource[];
  /**
   * Derives the dedup key: the message's own id, e.g. `({ body }) => body.paymentId`.
   * Required when a source without an upstream id is declared (`sqs`, the default, and
   * `sns-raw`): an SQS-assigned id changes when a DLQ is redriven, so no default can be safe;
   * to accept that risk knowingly, pass `redriveUnsafeMessageIdKey`. Otherwise default: the
   * upstream id (SNS `MessageId`, EventBridge `id`, S3 bucket, object key and `sequencer`).
   */
  readonly key?: (message: ParsedMessage<StandardSchemaV1.InferOutput<TSchema>>) => string;
  /** A Standard Schema v1 validator (zod, valibot, arktype…) applied to the parsed body. */
  readonly schema?: TSchema;
  /**
   * Turns the payload text (the body; for SNS the `Message`) into the value the schema sees;
   * default `JSON.parse`, and for SNS JSON where the text is JSON, the text otherwise. It may
   * be async; a throw or a rejection is the record's `MessageParseError`. EventBridge and S3
   * payloads are JSON already and do not pass through it.
   */
  readonly parser?: (rawBody: string) => unknown;
  /** Lifetime of an inbox entry; default 23 days (one DLQ redrive with SQS's default retention). */
  readonly ttlSeconds?: number;
  /**
   * Records (standard queue) or message groups (FIFO) processed at once, 1 to 1,000. Default:
   * the whole batch, up to 100; with a client of your own given to the store, up to 50, the
   * SDK's default socket pool (set it to match a larger pool).
   */
  readonly concurrency?: number;
  /** Where permanently failing messages go; unset: reported failed, redrive policy decides. */
  readonly deadLetterQueueUrl?: string;
  /** The client used for `deadLetterQueueUrl`; default built lazily from the environment. */
  readonly sqsClient?: SQSClient;
  /**
   * How the batch reads the inbox so that known duplicates skip work (see `Precheck`):
   * `'concurrent'` (default, also `true`): one read alongside the handlers, in series with
   * nothing; `'before'`: that read awaited before the handlers; `'off'` (also `false`): none.
   */
  readonly precheck?: boolean | Precheck;
  /**
   * Commit several messages of a batch in one `TransactWriteItems` (their items distinct,
   * within 100 items and 4 MB), each message's effects still all or nothing; default false.
   * Either way, messages whose update of one item is an unconditional `ADD` of integers share
   * a transaction: the item is written once, adding their amounts, so a hot account takes many
   * messages per transaction, and its table's stream shows one change for them all, not one
   * per message (give an update a `ConditionExpression` to have it written on its own).
   * @beta
   */
  readonly coalesce?: boolean;
  /**
   * Write dedup keys into log lines and the `inbox.key` DLQ attribute; default false: a key can
   * be personal data, so logs carry `keyHash` and the DLQ `inbox.keyHash` instead.
   */
  readonly logKeys?: boolean;
  /**
   * The source queue's redrive `maxReceiveCount`. A record that fails on its last receive is
   * then dead-lettered by the library with its last error as the reason, instead of moved by
   * SQS without one, and the rest of its FIFO group goes on. Needs `deadLetterQueueUrl`.
   * Behind the construct, `inboxConfigFromEnvironment()` sets it; default unset.
   */
  readonly maxReceiveCount?: number;
  /**
   * How long before the Lambda timeout the batch stops waiting for unsettled records and
   * answers, reporting them failed; default 1,000 ms (at most half the remaining time). Only
   * with a Lambda `context`.
   */
  readonly deadlineMarginMillis?: number;
  /**
   * How long a step's lease lasts before a heartbeat renews it, in milliseconds (1,000 to
   * 43,200,000). Default: the invocation's remaining time, so no heartbeat is needed (60,000
   * with a heartbeat when called without a Lambda context). A lease never outlasts the
   * invocation; keep the queue's visibility timeout above it, so a copy redelivered after a
   * timeout finds the lease lapsed.
   */
  readonly leaseMillis?: number;
  /**
   * Attempts per record when DynamoDB answers with throttling, a 5xx or a timeout; default 3. A
   * `TransactionConflict` does not use them up: it is retried after a wait on the scale of one
   * transaction for as long as the batch has time (30 s without a Lambda context).
   */
  readonly transactionAttempts?: number;
  /** Clock in epoch milliseconds; default `Date.now`. Same as `runtime.now`; give one of them. */
  readonly now?: () => number;
  /**
   * The clock, the retry backoff's sleep and randomness, and the deadline's timer, method by
   * method; default the system's. A test or a simulation passes its own so that no global is
   * read while records are processed.
   */
  readonly runtime?: Partial<InboxRuntime>;
  /** Structured logger; default JSON lines on the console. A logger that throws fails nothing. */
  readonly logger?: InboxLogger;
  /** Metrics sink; default none. */
  readonly metrics?: InboxMetrics;
}

/**
 * The outcome of one record of a batch.
 *
 * @example
 * ```ts
 * const failed = outcomes.filter((o) => o.status === RecordStatus.Failed);
 * ```
 * @public
 */
export interface RecordOutcome {
  /** The SQS message id of the record. */
  readonly messageId: string;
  /** What happened to it: processed, a duplicate, dead-lettered, failed, skipped or ignored. */
  readonly status: RecordStatus;
  /** Its dedup key, once derived. */
  readonly key?: string;
  /** Why it failed or was dead-lettered. */
  readonly error?: unknown;
}

/**
 * The options the per-record engine works with: a processor's settings and the store port it
 * commits through (a `DynamoDBInboxStore` behind the public `InboxOptions`). Internal.
 *
 * @example
 * ```ts
 * const resolved = resolveOptions(options as ProcessorOptions<typeof PaymentSchema>);
 * ```
 */
export interface ProcessorOptions<TSchema extends StandardSchemaV1 = StandardSchemaV1<unknown>>
  extends ProcessorSettings<TSchema> {
  /** Where inbox entries live and where the transaction is committed. */
  readonly store: InboxStore;
}
