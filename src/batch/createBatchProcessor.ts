import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { Context, SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { DeadLetterPublisher } from '../aws/DeadLetterPublisher.js';
import { SqsVisibilityChanger } from '../aws/SqsVisibilityChanger.js';
import { type CoalescingStore, CommitCoalescer } from '../coalescing/CommitCoalescer.js';
import { InboxMetric, RecordStatus } from '../constants/values.js';
import { inboxPk } from '../core/inboxEntry.js';
import { type RecordRead, readRecord } from '../core/readMessage.js';
import { type ResolvedOptions, resolveOptions } from '../core/resolveOptions.js';
import { settleFailure } from '../core/settleFailure.js';
import type { MessageHandler, RecordOutcome } from '../core/types.js';
import { InvalidConfigurationError } from '../errors.js';
import { BatchPrecheck } from '../precheck/BatchPrecheck.js';
import {
  NO_DEADLINE_CONFLICT_MILLIS,
  processRecord,
  type RecordInBatch,
} from '../record/processRecord.js';
import type { InboxOptions } from './InboxOptions.js';
import { mapConcurrently } from './mapConcurrently.js';
import { type ObservedRecord, observeRecord, settleObservations } from './RecordObserver.js';
import { refuseMiddlewareUse } from './refuseMiddlewareUse.js';
import { retimeFailures } from './retimeFailures.js';
import { retriedBySqs } from './retriedBySqs.js';
import { groupRecords, readSqsRecords } from './sqsEvent.js';
import { startDeadline } from './startDeadline.js';

/**
 * A configured batch processor: options are validated once, when it is created.
 *
 * @example
 * ```ts
 * import type { SQSEvent } from 'aws-lambda';
 * // ---cut---
 * const processor = createBatchProcessor(handler, {
 *   store, consumer: 'ledger', schema: PaymentSchema, key: ({ body }) => body.paymentId,
 * });
 * export const lambdaHandler = (event: SQSEvent) => processor.process(event);
 * ```
 * @public
 */
export interface BatchProcessor {
  /**
   * Processes an SQS event and returns the partial batch response for Lambda. It is a Lambda
   * handler as it stands (`export const handler = processor.process`), and a middy base
   * handler; the Lambda `context` reaches each message as `message.context`.
   */
  process(event: unknown, context?: Context): Promise<SQSBatchResponse>;
  /** Processes an SQS event and returns each record's outcome, in the event's order. */
  processRecords(event: unknown, context?: Context): Promise<RecordOutcome[]>;
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
 *   tx.put({ TableName: 'payments', Item: body });
 * }, { store, consumer: 'ledger', schema: PaymentSchema, key: ({ body }) => body.paymentId });
 * ```
 * @public
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
  const resolved = resolveOptions(options, (url, client) => new DeadLetterPublisher(url, client));
  resolved.store.expectConcurrency?.(resolved.concurrency);
  const run = handler as MessageHandler<unknown>;
  const changer = resolved.retry && new SqsVisibilityChanger(resolved.retry.client);
  const processRecords = (event: unknown, context?: Context) =>
    processEvent(event, context, run, resolved, changer);
  const process = async (event: unknown, context?: Context) =>
    toBatchResponse(await processRecords(event, context));
  return { processRecords, process: refuseMiddlewareUse(process) };
}

/**
 * Processes one SQS batch event with the transactional inbox and returns the partial batch
 * response (`batchItemFailures`) that Lambda expects with `ReportBatchItemFailures`. Options
 * are validated on every call; create a processor with {@link createBatchProcessor} once per
 * container to validate them only once.
 *
 * @example
 * ```ts
 * import type { SQSEvent } from 'aws-lambda';
 * // ---cut---
 * export const handler = (event: SQSEvent) =>
 *   processSqsBatch(event, async ({ body }, tx) => {
 *     tx.put({ TableName: 'payments', Item: body });
 *   }, { store, consumer: 'ledger', schema: PaymentSchema, key: ({ body }) => body.paymentId });
 * ```
 * @public
 */
export function processSqsBatch<TSchema extends StandardSchemaV1 = StandardSchemaV1<unknown>>(
  event: unknown,
  handler: MessageHandler<StandardSchemaV1.InferOutput<TSchema>>,
  options: InboxOptions<TSchema>,
  context?: Context,
): Promise<SQSBatchResponse> {
  return createBatchProcessor(handler, options).process(event, context);
}

async function processEvent(
  event: unknown,
  context: Context | undefined,
  handler: MessageHandler<unknown>,
  options: ResolvedOptions,
  changer?: SqsVisibilityChanger,
): Promise<RecordOutcome[]> {
  const invocationStartMillis = options.runtime.now();
  const records = readSqsRecords(event);
  const deadline = startDeadline(context, options.deadlineMarginMillis, options.runtime);
  const signal = deadline?.signal ?? new AbortController().signal;
  // By record, not by messageId: one message can come twice in a batch.
  const settled = new Map<SQSRecord, RecordOutcome>();
  const reads = readUpFront(records, options);
  const precheck = BatchPrecheck.start(keysOf(reads, options), options);
  const conflictsUntilMillis = deadline
    ? Number.POSITIVE_INFINITY
    : options.runtime.now() + NO_DEADLINE_CONFLICT_MILLIS;
  const coalescer = coalescerFor(options, precheck, conflictsUntilMillis);
  const batch = { signal, precheck, coalescer, conflictsUntilMillis };
  const observed = new Map<SQSRecord, ObservedRecord>();
  const run = { context, handler, options, settled, reads, batch, observed };
  const work = mapConcurrently(groupRecords(records), options.concurrency, (group) =>
    processGroup(group, run),
  );
  let inTime: ReadonlySet<SQSRecord> = new Set();
  let outcomes: RecordOutcome[] = [];
  try {
    await (deadline ? Promise.race([work, deadline.reached]) : work);
    inTime = new Set(settled.keys());
    outcomes = await Promise.all(
      records.map(
        (record) =>
          settled.get(record) ?? settleFailure(record, undefined, signal.reason, options, signal),
      ),
    );
    // Before the answer, within the deadline: Lambda deletes successes only, so it stands.
    const { retry } = options;
    if (changer && retry) {
      const batch = { options: { ...options, retry }, changer, signal, invocationStartMillis };
      await retimeFailures(records, outcomes, batch);
    }
  } finally {
    deadline?.cancel();
  }
  settleObservations(records, outcomes, observed, inTime, options);
  logSummary(outcomes, options);
  // One metrics document per batch, at its deadline too: what a record still running adds
  // after it goes with the next batch's.
  options.flushMetrics();
  return outcomes;
}

/**
 * Every record read up to its key as the batch starts, at most `concurrency` at a time as
 * their processing would, so that the pre-check can read all the keys at once.
 */
function readUpFront(
  records: readonly SQSRecord[],
  options: ResolvedOptions,
): Map<SQSRecord, Promise<RecordRead>> {
  const reads = new Map<SQSRecord, Promise<RecordRead>>();
  const pending = new Map<SQSRecord, (read: Promise<RecordRead>) => void>();
  for (const record of records) {
    reads.set(record, new Promise((resolve) => pending.set(record, resolve)));
  }
  void mapConcurrently(records, options.concurrency, async (record) => {
    const read = readRecord(record, options);
    pending.get(record)?.(read);
    await read;
  });
  return reads;
}

/** The inbox keys of the records that read up to one. */
async function keysOf(
  reads: ReadonlyMap<SQSRecord, Promise<RecordRead>>,
  options: ResolvedOptions,
): Promise<string[]> {
  const outcomes = await Promise.all(reads.values());
  return outcomes.flatMap((outcome) =>
    'read' in outcome && 'key' in outcome.read ? [inboxPk(options.consumer, outcome.read.key)] : [],
  );
}

interface GroupRun {
  readonly context: Context | undefined;
  readonly handler: MessageHandler<unknown>;
  readonly options: ResolvedOptions;
  /** Each record's outcome, set as it settles. */
  readonly settled: Map<SQSRecord, RecordOutcome>;
  /** Each record's read up to its key, started as the batch starts. */
  readonly reads: ReadonlyMap<SQSRecord, Promise<RecordRead>>;
  /** What the batch shares with each record; its signal aborts at the deadline. */
  readonly batch: Omit<RecordInBatch, 'read'> & { readonly signal: AbortSignal };
  /** Each started record's span and outcome line. */
  readonly observed: Map<SQSRecord, ObservedRecord>;
}

/**
 * The batch's coalescer: with `coalesce`, commits share transactions (`resolveOptions` made sure
 * the store can); without, only those that update one item mergeably do, and no two commits
 * sharing an item are in flight at once, so the batch never conflicts with itself. A store
 * that cannot share a transaction has its commits sent as they come.
 */
function coalescerFor(
  options: ResolvedOptions,
  precheck: BatchPrecheck | undefined,
  conflictsUntilMillis: number,
): CommitCoalescer | undefined {
  const { store } = options;
  const { prepareCommit, commitPrepared, commitTogether } = store;
  if (!prepareCommit || !commitPrepared || !commitTogether) return undefined;
  return new CommitCoalescer(store as CoalescingStore, {
    runtime: options.runtime,
    logger: options.logger,
    metrics: options.metrics,
    consumer: options.consumer,
    attempts: options.transactionAttempts,
    precheck,
    conflictBackoff: options.conflictBackoff,
    conflictsUntilMillis,
    sameItemOnly: !options.coalesce,
  });
}

async function processGroup(group: readonly SQSRecord[], run: GroupRun): Promise<void> {
  const { context, handler, options, settled, reads, batch } = run;
  const outcomes: RecordOutcome[] = [];
  for (const record of group) {
    if (batch.signal.aborted) return; // the batch answered without this group's remaining records
    const blocked = outcomes.some((outcome) => outcome.status === RecordStatus.Failed);
    const observation = observeRecord(record, options);
    run.observed.set(record, observation);
    const outcome = blocked
      ? skipped(record)
      : await observation.withActive(() =>
          processRecord(record, context, handler, options, {
            ...batch,
            read: reads.get(record),
            observation,
          }),
        );
    outcomes.push(outcome);
    settled.set(record, outcome);
    // Past the deadline the batch settles it, with what it answers for the record.
    if (!batch.signal.aborted) observation.settle(outcome, false);
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
}

function skipped(record: SQSRecord): RecordOutcome {
  return { messageId: record.messageId, status: RecordStatus.Skipped };
}

function toBatchResponse(outcomes: readonly RecordOutcome[]): SQSBatchResponse {
  const failed = outcomes.filter(retriedBySqs);
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
