import { createHash } from 'node:crypto';
import { estimateValueBytes } from '../constants/itemSize.js';
import { TRANSACTION_LIMITS } from '../constants/values.js';
import { OutgoingMessageError } from '../errors/outboxErrors.js';
import type { OutgoingMessage } from './OutgoingMessage.js';

/**
 * One outbox item a commit writes, and the messages it carries. A message without a group has
 * an item of its own (`msg#<id>`). The messages a transaction publishes to one group of one
 * destination share that group's item (`grp#<hash>`), which every commit to the group
 * overwrites: DynamoDB Streams keeps the order of one item's changes, and that order is the
 * group's order at the relay.
 *
 * @example
 * ```ts
 * const plans = planOutboxItems(transaction.outgoing); // one per ungrouped message, one per group
 * ```
 */
export interface OutboxItemPlan {
  readonly pk: string;
  readonly messages: readonly OutgoingMessage[];
  /** The destination and group of a group's item; absent for a message's own item. */
  readonly group?: { readonly destination: string; readonly groupId: string };
}

// Room left in an item for its key, origin, time and counters besides the messages.
const ITEM_OVERHEAD_BYTES = 2 * 1024;

/**
 * Groups outgoing messages into the outbox items of one commit, in publish order, and checks
 * that each fits in a DynamoDB item (400 KB): a group's messages of one transaction share one.
 *
 * @example
 * ```ts
 * planOutboxItems(messages).length; // the transaction operations the outbox takes
 * ```
 */
export function planOutboxItems(messages: readonly OutgoingMessage[]): OutboxItemPlan[] {
  const plans: Array<{ pk: string; messages: OutgoingMessage[]; group?: OutboxItemPlan['group'] }> =
    [];
  const groups = new Map<string, (typeof plans)[number]>();
  for (const message of messages) {
    const opened = { ...itemPlanOf(message), messages: [message] };
    if (opened.group === undefined) {
      plans.push(opened);
      continue;
    }
    const existing = groups.get(opened.pk);
    if (existing !== undefined) {
      existing.messages.push(message);
      continue;
    }
    groups.set(opened.pk, opened);
    plans.push(opened);
  }
  for (const plan of plans) checkItemBytes(plan, messages);
  return plans;
}

/**
 * The item a message is written to when it is the first (or only) one there: its own, or its
 * group's.
 *
 * @example
 * ```ts
 * itemPlanOf(message).pk; // 'msg#<id>', or 'grp#<hash>' for a message with a group
 * ```
 */
export function itemPlanOf(message: OutgoingMessage): OutboxItemPlan {
  if (message.groupId === undefined) return { pk: outboxItemPk(message), messages: [message] };
  return {
    pk: outboxItemPk(message),
    messages: [message],
    group: { destination: message.destination, groupId: message.groupId },
  };
}

/**
 * The partition key of the outbox item that carries a message: its own (`msg#<id>`), or its
 * group's.
 *
 * @example
 * ```ts
 * outboxItemPk({ id, destination: queueUrl }); // 'msg#<id>'
 * ```
 */
export function outboxItemPk(
  message: Pick<OutgoingMessage, 'id' | 'destination' | 'groupId'>,
): string {
  const { id, destination, groupId } = message;
  return groupId === undefined ? `msg#${id}` : groupItemPk(destination, groupId);
}

/**
 * The partition key of a group's item: the SHA-256 of destination and group, so that any group
 * id fits the key and the item is the same for every consumer publishing to that group.
 *
 * @example
 * ```ts
 * groupItemPk(queueUrl, 'account-42'); // 'grp#…' (64 hex characters)
 * ```
 */
export function groupItemPk(destination: string, groupId: string): string {
  const hash = createHash('sha256').update(`${destination}\u0000${groupId}`, 'utf8').digest('hex');
  return `grp#${hash}`;
}

function checkItemBytes(plan: OutboxItemPlan, all: readonly OutgoingMessage[]): void {
  const bytes = estimateValueBytes(plan.messages) + ITEM_OVERHEAD_BYTES;
  if (bytes <= TRANSACTION_LIMITS.maxItemBytes) return;
  const last = plan.messages[plan.messages.length - 1];
  const index = last === undefined ? 0 : all.indexOf(last);
  throw new OutgoingMessageError(
    'body',
    index,
    `makes the messages of one group in one transaction about ${bytes} bytes; one outbox item ` +
      `holds ${TRANSACTION_LIMITS.maxItemBytes}. Publish less to one group per incoming message, or send pointers to S3`,
  );
}
