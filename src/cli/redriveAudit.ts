import { OperationRecords, RECORDED_LINES } from '../aws/OperationRecords.js';
import type { OperatorClients } from '../aws/operatorClients.js';
import { InboxError } from '../errors.js';
import {
  type AuditLine,
  auditLine,
  endedRecord,
  type OperationRecord,
} from '../operations/redriveAudit.js';
import type { DeadLetterOutcome, RedriveSummary } from '../operations/redriveDeadLetters.js';
import { describeFailure, type ExitCode, errorParts } from './CliError.js';
import type { CliIo, Output } from './CliIo.js';

/** What an applied run is audited as: its id, consumer, DLQ, table and command line. */
interface AuditedRun {
  readonly operationId: string;
  readonly consumer: string;
  readonly queueArn: string;
  readonly tableName: string;
  readonly arguments: readonly string[];
}

/**
 * An applied run's start record could not be written to the inbox table: the run did not
 * start (it took no lock, held no message, sent and deleted nothing). Its message names the
 * table, DynamoDB's answer and what to fix; `exitCode` is 3 when AWS refused, else 1.
 *
 * @example
 * ```ts
 * if (error instanceof RunNotRecordedError) process.exitCode = error.exitCode;
 * ```
 */
export class RunNotRecordedError extends InboxError {
  static override readonly errorName: string = 'RunNotRecordedError';
  readonly exitCode: ExitCode;
  constructor(
    readonly tableName: string,
    cause: unknown,
  ) {
    const { name, message: answer } = errorParts(cause);
    // The usual cause: a role without dynamodb:PutItem on the table (docs/operations/cli.md, "What an operator needs (IAM)").
    const fix = /AccessDenied/.test(name)
      ? `give the caller dynamodb:PutItem on ${tableName} (its #ops# items)`
      : 'fix what DynamoDB answered';
    super(
      `the redrive did not start: its audit record could not be written to ${tableName} (${name}: ${answer}); nothing was sent or deleted. To run it, ${fix}, then run it again.`,
      { cause },
    );
    this.exitCode = describeFailure(cause).code;
  }
}

/**
 * The audit of an applied redrive: its record written to the inbox table (`#ops#op#<id>`)
 * before the run acts — a run that cannot record itself does not act — and again when it ends;
 * the record's start and end as JSON lines on stderr, and one JSON line per message (on stdout
 * with `--jsonl`, merged into its line there; otherwise on stderr). The caller is read with
 * `sts:GetCallerIdentity`; when it cannot be read the run goes on as `unknown`, with a warning.
 *
 * @example
 * ```ts
 * const audit = await startAudit(aws, io, out, run);
 * const summary = await audit.around(() => redriveDeadLetters({ ...run, onMessage: audit.line }));
 * ```
 */
export async function startAudit(
  aws: OperatorClients,
  io: CliIo,
  out: Output,
  run: AuditedRun,
  now: () => number = Date.now,
) {
  const records = new OperationRecords(aws.dynamodb(), run.tableName);
  const started: OperationRecord = {
    record: 'operation',
    operationId: run.operationId,
    kind: 'dlq-redrive',
    caller: await callerOf(aws, out),
    arguments: run.arguments,
    consumer: run.consumer,
    queueArn: run.queueArn,
    startedAt: new Date(now()).toISOString(),
    outcome: 'running',
  };
  // Before the run takes its lock or a message: a run that cannot record itself does nothing.
  await records.put(started, { first: [], more: 0 }, now()).catch((error: unknown) => {
    throw new RunNotRecordedError(run.tableName, error);
  });
  io.stderr(`${JSON.stringify(started)}\n`);
  // Only what the record holds is kept; the lines past it are counted (they are on stderr).
  const lines = { first: [] as AuditLine[], more: 0 };
  return {
    /** The message's audit line: kept for the record, and on stderr unless `--jsonl` prints it. */
    line(outcome: DeadLetterOutcome): AuditLine {
      const line = auditLine(outcome, run, now());
      if (lines.first.length < RECORDED_LINES) lines.first.push(line);
      else lines.more += 1;
      if (out.format !== 'jsonl') io.stderr(`${JSON.stringify(line)}\n`);
      return line;
    },
    /** Runs the redrive, then records how it ended (a failed write of that only warns). */
    async around(redrive: () => Promise<RedriveSummary>): Promise<RedriveSummary> {
      let end: { summary: RedriveSummary } | { error: unknown };
      try {
        end = { summary: await redrive() };
      } catch (error) {
        end = { error };
      }
      const ended = endedRecord(started, end, now());
      io.stderr(`${JSON.stringify(ended)}\n`);
      await records.put(ended, lines, now()).catch((error: unknown) => {
        out.warn(
          `the run's record ${run.operationId} could not be updated in ${run.tableName} (${(error as Error).name}); the JSON lines above are its audit`,
        );
      });
      if ('error' in end) throw end.error;
      return end.summary;
    },
  };
}

/** The caller's ARN, or `unknown` with a warning: the run does not fail for want of STS. */
async function callerOf(aws: OperatorClients, out: Output): Promise<string> {
  try {
    return await aws.callerArn();
  } catch (error) {
    const { name, message } = errorParts(error);
    out.warn(`the caller could not be read (${name}: ${message}); the audit records "unknown"`);
    return 'unknown';
  }
}
