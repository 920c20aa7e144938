import { outboxMessageId } from 'sqs-inbox/constants';
import type { PaymentNotification } from '../../functions/notifier/paymentNotification.js';
import type { InvariantResult } from '../local/InvariantResult.js';

/** The name the ledger publishes each credited payment under (its outbox id's part). */
const CREDITED = 'credited';

/**
 * Every copy of a notification the relay sent — first sends, re-sends after a kill or a lost
 * answer — carried the same outbox id, the one derived from the ledger's consumer, the payment's
 * event and the message's name: what a downstream consumer keys by. `received` is, per event,
 * the `outbox.messageId` of each copy a notifier worker received.
 *
 * @example
 * ```ts
 * checkRelayedIds(plan.notifications, supervisor.relayedIds, 'ledger');
 * ```
 */
export function checkRelayedIds(
  notifications: readonly PaymentNotification[],
  received: ReadonlyMap<string, readonly string[]>,
  ledgerConsumer: string,
): InvariantResult {
  const wrong: string[] = [];
  let copies = 0;
  let resent = 0;
  for (const { eventId } of notifications) {
    const ids = received.get(eventId) ?? [];
    copies += ids.length;
    resent += Math.max(0, ids.length - 1);
    const expected = outboxMessageId(ledgerConsumer, eventId, { name: CREDITED });
    const others = ids.filter((id) => id !== expected);
    if (ids.length === 0) wrong.push(`${eventId}: no copy received`);
    else if (others.length > 0) wrong.push(`${eventId}: ${others.length} copies with another id`);
  }
  return {
    name: "every copy the relay sent of a message (re-sends included) carried the message's stable outbox id",
    holds: wrong.length === 0,
    detail: wrong.length
      ? wrong.slice(0, 3).join('; ')
      : `${copies} receives of ${notifications.length} messages (${resent} beyond the first: re-sends and redeliveries), one id each`,
    figures: { relayedCopies: copies },
  };
}
