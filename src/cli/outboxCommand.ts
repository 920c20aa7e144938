import type { OperatorClients } from '../aws/operatorClients.js';
import { InboxEnvironment } from '../constants/values.js';
import type { RedriveOutcome } from '../relay/redriveOutbox.js';
import { ExitCode, UsageError } from './CliError.js';
import { type CliIo, output } from './CliIo.js';
import { parseCommand, wholeNumber } from './cliOptions.js';
import { help } from './messageCommand.js';
import { localRelayQueueUrl, resolveTarget } from './resolveTarget.js';

/** `sqs-inbox outbox --help`. */
export const OUTBOX_HELP = `usage: sqs-inbox outbox report (--queue-url <relay DLQ url> | --function <relay function> | --local) [--json]
       sqs-inbox outbox redrive (…the same…) [--apply] [--max <n>] [--json | --jsonl]
  The outbox relay's dead-letter queue: messages a destination refused, batches the stream gave
  up on, records the relay could not read.
  report    what a redrive would do with each letter, grouped by kind and what would happen.
  redrive   A DRY RUN unless --apply: sends a refused message again with its outbox id (a
            downstream inbox keyed on it applies it once), relays a given-up batch again from the
            stream (within its 24 hours); a letter redriven is deleted, any other stays with its
            reason. Fix the cause first: a destination still refusing refuses again.
  Reading the queue is receiving: receive counts rise; letters left are visible again at once.
Exit: 0 done (nothing left), 1 letters left, 2 usage, 3 AWS refused.`;

/**
 * `sqs-inbox outbox report|redrive`: `redriveOutbox` as a command.
 *
 * @example
 * ```ts
 * const code = await outboxCommand(['report', '--queue-url', url, '--json'], io, clients);
 * ```
 */
export async function outboxCommand(
  argv: readonly string[],
  io: CliIo,
  clients: (values: Record<string, unknown>) => OperatorClients,
): Promise<number> {
  // The action is the first word, wherever the flags are: `npm run outbox` puts --local first.
  const { values, positionals } = parseCommand('outbox', argv, {
    'queue-url': { type: 'string' },
    apply: { type: 'boolean' },
    max: { type: 'string' },
  });
  const [action, consumer] = positionals;
  if (action === undefined || values.help) return help(io, OUTBOX_HELP);
  if (action !== 'report' && action !== 'redrive') {
    throw new UsageError(`sqs-inbox outbox: unknown action ${action}; use report or redrive`);
  }
  const aws = clients(values);
  const queueUrl = values['queue-url'] ?? (await relayQueueOf(values, consumer, io, aws));
  const apply = action === 'redrive' && values.apply === true;
  const maxMessages = wholeNumber('--max', values.max, 1);
  io.stderr(`${apply ? 'redriving' : 'reading (nothing is sent or deleted)'}: ${queueUrl}\n`);
  // Its clients are optional peers: loaded here, so the other commands run without them.
  const sending = await aws.outbox();
  const { redriveOutbox } = await import('../relay/redriveOutbox.js');
  const outcomes = await redriveOutbox({
    deadLetter: { queueUrl, client: aws.sqs() },
    ...sending,
    dryRun: !apply,
    ...(maxMessages === undefined ? {} : { maxMessages }),
  });
  const out = output(io, values);
  for (const outcome of outcomes) out.item(outcome, () => outcomeText(outcome));
  const groups = grouped(outcomes);
  out.document({ queueUrl, apply, letters: outcomes.length, groups }, () =>
    summaryText(queueUrl, groups),
  );
  // A dry run redrives nothing: any letter needs a person; after --apply, any left does.
  return outcomes.some((outcome) => outcome.status !== 'redriven')
    ? ExitCode.NeedsAttention
    : ExitCode.Done;
}

async function relayQueueOf(
  values: Parameters<typeof resolveTarget>[0],
  positional: string | undefined,
  io: CliIo,
  aws: OperatorClients,
): Promise<string> {
  if (!values.function && !values.local) {
    throw new UsageError(
      'which relay? give --queue-url <its DLQ>, or --function <the relay function>',
    );
  }
  // The local run has one relay: its queue needs no consumer named.
  const local = values.local && positional === undefined ? localRelayQueueUrl(io) : undefined;
  if (local) return local;
  const target = await resolveTarget(values, positional, io, aws).catch(() => undefined);
  const url = target?.environment[InboxEnvironment.RelayDeadLetterQueueUrl];
  if (!url) throw new UsageError('no relay dead-letter queue found: give --queue-url <its DLQ>');
  return url;
}

function grouped(outcomes: readonly RedriveOutcome[]) {
  const counts = new Map<string, { kind: string; status: string; count: number }>();
  for (const outcome of outcomes) {
    const id = `${outcome.kind}\u0000${outcome.status}`;
    const group = counts.get(id) ?? { kind: outcome.kind, status: outcome.status, count: 0 };
    group.count++;
    counts.set(id, group);
  }
  return [...counts.values()].sort((a, b) => b.count - a.count);
}

function outcomeText(outcome: RedriveOutcome): string {
  const ids = outcome.outboxIds.join(',') || 'none';
  return `${outcome.status.padEnd(12)} ${outcome.kind.padEnd(7)} ${outcome.messageId} outbox ids ${ids}${outcome.reason ? `: ${outcome.reason}` : ''}`;
}

function summaryText(queueUrl: string, groups: ReturnType<typeof grouped>): string {
  if (groups.length === 0) return `${queueUrl}: no letters`;
  return [
    `${queueUrl}:`,
    ...groups.map((g) => `  ${String(g.count).padStart(5)}  ${g.kind} ${g.status}`),
  ].join('\n');
}
