import { randomUUID } from 'node:crypto';
import { OperationLock, operationLockPk } from '../aws/OperationLock.js';
import type { OperatorClients } from '../aws/operatorClients.js';
import { SqsRedriveQueue } from '../aws/SqsRedriveQueue.js';
import { InboxEnvironment } from '../constants/values.js';
import { RedriveDecision } from '../operations/RedriveDecision.js';
import { RedriveLockedError } from '../operations/RunLease.js';
import {
  type DeadLetterOutcome,
  type RedriveRun,
  type RedriveSummary,
  redriveDeadLetters,
} from '../operations/redriveDeadLetters.js';
import { type DeadLetterReport, reportDeadLetters } from '../operations/reportDeadLetters.js';
import { systemRuntime } from '../runtime/InboxRuntime.js';
import { ExitCode, UsageError } from './CliError.js';
import { type CliIo, type Output, output } from './CliIo.js';
import {
  type CommonValues,
  type OwnValues,
  parseCommand,
  timeOption,
  wholeNumber,
} from './cliOptions.js';
import { consumerReading } from './consumerReading.js';
import { help } from './messageCommand.js';
import { RunNotRecordedError, startAudit } from './redriveAudit.js';
import { required, resolveTarget } from './resolveTarget.js';

/** `sqs-inbox dlq --help`. */
export const DLQ_HELP = `usage: sqs-inbox dlq report [<consumer>] [consumer flags] [--json]
       sqs-inbox dlq redrive [<consumer>] [--apply] [selection] [safety] [consumer flags] [--json | --jsonl]
  report    the DLQ grouped by reason (inbox.error; "no reason recorded" for moves by the
            redrive policy) and source queue: counts, oldest and newest send time, when the DLQ's
            retention drops the oldest, the queue's depth. Deletes nothing.
  redrive   the inbox-aware redrive. A DRY RUN unless --apply. Per message: its key recovered
            the way the consumer keys it, its entry read, then: committed with this payload →
            deleted, never sent (already-applied); not committed, provably → sent back to its
            source queue, then deleted (retry); anything else kept (conflict, in-flight, stale,
            permanent, message-id-key, unknown-key, key-mismatch, no-source, behind-kept).
  selection --reason <name> (repeatable; "none" for redrive-policy moves), --since, --until
            (ISO-8601 or 30m/6h/2d ago), --limit <n>
  safety    --rate <per second> (default 10), --max-errors <n> (default 10),
            --include-permanent (the fix for a permanent error is deployed),
            --accept-stale (older than the TTL can vouch for: may apply a message twice),
            --permanent-errors <Name,Name> (the handler's own permanent errors),
            --to <queue ARN> (for messages with no recorded source)
  Reading a DLQ is receiving: receive counts rise, and messages are hidden while the command
  runs, visible again when it ends. One run per DLQ at a time (a lock in the inbox table,
  renewed while the run works; a run that lost it to another stops). An --apply run is audited:
  #ops#op#<operation id> in the inbox table (90 days), and JSON lines on stderr (its caller,
  arguments, counts, outcome, one line per message; no bodies, no keys).
Exit: 0 done (report: DLQ empty), 1 needs attention (messages kept or in the DLQ), 2 usage,
3 AWS refused, 130 stopped by SIGINT or SIGTERM (what it held and its lock released).`;

const REDRIVE_OPTIONS = {
  apply: { type: 'boolean' },
  reason: { type: 'string', multiple: true },
  since: { type: 'string' },
  until: { type: 'string' },
  limit: { type: 'string' },
  rate: { type: 'string' },
  'max-errors': { type: 'string' },
  'include-permanent': { type: 'boolean' },
  'accept-stale': { type: 'boolean' },
  'permanent-errors': { type: 'string' },
  to: { type: 'string' },
} as const;

/**
 * `sqs-inbox dlq report|redrive`.
 *
 * @example
 * ```ts
 * const code = await dlqCommand(['report', '--function', 'ledger-fn', '--json'], io, clients);
 * ```
 */
export async function dlqCommand(
  argv: readonly string[],
  io: CliIo,
  clients: (values: Record<string, unknown>) => OperatorClients,
): Promise<number> {
  const [action, ...rest] = argv;
  if (action === 'report') return report(rest, io, clients);
  if (action === 'redrive') return redrive(rest, io, clients);
  if (action === undefined || action === '--help' || action === '-h') return help(io, DLQ_HELP);
  throw new UsageError(`sqs-inbox dlq: unknown action ${action}; use report or redrive`);
}

async function report(
  argv: readonly string[],
  io: CliIo,
  clients: (values: Record<string, unknown>) => OperatorClients,
): Promise<number> {
  const { values, positionals } = parseCommand('dlq', argv, {});
  if (values.help) return help(io, DLQ_HELP);
  const aws = clients(values);
  const target = await resolveTarget(values, positionals[0], io, aws);
  const dlqUrl = required(target, InboxEnvironment.DeadLetterQueueUrl, '--dlq <url>');
  const queue = await SqsRedriveQueue.open(aws.sqs(), dlqUrl);
  io.stderr(`reading ${queue.arn}…\n`);
  const result = await reportDeadLetters({ queue, runtime: systemRuntime, ...signal(io) });
  output(io, values).document({ consumer: target.consumer, ...result }, () => reportText(result));
  return result.messagesRead > 0 || result.depth.visible > 0
    ? ExitCode.NeedsAttention
    : ExitCode.Done;
}

function reportText(report: DeadLetterReport): string {
  const head = `${report.queueArn}: ${report.depth.visible} visible, ${report.depth.inFlight} in flight; ${report.messagesRead} read${report.partial ? ' (partial: some could not be read)' : ''}`;
  const rows = report.groups.map(
    (group) =>
      `  ${String(group.count).padStart(5)}  ${group.reason}  from ${group.sourceQueueArn}\n` +
      `         sent ${group.oldestSentAt} … ${group.newestSentAt}; the oldest expires ${group.oldestExpiresAt} (in ${hours(group.oldestExpiresInMillis)})`,
  );
  return [head, ...rows, report.note].join('\n');
}

function hours(millis: number): string {
  return millis <= 0 ? 'now' : `${(millis / 3_600_000).toFixed(1)} h`;
}

async function redrive(
  argv: readonly string[],
  io: CliIo,
  clients: (values: Record<string, unknown>) => OperatorClients,
): Promise<number> {
  const { values, positionals } = parseCommand('dlq', argv, REDRIVE_OPTIONS);
  if (values.help) return help(io, DLQ_HELP);
  const aws = clients(values);
  const target = await resolveTarget(values, positionals[0], io, aws);
  const { reading, ttlSeconds, tableName } = consumerReading(
    target,
    aws,
    values['key-is-message-id'] ?? false,
  );
  if (ttlSeconds === undefined) {
    throw new UsageError(
      "the redrive needs the consumer's TTL to prove a message never committed: give --ttl-seconds (or --function)",
    );
  }
  const dlqUrl = required(target, InboxEnvironment.DeadLetterQueueUrl, '--dlq <url>');
  const queue = await SqsRedriveQueue.open(aws.sqs(), dlqUrl);
  const operationId = randomUUID();
  const lockPk = operationLockPk('dlq', queue.arn);
  const lock = new OperationLock(aws.dynamodb(), tableName, lockPk, operationId);
  try {
    const run = { queue, reading, ttlSeconds, operationId, lock, target };
    return await runRedrive(run, values, io, { aws, tableName, arguments: argv });
  } catch (error) {
    if (error instanceof RunNotRecordedError) {
      io.stderr(`sqs-inbox: ${error.message}\n`);
      return error.exitCode;
    }
    if (!(error instanceof RedriveLockedError)) throw error;
    io.stderr(`${error.message}\n`);
    return ExitCode.NeedsAttention;
  }
}

async function runRedrive(
  run: Pick<RedriveRun, 'queue' | 'reading' | 'ttlSeconds' | 'operationId' | 'lock'> & {
    readonly target: { readonly consumer: string; readonly sourceQueueArn?: string };
  },
  values: RedriveValues,
  io: CliIo,
  audited: { aws: OperatorClients; tableName: string; arguments: readonly string[] },
): Promise<number> {
  const out = output(io, values);
  const apply = values.apply ?? false;
  const { queue, target, operationId } = run;
  const mode = apply ? 'redriving' : 'dry run (nothing is sent or deleted; --apply to act)';
  io.stderr(`${mode}: ${queue.arn}, operation ${operationId}\n`);
  // Only an applied run is audited: a dry run changes nothing.
  const audit = apply
    ? await startAudit(audited.aws, io, out, {
        ...audited,
        operationId,
        consumer: target.consumer,
        queueArn: queue.arn,
      })
    : undefined;
  const to = values.to ?? target.sourceQueueArn;
  const redrive = () =>
    redriveDeadLetters({
      ...run,
      apply,
      ...(to ? { to } : {}),
      ...choices(values),
      runtime: systemRuntime,
      ...signal(io),
      onMessage: (outcome) => {
        const line = audit?.line(outcome);
        out.item(line ? { ...outcome, ...line } : outcome, () => outcomeText(outcome));
      },
    });
  const summary = audit ? await audit.around(redrive) : await redrive();
  return finish(summary, target.consumer, queue.arn, out);
}

function finish(summary: RedriveSummary, consumer: string, queueArn: string, out: Output) {
  const document = { consumer, queueArn, ...summary };
  out.document(document, () => summaryText(summary));
  if (summary.lockLost) {
    out.warn(
      `stopped: the run ${summary.lockLost}; the messages it held are visible again. Check that no other redrive of ${queueArn} runs, then run it again.`,
    );
  }
  if (summary.stoppedBy === 'signal') {
    out.warn(
      `stopped by a signal after ${summary.messages} messages; the messages it held and its lock are released. Run it again to go on.`,
    );
    return ExitCode.Interrupted;
  }
  const attention = summary.kept - (summary.decisions[RedriveDecision.NotSelected] ?? 0);
  const stopped = summary.stoppedBy === 'lock-lost';
  return attention > 0 || summary.errors > 0 || stopped ? ExitCode.NeedsAttention : ExitCode.Done;
}

type RedriveValues = CommonValues & OwnValues<typeof REDRIVE_OPTIONS>;

/** The operator's choices of a run, from its options. */
function choices(values: RedriveValues) {
  return {
    selection: selection(values),
    ratePerSecond: wholeNumber('--rate', values.rate, 1, 500) ?? 10,
    maxErrors: wholeNumber('--max-errors', values['max-errors'], 1) ?? 10,
    includePermanent: values['include-permanent'] ?? false,
    acceptStale: values['accept-stale'] ?? false,
    permanentErrors: values['permanent-errors']?.split(',').filter(Boolean) ?? [],
    showKey: values['show-key'] ?? false,
  };
}

function selection(values: { reason?: string[]; since?: string; until?: string; limit?: string }) {
  const now = Date.now();
  const reasons = values.reason?.map((reason) =>
    reason === 'none' ? 'no reason recorded' : reason,
  );
  const sinceMillis = timeOption('--since', values.since, now);
  const untilMillis = timeOption('--until', values.until, now);
  const limit = wholeNumber('--limit', values.limit, 1);
  return {
    ...(reasons ? { reasons } : {}),
    ...(sinceMillis === undefined ? {} : { sinceMillis }),
    ...(untilMillis === undefined ? {} : { untilMillis }),
    ...(limit === undefined ? {} : { limit }),
  };
}

/**
 * A message's outcome as printed: its FIFO group (often an account or customer id) only with
 * `--show-key`, as its key, which the run leaves out without it.
 */
function outcomeText(outcome: DeadLetterOutcome): string {
  const who = outcome.key ?? outcome.keyHash ?? 'no key';
  const extra = [outcome.why, outcome.newMessageId ? `sent as ${outcome.newMessageId}` : undefined]
    .filter(Boolean)
    .join('; ');
  return `${outcome.action.padEnd(12)} ${outcome.decision.padEnd(15)} ${outcome.dlqMessageId} ${outcome.reason} ${who}${extra ? ` (${extra})` : ''}`;
}

function summaryText(summary: Awaited<ReturnType<typeof redriveDeadLetters>>): string {
  const decisions = Object.entries(summary.decisions)
    .map(([name, count]) => `${count} ${name}`)
    .join(', ');
  return `${summary.apply ? 'redrive' : 'dry run'} ${summary.operationId}: ${summary.messages} messages (${decisions || 'none'}); ${summary.sent} sent back, ${summary.deleted} deleted, ${summary.kept} kept, ${summary.errors} errors${summary.stoppedBy ? `; stopped by ${summary.stoppedBy}` : ''}`;
}

function signal(io: CliIo): { signal?: AbortSignal } {
  return io.signal ? { signal: io.signal } : {};
}
