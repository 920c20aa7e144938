import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import pLimit from 'p-limit';
import { InboxMetric } from './constants.js';
import { InvalidConfigurationError } from './errors.js';
import { processRecord } from './processRecord.js';
import { type ResolvedOptions, resolveOptions } from './resolveOptions.js';
import { groupRecords, readSqsRecords } from './sqsEvent.js';
import {
  type InboxOptions,
  type MessageHandler,
  type RecordOutcome,
  RecordStatus,
} from './types.js';

/**
 * A configured batch processor: options are validated once, when it is created.
 *
 * @example
 * ```ts
 * const processor = createBatchProcessor(handler, { store, consumer: 'ledger' });
 * export const lambdaHandler = (event: SQSEvent) => processor.process(event);
 * ```
 */
export interface BatchProcessor {
  /** Processes an SQS event and returns the partial batch response for Lambda. */
  process(event: unknown): Promise<SQSBatchResponse>;
  /** Processes an SQS event and returns each record's outcome, in the event's order. */
  processRecords(event: unknown): Promise<RecordOutcome[]>;
}

/**
 * Creates a {@link BatchProcessor} for a per-message handler. Records of a standard queue run
 * concurrently, up to `concurrency`; records of a FIFO queue run one at a time per message
 * group, in order, with up to `concurrency` groups at once, and after a failure the group's
 * remaining records are reported failed without running, so SQS redelivers them in order.
 *
 * @example
 * ```ts
 * const processor = createBatchProcessor(async ({ body }, tx) => {
 *   tx.put({ TableName: 'orders', Item: { orderId: body.orderId } });
 * }, { store, consumer: 'orders' });
 * ```
 */
export function createBatchProcessor<TSchema extends StandardSchemaV1 = StandardSchemaV1<unknown>>(
  handler: MessageHandler<StandardSchemaV1.InferOutput<TSchema>>,
  options: InboxOptions<TSchema>,
): BatchProcessor {
  if (typeof handler !== 'function') {
    throw new InvalidConfigurationError(
      'handler',
      handler,
      'a function (message, tx) => Promise<void>',
    );
  }
  const resolved = resolveOptions(options);
  const run = handler as MessageHandler<unknown>;
  const processRecords = (event: unknown) => processEvent(event, run, resolved);
  return {
    processRecords,
    process: async (event) => toBatchResponse(await processRecords(event)),
  };
}

/**
 * Processes one SQS batch event with the transactional inbox and returns the partial batch
 * response (`batchItemFailures`) that Lambda expects with `ReportBatchItemFailures`. Options
 * are validated on every call; create a processor with {@link createBatchProcessor} once per
 * container to validate them only once.
 *
 * @example
 * ```ts
 * export const handler = (event: SQSEvent) =>
 *   processSqsBatch(event, async ({ body }, tx) => {
 *     tx.put({ TableName: 'orders', Item: { orderId: body.orderId } });
 *   }, { store, consumer: 'orders' });
 * ```
 */
export function processSqsBatch<TSchema extends StandardSchemaV1 = StandardSchemaV1<unknown>>(
  event: unknown,
  handler: MessageHandler<StandardSchemaV1.InferOutput<TSchema>>,
  options: InboxOptions<TSchema>,
): Promise<SQSBatchResponse> {
  return createBatchProcessor(handler, options).process(event);
}

async function processEvent(
  event: unknown,
  handler: MessageHandler<unknown>,
  options: ResolvedOptions,
): Promise<RecordOutcome[]> {
  const records = readSqsRecords(event);
  const limit = pLimit(options.concurrency);
  const groups = groupRecords(records);
  const settled = await Promise.all(
    groups.map((group) => limit(() => processGroup(group, handler, options))),
  );
  const byMessageId = new Map(settled.flat().map((outcome) => [outcome.messageId, outcome]));
  const outcomes = records.map((record) => byMessageId.get(record.messageId) ?? skipped(record));
  logSummary(outcomes, options);
  return outcomes;
}

async function processGroup(
  group: readonly SQSRecord[],
  handler: MessageHandler<unknown>,
  options: ResolvedOptions,
): Promise<RecordOutcome[]> {
  const outcomes: RecordOutcome[] = [];
  for (const record of group) {
    const blocked = outcomes.some((outcome) => outcome.status === RecordStatus.Failed);
    outcomes.push(blocked ? skipped(record) : await processRecord(record, handler, options));
  }
  const skippedCount = outcomes.filter((outcome) => outcome.status === RecordStatus.Skipped).length;
  if (skippedCount > 0) {
    options.metrics?.addMetric(InboxMetric.Failures, 'Count', skippedCount);
    options.logger.warn(
      'FIFO group stopped after a failure; its later records are reported failed',
      {
        consumer: options.consumer,
        messageGroupId: group[0]?.attributes.MessageGroupId,
        skipped: skippedCount,
      },
    );
  }
  return outcomes;
}

function skipped(record: SQSRecord): RecordOutcome {
  return { messageId: record.messageId, status: RecordStatus.Skipped };
}

function toBatchResponse(outcomes: readonly RecordOutcome[]): SQSBatchResponse {
  const failed = outcomes.filter(
    (o) => o.status === RecordStatus.Failed || o.status === RecordStatus.Skipped,
  );
  return { batchItemFailures: failed.map((outcome) => ({ itemIdentifier: outcome.messageId })) };
}

function logSummary(outcomes: readonly RecordOutcome[], options: ResolvedOptions): void {
  const counts: Record<string, number> = {};
  for (const { status } of outcomes) counts[status] = (counts[status] ?? 0) + 1;
  options.logger.info('batch processed', {
    consumer: options.consumer,
    records: outcomes.length,
    ...counts,
  });
}
