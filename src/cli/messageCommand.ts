import type { SQSRecord } from 'aws-lambda';
import { findEntryByMessageId } from '../aws/findEntryByMessageId.js';
import type { OperatorClients } from '../aws/operatorClients.js';
import { SqsRedriveQueue } from '../aws/SqsRedriveQueue.js';
import { DeadLetterAttribute, InboxEnvironment } from '../constants/values.js';
import { inboxPk } from '../core/inboxEntry.js';
import { keyHash } from '../core/loggedKey.js';
import { attribute, deadLetterReason } from '../operations/deadLetterFacts.js';
import { readEach } from '../operations/receiveAll.js';
import { keyRecovery } from '../operations/recoverKey.js';
import { ExitCode, UsageError } from './CliError.js';
import type { CliIo } from './CliIo.js';
import { output } from './CliIo.js';
import { type OwnValues, parseCommand, wholeNumber } from './cliOptions.js';
import { consumerReading } from './consumerReading.js';
import { entryText, entryView } from './describeEntry.js';
import { publishedText, publishedView } from './publishedView.js';
import { type ConsumerTarget, required, resolveTarget } from './resolveTarget.js';

/** `sqs-inbox message --help`. */
export const MESSAGE_HELP = `usage: sqs-inbox message [<consumer>] (--key <key> | --message-id <id> | --from-dlq <id>)
                         [--search-dlq] [--max-scan-items <n>] [consumer flags] [--json] [--show-key]
  What happened to one message: its inbox entry's status (COMPLETED, IN_PROGRESS, FAILED,
  absent, expired), the message id that wrote it, when it committed, its payload hash, attempts,
  last error, finished steps, lease, and expiry. Never a body or a step's result.
  --key <key>           the message's dedup key
  --message-id <id>     an SQS message id: finds the entry it wrote by a Scan of the inbox table
                        (at most --max-scan-items, default 100000, items read)
  --from-dlq <id>       a DLQ message's id (or its original message id): its key is recovered
                        the way the consumer keys it
  --search-dlq          also list the DLQ copies of the message, and the relay DLQ's letters of
                        the messages it published (reading a DLQ raises receive counts; what
                        was read is visible again when the command ends)
  --relay-dlq <url>     the outbox relay's DLQ, for --search-dlq (the local run knows it)
  A committed entry also lists the messages its commit published: outbox id, destination, and
  whether the outbox table (--outbox-table, or the function's) still holds each.
Exit: 0 found, 1 no entry, 2 usage, 3 AWS refused, 130 stopped by SIGINT or SIGTERM (what it read
  of a DLQ visible again).`;

/**
 * `sqs-inbox message`: where one message stands, from its inbox entry.
 *
 * @example
 * ```ts
 * const code = await messageCommand(['ledger', '--key', 'evt-1', '--table', 'inbox'], io, clients);
 * ```
 */
export async function messageCommand(
  argv: readonly string[],
  io: CliIo,
  clients: (values: Record<string, unknown>) => OperatorClients,
): Promise<number> {
  const { values, positionals } = parseCommand('message', argv, MESSAGE_OPTIONS);
  if (values.help) return help(io, MESSAGE_HELP);
  checkOneLookup(values);
  const aws = clients(values);
  const target = await resolveTarget(values, positionals[0], io, aws);
  const found = consumerReading(target, aws, values['key-is-message-id'] ?? false);
  const { reading } = found;
  const key = await keyOf(values, { ...found, target, aws, io });
  if (key === undefined) return stopped(io) ? ExitCode.Interrupted : ExitCode.NeedsAttention;
  const entry = await reading.store.find(inboxPk(reading.consumer, key));
  const view = entryView(reading.consumer, key, entry, Date.now(), values['show-key'] ?? false);
  const search = values['search-dlq'] ?? false;
  const relayQueueUrl = values['relay-dlq'];
  const published = await publishedView(entry, target, aws, io, {
    deadLetters: search,
    relayQueueUrl,
  });
  const dlqCopies = search
    ? await copiesInDeadLetterQueue(key, target, aws, reading, io)
    : undefined;
  const document = {
    ...view,
    ...(published ? { published } : {}),
    ...(dlqCopies ? { dlqCopies } : {}),
  };
  const text = () => entryText(view) + publishedText(published) + copiesText(dlqCopies);
  output(io, values).document(document, text);
  return view.status === 'absent' ? ExitCode.NeedsAttention : ExitCode.Done;
}

function checkOneLookup(values: OwnValues<typeof MESSAGE_OPTIONS>): void {
  const given = [values.key, values['message-id'], values['from-dlq']].filter(
    (v) => v !== undefined,
  );
  if (given.length === 1) return;
  throw new UsageError(
    'give one of --key, --message-id or --from-dlq (see: sqs-inbox message --help)',
  );
}

const MESSAGE_OPTIONS = {
  key: { type: 'string' },
  'message-id': { type: 'string' },
  'from-dlq': { type: 'string' },
  'search-dlq': { type: 'boolean' },
  'max-scan-items': { type: 'string' },
  'relay-dlq': { type: 'string' },
} as const;

/** The key asked about: given, found by the message id it wrote, or recovered from the DLQ. */
async function keyOf(
  values: OwnValues<typeof MESSAGE_OPTIONS>,
  found: ReturnType<typeof consumerReading> & {
    readonly target: ConsumerTarget;
    readonly aws: OperatorClients;
    readonly io: CliIo;
  },
): Promise<string | undefined> {
  const { reading, tableName, target, aws, io } = found;
  if (values.key !== undefined) return values.key;
  const messageId = values['message-id'];
  if (messageId === undefined) {
    return keyFromDeadLetter(values['from-dlq'] ?? '', target, aws, reading, io);
  }
  const max = values['max-scan-items'];
  return keyOfMessageId(messageId, tableName, reading.consumer, aws, io, max);
}

function copiesText(
  copies: ReadonlyArray<{ dlqMessageId: string; reason: string; sentAt: string }> | undefined,
): string {
  if (copies === undefined) return '';
  const listed = copies.map((c) => `${c.dlqMessageId} (${c.reason}, ${c.sentAt})`).join(', ');
  return `\n  DLQ copies: ${copies.length === 0 ? 'none' : listed}`;
}

async function keyOfMessageId(
  messageId: string,
  tableName: string,
  consumer: string,
  aws: OperatorClients,
  io: CliIo,
  maxText: string | undefined,
): Promise<string | undefined> {
  const maxItems = wholeNumber('--max-scan-items', maxText, 1) ?? 100_000;
  io.stderr(
    `scanning ${tableName} for the entry message ${messageId} wrote (at most ${maxItems} items)…\n`,
  );
  const found = await findEntryByMessageId(
    aws.dynamodb(),
    tableName,
    consumer,
    messageId,
    maxItems,
  );
  if (found.pk !== undefined) return found.pk.slice(consumer.length + 1);
  io.stderr(
    `no entry of ${consumer} was written by message ${messageId} (${found.scanned} items read${found.complete ? ', the whole table' : `; raise --max-scan-items to read more`}). A message that failed before it was keyed writes none: try --from-dlq ${messageId}\n`,
  );
  return undefined;
}

async function keyFromDeadLetter(
  messageId: string,
  target: Parameters<typeof required>[0],
  aws: OperatorClients,
  reading: Parameters<typeof keyRecovery>[0],
  io: CliIo,
): Promise<string | undefined> {
  const queue = await openDeadLetterQueue(target, aws);
  let found: SQSRecord | undefined;
  await readEach(
    queue,
    (record) => {
      const original = attribute(record, DeadLetterAttribute.OriginalMessageId);
      if (record.messageId === messageId || original === messageId) found = record;
    },
    () => found !== undefined || stopped(io),
    { now: Date.now },
  );
  if (found === undefined) {
    io.stderr(
      stopped(io)
        ? `stopped by a signal before message ${messageId} was found; what it read of the DLQ is visible again\n`
        : `no message ${messageId} in the DLQ (read with a receive: other readers may hold it)\n`,
    );
    return undefined;
  }
  const recovered = await keyRecovery(reading)(found);
  if ('key' in recovered) return recovered.key;
  io.stderr(
    `message ${messageId} is in the DLQ (${deadLetterReason(found)}), but its key is unknown: ${recovered.why}\n`,
  );
  return undefined;
}

async function copiesInDeadLetterQueue(
  key: string,
  target: Parameters<typeof required>[0],
  aws: OperatorClients,
  reading: Parameters<typeof keyRecovery>[0],
  io: CliIo,
) {
  const queue = await openDeadLetterQueue(target, aws);
  const recover = keyRecovery(reading);
  const wanted = keyHash(key);
  const copies: Array<{ dlqMessageId: string; reason: string; sentAt: string }> = [];
  const hashOf = async (record: SQSRecord) => {
    const recorded = attribute(record, DeadLetterAttribute.KeyHash);
    if (recorded !== undefined) return recorded;
    const recovered = await recover(record);
    return 'key' in recovered ? keyHash(recovered.key) : undefined;
  };
  await readEach(
    queue,
    async (record) => {
      if ((await hashOf(record)) !== wanted) return;
      copies.push({
        dlqMessageId: record.messageId,
        reason: deadLetterReason(record),
        sentAt: new Date(Number(record.attributes.SentTimestamp)).toISOString(),
      });
    },
    () => stopped(io),
    { now: Date.now },
  );
  return copies;
}

/** Whether SIGINT or SIGTERM asked the command to stop. */
function stopped(io: CliIo): boolean {
  return io.signal?.aborted === true;
}

function openDeadLetterQueue(target: Parameters<typeof required>[0], aws: OperatorClients) {
  const url = required(target, InboxEnvironment.DeadLetterQueueUrl, '--dlq <url>');
  return SqsRedriveQueue.open(aws.sqs(), url);
}

/**
 * Prints a command's help to stdout and answers `Done`.
 *
 * @example
 * ```ts
 * if (values.help) return help(io, MESSAGE_HELP);
 * ```
 */
export function help(io: CliIo, text: string): number {
  io.stdout(`${text}\n`);
  return ExitCode.Done;
}
