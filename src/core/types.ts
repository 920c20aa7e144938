import type { Context, SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import type { RecordStatus } from '../constants/values.js';
import type { MessageEnvelope } from '../sources/MessageSource.js';
import type { StepFunction } from './StepFunction.js';
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
 * import { Logger } from '@aws-lambda-powertools/logger';
 * const logger: InboxLogger = new Logger({ serviceName: 'ledger' });
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
 * import { Metrics } from '@aws-lambda-powertools/metrics';
 * const metrics: InboxMetrics = new Metrics({ namespace: 'shop' });
 * ```
 * @public
 */
export interface InboxMetrics {
  /** Adds one value to a metric (the names are in `InboxMetric`, `sqs-inbox/constants`). */
  addMetric(name: string, unit: 'Count' | 'Milliseconds' | 'Seconds', value: number): void;
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
