import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { OutboxAttribute } from '../constants/values.js';
import type { InboxEntry } from '../core/inboxEntry.js';
import { keyHash } from '../core/loggedKey.js';
import type { TransactItem } from '../core/TransactionBuilder.js';
import { checkPipeOutbox } from '../outbox/checkPipeOutbox.js';
import type { OutgoingMessage } from '../outbox/OutgoingMessage.js';
import { type OutboxItem, outboxItem, outboxItemCommon } from '../outbox/outboxItem.js';
import { type OutboxItemPlan, planOutboxItems } from '../outbox/planOutboxItems.js';
import { FORMAT_STAMP } from './entryWrites.js';

/**
 * Where the store writes outgoing messages: the outbox table and how long its items live.
 *
 * @example
 * ```ts
 * const outbox: OutboxTable = { tableName: 'outbox', retentionSeconds: 7 * 86_400 };
 * ```
 */
export interface OutboxTable {
  readonly tableName: string;
  readonly retentionSeconds: number;
  /** The one SQS queue an EventBridge pipe relays the outbox to, when one does. */
  readonly pipeDestination?: string;
}

// Every attribute of the item but its key, so that the item is all of the version it is stamped
// with (an item-level attribute a later version added is left, and ignored at this version).
const GROUP_SET =
  'SET #messages = :messages, #origin = :origin, #committedAt = :committedAt, ' +
  `#expiresAt = :expiresAt, ${FORMAT_STAMP}, #destination = :destination, ` +
  '#groupId = :groupId';
// The trace context is this commit's or none: an earlier commit's must not stay on the group.
const GROUP_UPDATE = `${GROUP_SET} ADD #seq :one REMOVE #traceparent`;
const TRACED_GROUP_UPDATE = `${GROUP_SET}, #traceparent = :traceparent ADD #seq :one`;

/**
 * The outbox writes of a commit, to append to its `TransactWriteItems`: a Put of a message's own
 * item, or an Update of a group's item that replaces its `messages` with this transaction's
 * and adds one to its `seq`. Neither has a condition: an item that exists again (a message
 * re-processed after its inbox entry expired) is written again, so relayed again, with the
 * same ids.
 *
 * @example
 * ```ts
 * const items = outboxWrites(outbox, transaction.outgoing, entry, Date.now());
 * ```
 */
export function outboxWrites(
  outbox: OutboxTable,
  outgoing: readonly OutgoingMessage[],
  entry: Pick<InboxEntry, 'consumer' | 'key'>,
  nowMillis: number,
  traceparent?: string,
): TransactItem[] {
  const origin = { consumer: entry.consumer, keyHash: keyHash(entry.key) };
  const common = outboxItemCommon(origin, nowMillis, outbox.retentionSeconds, traceparent);
  if (outbox.pipeDestination !== undefined) {
    const pipe = { destination: outbox.pipeDestination, tableName: outbox.tableName };
    checkPipeOutbox(outgoing, pipe, common);
  }
  return planOutboxItems(outgoing).map((plan) =>
    outboxWrite(outbox.tableName, plan, outboxItem(plan, common)),
  );
}

function outboxWrite(tableName: string, plan: OutboxItemPlan, item: OutboxItem): TransactItem {
  if (plan.group === undefined) return { Put: { TableName: tableName, Item: item } };
  const update =
    item[OutboxAttribute.TraceParent] === undefined ? GROUP_UPDATE : TRACED_GROUP_UPDATE;
  const values: Record<string, NativeAttributeValue> = { ':one': 1 };
  for (const [name, value] of Object.entries(item)) {
    if (name !== OutboxAttribute.PartitionKey) values[`:${name}`] = value;
  }
  return {
    Update: {
      TableName: tableName,
      Key: { [OutboxAttribute.PartitionKey]: plan.pk },
      UpdateExpression: update,
      ExpressionAttributeNames: Object.fromEntries(
        [...update.matchAll(/#(\w+)/g)].map((match) => [match[0], match[1] ?? '']),
      ),
      ExpressionAttributeValues: values,
    },
  };
}
