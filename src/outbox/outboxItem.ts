import { FORMAT_VERSIONS, OutboxAttribute } from '../constants/values.js';
import type { OutgoingMessage } from './OutgoingMessage.js';
import type { OutboxItemPlan } from './planOutboxItems.js';

/** An attribute value of an outbox item, as the document client writes it. */
export type OutboxItemValue =
  | string
  | number
  | readonly OutboxItemValue[]
  | { readonly [name: string]: OutboxItemValue };

/**
 * An outbox item's attributes, as the document client writes them.
 *
 * @example
 * ```ts
 * const item: OutboxItem = { pk: 'msg#3f…', messages: [{ id: '3f…', body: 'x' }] };
 * ```
 */
export type OutboxItem = Readonly<Record<string, OutboxItemValue>>;

/**
 * What every item of one commit holds besides its key and messages: where it came from (the
 * publishing consumer and its key's hash), when it committed, when it expires, the format
 * version this release writes, and the record span's `traceparent` when one recorded (an
 * attribute a relay that predates it ignores, so the format version stays).
 *
 * @example
 * ```ts
 * const common = outboxItemCommon({ consumer: 'ledger', keyHash: '9f…' }, Date.now(), 604_800);
 * ```
 */
export function outboxItemCommon(
  origin: { readonly consumer: string; readonly keyHash: string },
  nowMillis: number,
  retentionSeconds: number,
  traceparent?: string,
): OutboxItem {
  return {
    [OutboxAttribute.Origin]: { consumer: origin.consumer, keyHash: origin.keyHash },
    [OutboxAttribute.CommittedAt]: new Date(nowMillis).toISOString(),
    [OutboxAttribute.ExpiresAt]: Math.floor(nowMillis / 1000) + retentionSeconds,
    [OutboxAttribute.FormatVersion]: FORMAT_VERSIONS.outboxItem,
    ...(traceparent === undefined ? {} : { [OutboxAttribute.TraceParent]: traceparent }),
  };
}

/**
 * Every attribute an outbox item holds once its commit is written, except a group's `seq`
 * (which `ADD` counts up): its key, its messages (their fields, none undefined), the commit's
 * common attributes, and a group's destination and group id. The store writes it; the pipe's
 * size check renders it as the stream record carries it.
 *
 * @example
 * ```ts
 * const item = outboxItem(itemPlanOf(message), common); // item.pk === 'grp#…' for a grouped message
 * ```
 */
export function outboxItem(plan: OutboxItemPlan, common: OutboxItem): OutboxItem {
  return {
    [OutboxAttribute.PartitionKey]: plan.pk,
    [OutboxAttribute.Messages]: plan.messages.map(storedMessage),
    ...common,
    ...(plan.group === undefined
      ? {}
      : {
          [OutboxAttribute.Destination]: plan.group.destination,
          [OutboxAttribute.GroupId]: plan.group.groupId,
        }),
  };
}

/** A message as the item stores it: its fields, none undefined. */
function storedMessage(message: OutgoingMessage): OutboxItem {
  return Object.fromEntries(
    Object.entries(message).filter((entry): entry is [string, OutboxItemValue] => {
      return entry[1] !== undefined;
    }),
  );
}
