import { InboxStatus, inboxPk, outboxMessageId } from 'sqs-inbox/constants';
import type { DemoPlan } from './demoTraffic.js';
import type { InvariantResult } from './InvariantResult.js';
import type { Item } from './readRunState.js';

/** Where the ledger's outbox lives: its table and its relay's dead-letter queue. */
export interface OutboxTargets {
  readonly table: string;
  readonly deadLetterQueueUrl: string;
}

/** The name the ledger publishes each credited payment under (its outbox id's part). */
const CREDITED = 'credited';

/**
 * The two hops, ledger → outbox relay → notifier: every credited payment has its outgoing
 * message in the ledger's outbox (committed with the credit), and the notifier committed it
 * (so the relay delivered it at least once); the relay dead-lettered nothing. The notifier's
 * effects once each is `checkNotifications`'.
 */
export function checkOutboxChain(
  plan: DemoPlan,
  state: {
    readonly inbox: readonly Item[];
    readonly outbox: readonly Item[];
    /** What the relay's dead-letter queue holds. */
    readonly deadLetters: readonly unknown[];
  },
  consumers: { readonly ledger: string; readonly notifier: string },
): InvariantResult[] {
  const entries = new Map(state.inbox.map((entry) => [String(entry.pk), entry]));
  const items = new Set(state.outbox.map((item) => String(item.pk)));
  const completed = (consumer: string, key: string) =>
    entries.get(inboxPk(consumer, key))?.status === InboxStatus.Completed;
  const credited = plan.payments.filter((p) => completed(consumers.ledger, p.eventId));
  const idOf = (eventId: string) => outboxMessageId(consumers.ledger, eventId, { name: CREDITED });
  const notPublished = credited.filter((p) => !items.has(`msg#${idOf(p.eventId)}`));
  const notDelivered = credited.filter((p) => !completed(consumers.notifier, p.eventId));
  const { deadLetters } = state;
  return [
    {
      name: 'every credited payment published in its transaction (an outbox item per credit)',
      holds: notPublished.length === 0 && state.outbox.length === credited.length,
      detail: `${state.outbox.length} outbox items for ${credited.length} credited payments${
        notPublished.length
          ? `; missing for ${notPublished
              .slice(0, 3)
              .map((p) => p.eventId)
              .join(', ')}`
          : ''
      }`,
    },
    {
      name: 'nothing lost between the hops: every published message relayed and committed by the notifier, none dead-lettered by the relay',
      holds: notDelivered.length === 0 && deadLetters.length === 0,
      detail: `${credited.length - notDelivered.length} of ${credited.length} notified${
        notDelivered.length
          ? ` (not: ${notDelivered
              .slice(0, 3)
              .map((p) => p.eventId)
              .join(', ')})`
          : ''
      }, ${deadLetters.length} in the relay's dead-letter queue`,
      figures: {
        credited: credited.length,
        notified: credited.length - notDelivered.length,
        relayDeadLetters: deadLetters.length,
      },
    },
  ];
}
