import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { businessTableVariable, InboxEnvironment } from 'sqs-inbox/constants';
import { InventoryTable } from '../../functions/inventory/orderPlaced.js';
import { LedgerTable } from '../../functions/ledger/paymentCaptured.js';
import { NotifierEnvironment } from '../../functions/notifier/notifierEnvironment.js';
import { NotifierTable } from '../../functions/notifier/paymentNotification.js';
import {
  conflictingRedriven,
  malformedInDeadLetters,
  nothingLost,
  onlyExpectedDeadLetters,
} from './checkDeadLetters.js';
import {
  checkNotifications,
  type ExtraEmailAllowance,
  type NotifierTargets,
} from './checkNotifications.js';
import { checkOutboxChain, type OutboxTargets } from './checkOutboxChain.js';
import { CONSUMER_NAMES, type ConsumerName, type DemoPlan } from './demoTraffic.js';
import type { InvariantResult } from './InvariantResult.js';
import type { LocalMapping } from './provisionFromTemplate.js';
import { eventIdOf, type Item, isCommitted, peekAll, scanAll } from './readRunState.js';
import type { SentEmail } from './readSentEmails.js';
import { payloadOf } from './UpstreamDelivery.js';

export type { InvariantResult } from './InvariantResult.js';
export { bodyHash, peekAll, scanAll } from './readRunState.js';

/** The tables and dead-letter queues the invariants read. */
export interface InvariantTargets {
  readonly accounts: string;
  readonly entries: string;
  readonly stock: string;
  readonly orders: string;
  /** The notifier's `notifications` table, its receipts bucket and its inbox name. */
  readonly notifier: NotifierTargets & { readonly notifications: string };
  readonly deadLetterQueues: Record<ConsumerName, string>;
  /** The inbox table and each consumer's name in it (`INBOX_CONSUMER`). */
  readonly inbox: { readonly table: string; readonly consumers: Record<ConsumerName, string> };
  /** The ledger's outbox, when the run relays it to the notifier (`npm start`). */
  readonly outbox?: OutboxTargets;
}

/** What the run's emails were, and the extra ones its crashes account for (notifier). */
export interface SentEmails {
  /** Every email SES accepted during the run, in order. */
  readonly emails: readonly SentEmail[];
  readonly allowance: ExtraEmailAllowance;
  /** Why the emails cannot be read (AWS keeps no list of sent mail): their checks are skipped. */
  readonly unreadable?: string;
}

/**
 * Checks the reference service's promises after a run: no double effects (balances, one
 * ledger entry per payment, one decision per order, one receipt and one email per notified
 * payment beyond the accounted extras), no oversold stock, and every malformed message in a
 * DLQ with its reason.
 */
export async function checkInvariants(
  plan: DemoPlan,
  targets: InvariantTargets,
  clients: { dynamodb: DynamoDBClient; sqs: SQSClient; s3: S3Client },
  sent: SentEmails,
): Promise<InvariantResult[]> {
  const documentClient = DynamoDBDocumentClient.from(clients.dynamodb);
  const tables = [targets.accounts, targets.entries, targets.stock, targets.orders];
  const [accounts, entries, stock, orders, notifications, inbox, outbox] = await Promise.all(
    [...tables, targets.notifier.notifications, targets.inbox.table]
      .concat(targets.outbox ? [targets.outbox.table] : [])
      .map((table) => scanAll(documentClient, table)),
  );
  const committedEntries = new Map(inbox?.map((entry) => [String(entry.pk), entry]));
  const committedNotifications = plan.notifications.filter((n) =>
    isCommitted(
      { consumer: 'notifier', body: JSON.stringify(n) },
      committedEntries,
      targets.inbox.consumers,
    ),
  );
  // A dead-lettered message carries the envelope it was delivered in: compared by its payload.
  // The relay's dead-letter queue is read beside the consumers', not after them.
  const relayDeadLetters = targets.outbox
    ? peekAll(clients.sqs, targets.outbox.deadLetterQueueUrl)
    : Promise.resolve([]);
  const dead = await Promise.all(
    CONSUMER_NAMES.map(async (consumer) =>
      (await peekAll(clients.sqs, targets.deadLetterQueues[consumer])).map((message) => ({
        consumer,
        message: { ...message, Body: payloadOf(message.Body ?? '') },
      })),
    ),
  );
  const relayDead = await relayDeadLetters;
  const deadMessages = dead.flat().map(({ message }) => message);
  return [
    balancesMatchPayments(plan, accounts ?? []),
    oneEntryPerPayment(plan, entries ?? []),
    noSkuBelowZero(stock ?? []),
    stockIsConserved(plan, stock ?? []),
    oneDecisionPerOrder(plan, orders ?? [], stock ?? []),
    upstreamDuplicatesAppliedOnce(
      plan,
      { accounts: accounts ?? [], orders: orders ?? [], notifications: notifications ?? [] },
      inbox ?? [],
      targets,
    ),
    ...(await checkNotifications(
      {
        committed: committedNotifications,
        rows: notifications ?? [],
        emails: sent.emails,
        ...(sent.unreadable ? { emailsUnreadable: sent.unreadable } : {}),
      },
      targets.notifier,
      clients.s3,
      sent.allowance,
    )),
    malformedInDeadLetters(plan, deadMessages),
    // Only `npm start` sends conflicting payments; the check is vacuous without them.
    ...(plan.conflicting.length > 0
      ? [conflictingRedriven(plan, deadMessages, entries ?? [])]
      : []),
    nothingLost(plan, inbox ?? [], dead.flat(), targets.inbox.consumers),
    ...(targets.outbox
      ? checkOutboxChain(
          plan,
          { inbox: inbox ?? [], outbox: outbox ?? [], deadLetters: relayDead },
          targets.inbox.consumers,
        )
      : []),
    onlyExpectedDeadLetters(plan, dead.flat()),
  ];
}

/**
 * What the invariants read, from the three reference mappings' function environments.
 *
 * @example
 * ```ts
 * const targets = invariantTargetsOf({ ledger, inventory, notifier });
 * ```
 */
export function invariantTargetsOf(
  mappings: Readonly<Record<ConsumerName, LocalMapping>>,
): InvariantTargets {
  const { ledger, inventory, notifier } = mappings;
  const consumerOf = (mapping: LocalMapping) =>
    mapping.environment[InboxEnvironment.Consumer] ?? '';
  return {
    accounts: ledger.environment[businessTableVariable(LedgerTable.Accounts)] ?? '',
    entries: ledger.environment[businessTableVariable(LedgerTable.Entries)] ?? '',
    stock: inventory.environment[businessTableVariable(InventoryTable.Stock)] ?? '',
    orders: inventory.environment[businessTableVariable(InventoryTable.Orders)] ?? '',
    notifier: {
      notifications: notifier.environment[businessTableVariable(NotifierTable.Notifications)] ?? '',
      receiptsBucket: notifier.environment[NotifierEnvironment.ReceiptsBucket] ?? '',
      sender: notifier.environment[NotifierEnvironment.Sender] ?? '',
      consumer: consumerOf(notifier),
    },
    deadLetterQueues: {
      ledger: ledger.deadLetterQueueUrl,
      inventory: inventory.deadLetterQueueUrl,
      notifier: notifier.deadLetterQueueUrl,
    },
    inbox: {
      table: ledger.environment[InboxEnvironment.TableName] ?? '',
      consumers: {
        ledger: consumerOf(ledger),
        inventory: consumerOf(inventory),
        notifier: consumerOf(notifier),
      },
    },
  };
}

function balancesMatchPayments(plan: DemoPlan, accounts: Item[]): InvariantResult {
  const expected = new Map<string, number>();
  for (const p of plan.payments)
    expected.set(p.accountId, (expected.get(p.accountId) ?? 0) + p.amountCents);
  const wrong = [
    ...[...expected]
      .filter(
        ([id, cents]) =>
          Number(accounts.find((a) => a.accountId === id)?.balanceCents ?? 0) !== cents,
      )
      .map(([id]) => id),
    ...accounts
      .filter((a) => !expected.has(String(a.accountId)) && Number(a.balanceCents ?? 0) !== 0)
      .map((a) => String(a.accountId)),
  ];
  return {
    name: 'each balance = sum of its distinct payments',
    holds: wrong.length === 0,
    detail: wrong.length === 0 ? `${expected.size} accounts` : `wrong: ${wrong.join(', ')}`,
  };
}

function oneEntryPerPayment(plan: DemoPlan, entries: Item[]): InvariantResult {
  const byPayment = new Map(entries.map((e) => [e.paymentId, e.eventId]));
  const missing = plan.payments.filter((p) => byPayment.get(p.paymentId) !== p.eventId);
  return {
    name: 'exactly one ledger entry per payment',
    holds: missing.length === 0 && entries.length === plan.payments.length,
    detail: `${entries.length} entries for ${plan.payments.length} payments${missing.length ? `, ${missing.length} missing` : ''}`,
  };
}

function noSkuBelowZero(stock: Item[]): InvariantResult {
  const negative = stock.filter(
    (s) => !Number.isFinite(Number(s.available)) || Number(s.available) < 0,
  );
  return {
    name: 'no SKU below zero',
    holds: negative.length === 0,
    detail: negative.length
      ? `negative: ${negative.map((s) => s.sku).join(', ')}`
      : `${stock.length} SKUs`,
  };
}

function stockIsConserved(plan: DemoPlan, stock: Item[]): InvariantResult {
  const wrong = [...plan.seededStock].filter(([sku, seeded]) => {
    const row = stock.find((s) => s.sku === sku);
    return Number(row?.available ?? 0) + Number(row?.reserved ?? 0) !== seeded;
  });
  return {
    name: 'reserved + available = seeded stock',
    holds: wrong.length === 0,
    detail: wrong.length
      ? `wrong: ${wrong.map(([sku]) => sku).join(', ')}`
      : `${plan.seededStock.size} SKUs`,
  };
}

function oneDecisionPerOrder(plan: DemoPlan, orders: Item[], stock: Item[]): InvariantResult {
  const decided = new Map(orders.map((o) => [o.orderId, o]));
  const undecided = plan.orders.filter((o) => decided.get(o.orderId)?.eventId !== o.eventId);
  const reservedBySku = new Map<string, number>();
  for (const order of plan.orders) {
    if (decided.get(order.orderId)?.status !== 'RESERVED') continue;
    for (const { sku, quantity } of order.lines)
      reservedBySku.set(sku, (reservedBySku.get(sku) ?? 0) + quantity);
  }
  const mismatched = stock.filter(
    (s) => Number(s.reserved ?? 0) !== (reservedBySku.get(String(s.sku)) ?? 0),
  );
  const rejected = orders.filter((o) => o.status === 'REJECTED').length;
  return {
    name: 'each order reserved or rejected exactly once',
    holds:
      undecided.length === 0 && orders.length === plan.orders.length && mismatched.length === 0,
    detail: `${orders.length - rejected} reserved, ${rejected} rejected of ${plan.orders.length}${mismatched.length ? `; reservations off for ${mismatched.length} SKUs` : ''}`,
  };
}

/**
 * Per event its upstream delivered twice (the same envelope as a second SQS message): one
 * inbox entry with its payload's hash, and its effect counted once — its account's balance is
 * the sum of the account's distinct payments, its order decided once by this event, its
 * notification recorded (its emails and receipt have invariants of their own).
 */
function upstreamDuplicatesAppliedOnce(
  plan: DemoPlan,
  { accounts, orders, notifications }: Record<'accounts' | 'orders' | 'notifications', Item[]>,
  inbox: Item[],
  targets: InvariantTargets,
): InvariantResult {
  const seen = new Set<string>();
  const twice = plan.messages.filter((m) => {
    const id = `${m.consumer}\n${m.body}`;
    if (seen.has(id)) return true;
    seen.add(id);
    return false;
  });
  const entries = new Map(inbox.map((entry) => [String(entry.pk), entry]));
  const balance = new Map(accounts.map((a) => [a.accountId, Number(a.balanceCents ?? 0)]));
  const expected = new Map<unknown, number>();
  for (const p of plan.payments)
    expected.set(p.accountId, (expected.get(p.accountId) ?? 0) + p.amountCents);
  const decided = new Map(orders.map((o) => [o.orderId, o.eventId]));
  const notified = new Set(notifications.map((n) => n.eventId));
  const wrong = twice.filter((message) => {
    if (!isCommitted(message, entries, targets.inbox.consumers)) return true;
    const event = JSON.parse(message.body) as {
      accountId?: string;
      orderId?: string;
      eventId: string;
    };
    if (message.consumer === 'ledger')
      return balance.get(event.accountId) !== expected.get(event.accountId);
    if (message.consumer === 'inventory') return decided.get(event.orderId) !== event.eventId;
    return !notified.has(event.eventId);
  });
  return {
    name: 'every event its upstream delivered twice (same envelope, new SQS message) applied once',
    holds: wrong.length === 0,
    detail: wrong.length
      ? `${wrong.length} of ${twice.length} not: ${wrong
          .slice(0, 3)
          .map((m) => eventIdOf(m.body))
          .join(', ')}`
      : `${twice.length} events`,
  };
}
