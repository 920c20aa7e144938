import type { SQSRecord } from 'aws-lambda';
import { InboxMetric, RecordStatus } from '../constants/values.js';
import { FormatVersionError, InboxTableSchemaError, PermanentError } from '../errors.js';
import type { DeadLetterSink, KeyAttributes } from './DeadLetterSink.js';
import { inboxPk, isCommitted, toEpochSeconds } from './inboxEntry.js';
import { type LoggedKey, loggedKey } from './loggedKey.js';
import type { ResolvedOptions } from './resolveOptions.js';
import type { RecordOutcome } from './types.js';

type Report = { why: string; context: Record<string, unknown>; failed: RecordOutcome };

/**
 * What a record was read as, once it was: its key, and the payload hashes an entry committed
 * for it may hold (the payload's, and the whole body's of entries written before its source
 * was declared).
 *
 * @example
 * ```ts
 * const identity: MessageIdentity = { key: 'sns:5f1c…', payloadHashes: [payloadHash, bodyHash] };
 * ```
 */
export interface MessageIdentity {
  readonly key: string;
  readonly payloadHashes: readonly string[];
  /** The message attributes the key was read from (none for an upstream id), when asked. */
  readonly keyAttributes?: () => KeyAttributes;
}

/**
 * Turns a record's failure into its outcome. A permanent failure is dead-lettered with its
 * reason (or reported failed for the redrive policy when there is no DLQ). A retryable one is
 * reported failed so SQS delivers it again — unless this is its last receive
 * (`maxReceiveCount`): then the library dead-letters it itself with its last error, rather than
 * let SQS move it without a reason, and a FIFO group goes on behind it. Before either, the
 * inbox is read: a message whose key already committed with this body is acknowledged as a
 * duplicate instead, so a DLQ message carrying `inbox.error` had no committed entry when it was
 * sent. Once `batchAnswered` is aborted (the batch answered at its deadline and reported the
 * record failed), the record is never dead-lettered: SQS redelivers it, so a copy must not also
 * go to the DLQ. That holds for a record given up while it ran, and for one whose failure was
 * still being settled (its inbox read) when the deadline passed.
 *
 * @example
 * ```ts
 * return settleFailure(record, identity, error, options, signal); // never throws
 * ```
 */
export async function settleFailure(
  record: SQSRecord,
  identity: MessageIdentity | undefined,
  error: unknown,
  options: ResolvedOptions,
  batchAnswered?: AbortSignal,
): Promise<RecordOutcome> {
  const { context, failed, logged } = describeFailure(record, identity, error, options);
  const permanent = error instanceof PermanentError;
  if (batchAnswered?.aborted || (!permanent && !isLastReceive(record, options))) {
    return leftToSqs(record, context, failed, options, batchAnswered);
  }
  const report = {
    why: permanent ? 'failed permanently' : 'failed on its last receive',
    context,
    failed,
  };
  // A handler run again after its own commit (an answer lost, a crash before the delete) may
  // refuse or fail: the message is then a duplicate, not a failure.
  const committed = await committedAlready(record, identity, error, options, report);
  if (committed !== undefined) return committed;
  // The batch answered at its deadline while the inbox was read: it counted and reported the
  // record failed, so SQS redelivers it; a copy in the DLQ too would be one message twice.
  if (batchAnswered?.aborted) {
    reportAnsweredAtTheDeadline(record, `${report.why}, but meanwhile`, context, options);
    return failed;
  }
  options.metrics?.addMetric(InboxMetric.Failures, 'Count', 1);
  if (permanent) options.metrics?.addMetric(InboxMetric.PermanentFailures, 'Count', 1);
  if (options.deadLetter === undefined) {
    options.logger.error(`message ${report.why}; reported failed for the redrive policy`, context);
    return failed;
  }
  return deadLetter(record, { error, logged, identity }, options, options.deadLetter, report);
}

/** The log context and the failed outcome of a record, its key as `logKeys` allows. */
function describeFailure(
  record: SQSRecord,
  identity: MessageIdentity | undefined,
  error: unknown,
  options: ResolvedOptions,
) {
  const key = identity?.key;
  const logged = loggedKey(key, options.logKeys);
  const context = {
    consumer: options.consumer,
    ...logged,
    messageId: record.messageId,
    error: loggableError(error),
  };
  const failed: RecordOutcome = {
    messageId: record.messageId,
    key,
    status: RecordStatus.Failed,
    error,
  };
  return { context, failed, logged };
}

/**
 * A retryable failure before the last receive, or any failure once the batch answered at its
 * deadline: reported failed, and SQS delivers the message again.
 */
function leftToSqs(
  record: SQSRecord,
  context: Record<string, unknown>,
  failed: RecordOutcome,
  options: ResolvedOptions,
  batchAnswered: AbortSignal | undefined,
): RecordOutcome {
  options.metrics?.addMetric(InboxMetric.Failures, 'Count', 1);
  if (batchAnswered?.aborted) {
    reportAnsweredAtTheDeadline(record, 'had not settled when', context, options);
    return failed;
  }
  options.logger.warn('message failed, SQS will redeliver it', context);
  return failed;
}

/**
 * The outcome when the message must not be dead-lettered after all: its key committed with
 * this body (a duplicate), or the inbox could not be read (reported failed, tried again later);
 * an entry of a newer format version is read as no commit this release knows of.
 */
async function committedAlready(
  record: SQSRecord,
  identity: MessageIdentity | undefined,
  error: unknown,
  options: ResolvedOptions,
  report: Report,
): Promise<RecordOutcome | undefined> {
  // Without a key nothing can have committed; with the wrong inbox table nothing could.
  if (identity === undefined || error instanceof InboxTableSchemaError) return undefined;
  const { key, payloadHashes } = identity;
  try {
    const existing = await options.store.find(inboxPk(options.consumer, key));
    const live = existing && isCommitted(existing, toEpochSeconds(options.runtime.now()));
    if (!live || !payloadHashes.includes(existing.payloadHash)) return undefined;
  } catch (findError) {
    // An entry of a newer format: whether it committed this release cannot tell. Dead-lettered
    // with its reason, the message is a duplicate when redriven to an upgraded consumer.
    if (findError instanceof FormatVersionError) return undefined;
    options.metrics?.addMetric(InboxMetric.Failures, 'Count', 1);
    options.logger.warn(
      `message ${report.why}; the inbox could not be read, so it is not dead-lettered but reported failed`,
      {
        ...report.context,
        findError: loggableError(findError),
      },
    );
    return report.failed;
  }
  options.metrics?.addMetric(InboxMetric.Duplicates, 'Count', 1);
  options.logger.info(
    `message ${report.why}, but its key had committed: acknowledged as a duplicate`,
    report.context,
  );
  return { messageId: record.messageId, key, status: RecordStatus.Duplicate };
}

async function deadLetter(
  record: SQSRecord,
  failure: {
    error: unknown;
    logged: LoggedKey | undefined;
    identity: MessageIdentity | undefined;
  },
  options: ResolvedOptions,
  sink: DeadLetterSink,
  report: Report,
): Promise<RecordOutcome> {
  const { error, logged, identity } = failure;
  const needs =
    identity === undefined
      ? undefined
      : { key: identity.key, keyAttributes: identity.keyAttributes?.() ?? [] };
  try {
    await sink.send(record, error, options.consumer, logged, needs);
  } catch (sendError) {
    options.logger.error(`message ${report.why} and could not be dead-lettered; reported failed`, {
      ...report.context,
      sendError: loggableError(sendError),
    });
    return { ...report.failed, error: sendError };
  }
  options.metrics?.addMetric(InboxMetric.DeadLettered, 'Count', 1);
  options.logger.error(`message ${report.why}; sent to the dead-letter queue`, {
    ...report.context,
    queueUrl: sink.queueUrl,
  });
  return { ...report.failed, status: RecordStatus.DeadLettered };
}

/**
 * Logs a record its batch reported failed at the deadline: never dead-lettered by the library
 * then (a commit may still land, and SQS has it as failed). On its last receive the queue's
 * redrive policy moves it without `inbox.error`, keeping its messageId: the ERROR line pairs
 * that id with the reason.
 */
function reportAnsweredAtTheDeadline(
  record: SQSRecord,
  what: string,
  context: Record<string, unknown>,
  options: ResolvedOptions,
): void {
  if (isLastReceive(record, options)) {
    options.logger.error(
      `message ${what} its batch answered at the deadline, on its last receive: not dead-lettered; the redrive policy moves it to the dead-letter queue without a reason, and this line holds it`,
      context,
    );
    return;
  }
  options.logger.warn(
    `message ${what} its batch answered at the deadline and reported it failed: SQS will redeliver it`,
    context,
  );
}

/**
 * Whether SQS will move the record to its DLQ if this receive fails too.
 *
 * @example
 * ```ts
 * if (!isLastReceive(record, options)) backOff(record);
 * ```
 */
export function isLastReceive(
  record: SQSRecord,
  options: Pick<ResolvedOptions, 'maxReceiveCount'>,
): boolean {
  if (options.maxReceiveCount === undefined) return false;
  const receiveCount = Number(record.attributes.ApproximateReceiveCount);
  return Number.isFinite(receiveCount) && receiveCount >= options.maxReceiveCount;
}

/**
 * An error as it is logged: a thrown non-Error value (an HTTP response, say) by its type only.
 *
 * @example
 * ```ts
 * logger.warn('failed', { error: loggableError(thrown) });
 * ```
 */
export function loggableError(error: unknown): unknown {
  if (error instanceof Error) return error;
  const type = error === null ? 'null' : typeof error;
  return {
    name: 'NonErrorThrown',
    message: `the handler threw a value of type ${type}, not an Error`,
  };
}
