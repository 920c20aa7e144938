import { errorTypeName } from '../errors/errorText.js';
import type { DeadLetterOutcome, RedriveSummary } from './redriveDeadLetters.js';

/**
 * One message of an applied redrive run, as its audit records it: where it came from, what was
 * decided and done, when. No body, and the key only by its hash (even with `--show-key`).
 *
 * @example
 * ```ts
 * const line = auditLine(outcome, { operationId, consumer: 'ledger' }, Date.now());
 * ```
 */
export interface AuditLine {
  readonly record: 'message';
  readonly operationId: string;
  readonly dlqMessageId: string;
  readonly originalMessageId: string;
  readonly consumer: string;
  readonly keyHash?: string;
  readonly decision: string;
  readonly action: string;
  readonly newMessageId?: string;
  /** ISO-8601. */
  readonly at: string;
}

/**
 * The audit line of one message's outcome.
 *
 * @example
 * ```ts
 * io.stderr(`${JSON.stringify(auditLine(outcome, run, Date.now()))}\n`);
 * ```
 */
export function auditLine(
  outcome: DeadLetterOutcome,
  run: { readonly operationId: string; readonly consumer: string },
  nowMillis: number,
): AuditLine {
  return {
    record: 'message',
    operationId: run.operationId,
    dlqMessageId: outcome.dlqMessageId,
    originalMessageId: outcome.originalMessageId,
    consumer: run.consumer,
    ...(outcome.keyHash === undefined ? {} : { keyHash: outcome.keyHash }),
    decision: outcome.decision,
    action: outcome.action,
    ...(outcome.newMessageId === undefined ? {} : { newMessageId: outcome.newMessageId }),
    at: new Date(nowMillis).toISOString(),
  };
}

/**
 * The record of an applied redrive run: who ran it with what, and how it ended. `running` until
 * it ends; `done` when it read the DLQ to its end, `stopped` when it stopped early (`stoppedBy`),
 * `failed` when an error ended it.
 *
 * @example
 * ```ts
 * const record: OperationRecord = { record: 'operation', operationId, kind: 'dlq-redrive', … };
 * ```
 */
export interface OperationRecord {
  readonly record: 'operation';
  readonly operationId: string;
  readonly kind: 'dlq-redrive';
  /** The caller's ARN (`sts:GetCallerIdentity`), or `unknown` when it could not be read. */
  readonly caller: string;
  /** The command line after `sqs-inbox dlq redrive`. */
  readonly arguments: readonly string[];
  readonly consumer: string;
  readonly queueArn: string;
  readonly startedAt: string;
  readonly endedAt?: string;
  readonly outcome: 'running' | 'done' | 'stopped' | 'failed';
  readonly counts?: Omit<RedriveSummary, 'operationId' | 'apply' | 'lockLost'>;
  readonly stoppedBy?: string;
  /** The error that ended a failed run: its name only. */
  readonly error?: string;
}

/**
 * The ended record of a run, from its start record and its summary (or the error that ended it).
 *
 * @example
 * ```ts
 * await records.put(endedRecord(started, { summary }, Date.now()));
 * ```
 */
export function endedRecord(
  started: OperationRecord,
  end: { readonly summary: RedriveSummary } | { readonly error: unknown },
  nowMillis: number,
): OperationRecord {
  const endedAt = new Date(nowMillis).toISOString();
  if ('error' in end) {
    return { ...started, endedAt, outcome: 'failed', error: errorTypeName(end.error) };
  }
  const { operationId: _id, apply: _apply, lockLost, stoppedBy, ...counts } = end.summary;
  return {
    ...started,
    endedAt,
    outcome: stoppedBy === undefined ? 'done' : 'stopped',
    counts,
    ...(stoppedBy === undefined ? {} : { stoppedBy: lockLost ?? stoppedBy }),
  };
}
