import type { Context, SQSRecord } from 'aws-lambda';
import type { CommitCoalescer } from '../coalescing/CommitCoalescer.js';
import { InboxMetric, Precheck, RecordStatus, TransientReason } from '../constants/values.js';
import {
  buildEntry,
  type InboxEntry,
  inboxPk,
  isCommitted,
  toEpochSeconds,
} from '../core/inboxEntry.js';
import { loggedKey } from '../core/loggedKey.js';
import { type RecordObservation, UNOBSERVED } from '../core/RecordObservation.js';
import { type RecordRead, readRecord } from '../core/readMessage.js';
import type { ResolvedOptions } from '../core/resolveOptions.js';
import { type ConflictRetry, reportedConflict, retryTransient } from '../core/retryTransient.js';
import { loggableError, type MessageIdentity, settleFailure } from '../core/settleFailure.js';
import { type OpenTransaction, openTransaction } from '../core/TransactionBuilder.js';
import type { MessageHandler, RecordOutcome } from '../core/types.js';
import { TransientStoreError } from '../errors.js';
import type { BatchPrecheck } from '../precheck/BatchPrecheck.js';
import type { SourceNotice } from '../sources/MessageSource.js';
import { MessageSteps } from '../steps/MessageSteps.js';
import {
  acknowledgeDuplicate,
  type PayloadHashes,
  type StepLessMessage,
  throwIfLeaseHeld,
  throwIfOtherPayload,
} from './judgeExisting.js';
import { recordFailedAttempt } from './recordFailedAttempt.js';
import { sendCommit } from './sendCommit.js';

/**
 * What the batch gives each of its records: the signal aborted at its deadline, the record
 * already being read (the batch reads every record up front to learn the keys), and the
 * batch's pre-check read.
 *
 * @example
 * ```ts
 * await processRecord(record, context, handler, options, { signal, read, precheck });
 * ```
 */
export interface RecordInBatch {
  readonly signal?: AbortSignal;
  readonly read?: Promise<RecordRead>;
  readonly precheck?: BatchPrecheck | undefined;
  /**
   * Sends the record's commit, shared with the batch's others (all with `coalesce`, only on a
   * mergeable update of one item without) and never in flight with one sharing an item; unset:
   * its own, sent at once.
   */
  readonly coalescer?: CommitCoalescer | undefined;
  /**
   * Until when a `TransactionConflict` is retried in the invocation, in epoch milliseconds:
   * unbounded under a deadline (the signal stops it); unset: a budget from now.
   */
  readonly conflictsUntilMillis?: number;
  /** The record's span and outcome line, which its key, attempts and steps are noted to. */
  readonly observation?: RecordObservation;
}

/** How long conflicts are retried in a call with no Lambda context, hence no deadline. */
export const NO_DEADLINE_CONFLICT_MILLIS = 30_000;

/**
 * Runs one SQS record through the inbox: parse, validate, derive the key, skip a known
 * duplicate, run the handler, and commit its operations with the inbox entry in one
 * transaction. Never throws: every failure becomes an outcome, so one record cannot take
 * the batch down. A permanent failure goes to the dead-letter queue when one is configured.
 *
 * @example
 * ```ts
 * const outcome = await processRecord(record, context, handler, resolvedOptions);
 * if (outcome.status === 'failed') console.log(outcome.error);
 * ```
 */
export async function processRecord(
  record: SQSRecord,
  context: Context | undefined,
  handler: MessageHandler<unknown>,
  options: ResolvedOptions,
  batch: RecordInBatch = {},
): Promise<RecordOutcome> {
  const signal = batch.signal ?? new AbortController().signal;
  let identity: MessageIdentity | undefined;
  let steps: MessageSteps | undefined;
  try {
    const outcome = await (batch.read ?? readRecord(record, options));
    identity = outcome.identity;
    if ('error' in outcome) throw outcome.error;
    const { read } = outcome;
    if ('notice' in read) return acknowledgeNotice(read, options);
    const message = { ...read.message, key: read.key, context, signal };
    const { key, payloadHash, bodyHash } = read;
    const observation = batch.observation ?? UNOBSERVED;
    observation.noteKey(key);
    const target = {
      consumer: options.consumer,
      key,
      messageId: record.messageId,
      payloadHash,
      bodyHash,
    };
    const conflicts: ConflictRetry = {
      backoff: options.conflictBackoff,
      untilMillis:
        batch.conflictsUntilMillis ?? options.runtime.now() + NO_DEADLINE_CONFLICT_MILLIS,
    };
    steps = new MessageSteps(target, options, context, signal, conflicts, observation);
    const { precheck, coalescer } = batch;
    const attempt = { handler, options, steps, precheck, coalescer, conflicts, observation };
    return await processWithRetries(message, read, attempt);
  } catch (error) {
    // A lease this record holds is released with its journal kept, before the failure settles.
    await steps?.release(error);
    // The batch answered at its deadline without this record (reported failed then): what it
    // ends with now is only logged, never dead-lettered, not counted twice, and not recorded.
    if (signal.aborted) return settledLate(record, identity?.key, error, options);
    const attempt = {
      messageId: record.messageId,
      identity,
      error,
      leaseSought: !!steps?.leaseSought,
    };
    const [outcome] = await Promise.all([
      settleFailure(record, identity, error, options, signal),
      recordFailedAttempt(attempt, options),
    ]);
    return outcome;
  } finally {
    steps?.stop();
  }
}

/** A record that is no event (S3's test event): acknowledged, with no entry and no handler. */
function acknowledgeNotice(notice: SourceNotice, options: ResolvedOptions): RecordOutcome {
  options.logger.info('acknowledged a notice that is no event, without running the handler', {
    consumer: options.consumer,
    messageId: notice.record.messageId,
    notice: notice.notice,
  });
  return { messageId: notice.record.messageId, status: RecordStatus.Ignored };
}

function settledLate(
  record: SQSRecord,
  key: string | undefined,
  error: unknown,
  options: ResolvedOptions,
): RecordOutcome {
  options.logger.debug('record settled after its batch answered at the deadline', {
    consumer: options.consumer,
    ...loggedKey(key, options.logKeys),
    messageId: record.messageId,
    error: loggableError(error),
  });
  return { messageId: record.messageId, key, status: RecordStatus.Failed, error };
}

/** What every attempt of one record runs with. */
interface Attempt {
  readonly handler: MessageHandler<unknown>;
  readonly options: ResolvedOptions;
  readonly steps: MessageSteps;
  readonly precheck: BatchPrecheck | undefined;
  readonly coalescer: CommitCoalescer | undefined;
  readonly conflicts: ConflictRetry;
  readonly observation: RecordObservation;
}

async function processWithRetries(
  message: StepLessMessage,
  hashes: PayloadHashes,
  attempt: Attempt,
): Promise<RecordOutcome> {
  const { options } = attempt;
  return retryTransient(() => attemptOnce(message, hashes, attempt), {
    attempts: options.transactionAttempts,
    runtime: options.runtime,
    signal: message.signal,
    conflicts: attempt.conflicts,
    onRetry: (attempt, error) => {
      if (reportedConflict(error))
        options.metrics?.addMetric(InboxMetric.ConflictsRetried, 'Count', 1);
      options.logger.debug('transient DynamoDB failure, retrying', {
        consumer: options.consumer,
        ...loggedKey(message.key, options.logKeys),
        messageId: message.messageId,
        attempt,
        reason: error.reason,
      });
    },
  });
}

async function attemptOnce(
  message: StepLessMessage,
  hashes: PayloadHashes,
  attempt: Attempt,
): Promise<RecordOutcome> {
  const { options, steps } = attempt;
  const pk = inboxPk(options.consumer, message.key);
  const known = await knownDuplicate(message, hashes, attempt, pk);
  if (known !== undefined) return acknowledgeDuplicate(message, hashes, known, options);
  message.signal.throwIfAborted();
  // A step a previous run left running settles first: this run replays it, never runs it again.
  await steps.settle();
  const startedMillis = options.runtime.now();
  const transaction = await runHandler(message, attempt);
  const committed = steps.committedEntry ?? seenCommitted(attempt, pk);
  if (committed !== undefined) return acknowledgeDuplicate(message, hashes, committed, options);
  options.metrics?.addMetric(
    InboxMetric.HandlerLatency,
    'Milliseconds',
    options.runtime.now() - startedMillis,
  );
  return commitAttempt(message, hashes, attempt, transaction);
}

/**
 * The committed entry the batch's read found for the record's key, before its handler runs;
 * another payload under the key, or another attempt's live lease, fail the record. The record's
 * own lease (a retry after a transient commit failure) is no other's: it skips the read.
 */
async function knownDuplicate(
  message: StepLessMessage,
  hashes: PayloadHashes,
  { options, steps, precheck }: Attempt,
  pk: string,
): Promise<InboxEntry | undefined> {
  if (precheck === undefined || steps.lease !== undefined) return undefined;
  const existing = precheck.mode === Precheck.Before ? await precheck.answer(pk) : precheck.now(pk);
  if (existing && isCommitted(existing, toEpochSeconds(options.runtime.now()))) {
    return existing;
  }
  if (existing) {
    throwIfOtherPayload(message, hashes, existing, options);
    throwIfLeaseHeld(existing, options);
  }
  return undefined;
}

/**
 * Runs the handler with its transaction and its steps, and closes both. A throw after a step's
 * claim found the message committed is the duplicate's, not the record's failure.
 */
async function runHandler(
  message: StepLessMessage,
  { handler, options, steps }: Attempt,
): Promise<OpenTransaction> {
  const transaction = openTransaction({
    consumer: options.consumer,
    key: message.key,
    outboxTableName: options.store.outboxTableName,
  });
  const run = steps.startRun();
  try {
    await handler({ ...message, step: run.step }, transaction.tx);
  } catch (error) {
    if (steps.committedEntry === undefined) throw error;
  } finally {
    transaction.close(message.messageId);
    run.close();
  }
  return transaction;
}

/** The batch's read answered while the handler ran: a duplicate it saw is spared its commit. */
function seenCommitted({ options, steps, precheck }: Attempt, pk: string): InboxEntry | undefined {
  const seen = steps.lease === undefined ? precheck?.now(pk) : undefined;
  return seen && isCommitted(seen, toEpochSeconds(options.runtime.now())) ? seen : undefined;
}

/**
 * Commits the handler's writes with the inbox entry, in one transaction: a committed record, or
 * the duplicate of the entry that won; another payload, a live lease or an entry taken and freed
 * again (a conflict to retry) fail it. Past the batch's deadline the record was reported failed,
 * so it is not committed then.
 */
async function commitAttempt(
  message: StepLessMessage,
  hashes: PayloadHashes,
  attempt: Attempt,
  transaction: OpenTransaction,
): Promise<RecordOutcome> {
  const { options, steps, precheck, observation } = attempt;
  message.signal.throwIfAborted();
  const lease = await steps.beforeCommit();
  // The outbox items keep the record span's context: the relay continues the trace from it.
  const traceparent = observation.traceparent();
  const nowMillis = options.runtime.now();
  const entry = buildEntry({
    ...message,
    consumer: options.consumer,
    payloadHash: hashes.payloadHash,
    nowMillis,
    ttlSeconds: options.ttlSeconds,
  });
  const request = {
    entry,
    operations: transaction.operations,
    outgoing: transaction.outgoing,
    nowEpochSeconds: toEpochSeconds(nowMillis),
    nowMillis,
    payloadHashes: [hashes.payloadHash, hashes.bodyHash],
    ...(lease === undefined ? {} : { lease }),
    ...(traceparent === undefined ? {} : { traceparent }),
  };
  const result = await sendCommit(request, message.signal, attempt);
  if (!result.committed && !isCommitted(result.existing, toEpochSeconds(nowMillis))) {
    throwIfOtherPayload(message, hashes, result.existing, options);
    throwIfLeaseHeld(result.existing, options);
    throw new TransientStoreError(TransientReason.TransactionConflict, undefined);
  }
  if (!result.committed) return acknowledgeDuplicate(message, hashes, result.existing, options);
  precheck?.remember(entry);
  logCommitted(message, transaction, options);
  return { messageId: message.messageId, key: message.key, status: RecordStatus.Processed };
}

function logCommitted(
  message: StepLessMessage,
  transaction: OpenTransaction,
  options: ResolvedOptions,
): void {
  options.metrics?.addMetric(InboxMetric.Processed, 'Count', 1);
  options.logger.debug('message committed', {
    consumer: options.consumer,
    ...loggedKey(message.key, options.logKeys),
    messageId: message.messageId,
    operations: transaction.operations.length,
    published: transaction.outgoing.length,
  });
}
