import type { SQSRecord } from 'aws-lambda';
import { findPublishedMessages } from '../aws/findPublishedMessages.js';
import type { OperatorClients } from '../aws/operatorClients.js';
import { SqsRedriveQueue } from '../aws/SqsRedriveQueue.js';
import { InboxEnvironment, OutboxMessageIdField } from '../constants/values.js';
import type { InboxEntry } from '../core/inboxEntry.js';
import { attribute } from '../operations/deadLetterFacts.js';
import { readEach } from '../operations/receiveAll.js';
import type { CliIo } from './CliIo.js';
import type { ConsumerTarget } from './resolveTarget.js';

/** A message an entry published, as `sqs-inbox message` shows it. */
export interface PublishedView {
  readonly id: string;
  readonly destination: string;
  /** Whether the outbox table still holds it; absent when the outbox table is not known. */
  readonly inOutboxTable?: boolean;
  /** Its letters in the relay's DLQ, with `--search-dlq` and a known relay DLQ. */
  readonly relayDeadLetters?: ReadonlyArray<{
    readonly dlqMessageId: string;
    readonly reason: string;
  }>;
}

/**
 * The messages an entry's commit published (ids and destinations, never a body or a group),
 * with whether the outbox table still holds each and, when `search.deadLetters`, its letters in
 * the relay's DLQ (`search.relayQueueUrl`, else the target's `INBOX_RELAY_DEAD_LETTER_QUEUE_URL`).
 *
 * @example
 * ```ts
 * const published = await publishedView(entry, target, aws, io, { deadLetters: true });
 * ```
 */
export async function publishedView(
  entry: InboxEntry | undefined,
  target: ConsumerTarget,
  aws: OperatorClients,
  io: CliIo,
  search: { readonly deadLetters: boolean; readonly relayQueueUrl?: string | undefined },
): Promise<PublishedView[] | undefined> {
  const published = entry?.published;
  if (published === undefined) return undefined;
  const outboxTable = target.environment[InboxEnvironment.OutboxTableName];
  const states: PublishedView[] = outboxTable
    ? await findPublishedMessages(aws.dynamodb(), outboxTable, published)
    : published.map(({ id, destination }) => ({ id, destination }));
  if (!outboxTable)
    io.stderr('the outbox table is not known (give --outbox-table to look it up)\n');
  const relayQueue =
    search.relayQueueUrl ?? target.environment[InboxEnvironment.RelayDeadLetterQueueUrl];
  if (!search.deadLetters) return states;
  if (!relayQueue) {
    io.stderr("the relay's DLQ is not known (give --relay-dlq to search it)\n");
    return states;
  }
  const letters = await relayLetters(relayQueue, new Set(published.map((m) => m.id)), aws, io);
  return states.map((state) => ({ ...state, relayDeadLetters: letters.get(state.id) ?? [] }));
}

/** The relay DLQ's letters of the given outbox ids, by id. */
async function relayLetters(
  queueUrl: string,
  ids: ReadonlySet<string>,
  aws: OperatorClients,
  io: CliIo,
): Promise<Map<string, Array<{ dlqMessageId: string; reason: string }>>> {
  const found = new Map<string, Array<{ dlqMessageId: string; reason: string }>>();
  const queue = await SqsRedriveQueue.open(aws.sqs(), queueUrl);
  await readEach(
    queue,
    (record: SQSRecord) => {
      const id = attribute(record, OutboxMessageIdField.Attribute);
      if (id === undefined || !ids.has(id)) return;
      const reason = attribute(record, 'outbox.error') ?? 'no reason recorded';
      found.set(id, [...(found.get(id) ?? []), { dlqMessageId: record.messageId, reason }]);
    },
    () => io.signal?.aborted === true,
    // Its holds outlast a long read, as the consumer DLQ's do.
    { now: Date.now },
  );
  return found;
}

/**
 * The text lines of the published messages.
 *
 * @example
 * ```ts
 * io.stdout(entryText(view) + publishedText(published));
 * ```
 */
export function publishedText(published: readonly PublishedView[] | undefined): string {
  if (published === undefined) return '';
  const lines = published.map((message) => {
    const held =
      message.inOutboxTable === undefined
        ? ''
        : message.inOutboxTable
          ? ', in the outbox table'
          : ', no longer in the outbox table';
    const letters = message.relayDeadLetters;
    const dead =
      letters === undefined
        ? ''
        : letters.length === 0
          ? ', not in the relay DLQ'
          : `, in the relay DLQ: ${letters.map((l) => `${l.dlqMessageId} (${l.reason})`).join(', ')}`;
    return `\n    ${message.id} → ${message.destination}${held}${dead}`;
  });
  return `\n  published (${published.length}):${lines.join('')}`;
}
