import type { OrderPlaced } from '../../functions/inventory/orderPlaced.js';
import type { PaymentCaptured } from '../../functions/ledger/paymentCaptured.js';
import type { PaymentNotification } from '../../functions/notifier/paymentNotification.js';

/** Who a demo message is for. */
export type ConsumerName = 'ledger' | 'inventory' | 'notifier';

/** The reference consumers, in the order reports list them. */
export const CONSUMER_NAMES: readonly ConsumerName[] = ['ledger', 'inventory', 'notifier'];

/**
 * One message to send: its consumer, payload and (ledger) message group. It is published
 * through the consumer's upstream (the payments topic, the orders bus) unless `direct`: then
 * it is sent to the queue itself, as no producer of that consumer would.
 */
export interface DemoMessage {
  readonly consumer: ConsumerName;
  readonly body: string;
  readonly groupId?: string;
  readonly direct?: boolean;
  /** For a message meant to be dead-lettered by the library: the error it must name. */
  readonly expectedError?: string;
}

/** The traffic of a run and what it should leave behind. */
export interface DemoPlan {
  readonly messages: readonly DemoMessage[];
  readonly payments: readonly PaymentCaptured[];
  readonly orders: readonly OrderPlaced[];
  /** Payments the notifier is told of: one email and one receipt each. */
  readonly notifications: readonly PaymentNotification[];
  readonly malformed: readonly DemoMessage[];
  /** Events for a payment already recorded: retried until the redrive policy dead-letters them. */
  readonly conflicting: readonly PaymentCaptured[];
  readonly seededStock: ReadonlyMap<string, number>;
  readonly duplicates: number;
}

const ACCOUNTS = ['acc-alice', 'acc-bob', 'acc-carol', 'acc-dave'];
const SKUS = ['sku-apple', 'sku-bread', 'sku-cheese', 'sku-dates', 'sku-eggs'];
const STOCK_PER_SKU = 25;

/**
 * A small seeded PRNG (mulberry32), so a run's traffic is reproducible from its seed.
 *
 * @example
 * ```ts
 * const random = seededRandom(42); random(); // 0.6011037519201636
 * ```
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A payer's address: `<account>@example.com` by default. */
export type MailboxOf = (accountId: string) => string;

const exampleMailbox: MailboxOf = (accountId) => `${accountId}@example.com`;

/**
 * A notification of a captured payment for the notifier: the payment's own event id (the
 * notifier's inbox keys are its own) and its payer's address (`mailboxOf`).
 *
 * @example
 * ```ts
 * notificationOf(payment) // { ...payment, email: 'acc-alice@example.com' }
 * ```
 */
export function notificationOf(
  payment: PaymentCaptured,
  mailboxOf: MailboxOf = exampleMailbox,
): PaymentNotification {
  return { ...payment, email: mailboxOf(payment.accountId) };
}

/**
 * A malformed message for `consumer`, which its inbox dead-letters at once with the error it
 * names: a payment the schema refuses, a body on the inventory queue that is no EventBridge
 * event, a notification with no valid address. A notifier that reads only what the ledger's
 * outbox relays (`notifierRelayed`) refuses the notification sent to it directly first: it
 * carries no outbox id.
 *
 * @example
 * ```ts
 * malformedMessage('notifier', 'evt-9', 0, false).expectedError // => 'SchemaValidationError'
 * ```
 */
export function malformedMessage(
  consumer: ConsumerName,
  eventId: string,
  turn: number,
  notifierRelayed = true,
): DemoMessage {
  if (consumer === 'ledger')
    return {
      consumer,
      body: JSON.stringify({ eventId, accountId: 'acc-malformed', amountCents: -1 }),
      groupId: `malformed-${turn}`,
      expectedError: 'SchemaValidationError',
    };
  if (consumer === 'inventory')
    return {
      consumer,
      body: `{"eventId": "${eventId}", "orderId": `,
      direct: true,
      expectedError: 'EnvelopeMismatchError',
    };
  return {
    consumer,
    body: JSON.stringify({
      eventId,
      accountId: 'acc-malformed',
      paymentId: `pay-${eventId}`,
      amountCents: 100,
      currency: 'EUR',
      email: 'not an address',
    }),
    expectedError: notifierRelayed ? 'EnvelopeMismatchError' : 'SchemaValidationError',
  };
}

/**
 * Plans `total` messages: payments, orders and notifications of the payments, `duplicateRate`
 * of them delivered again by their upstream (the same envelope as a new SQS message), some
 * orders larger than the stock, and a few malformed messages for each consumer: a payment the
 * schema refuses, a body sent straight to the inventory queue that is no EventBridge event, a
 * notification with no valid address. Payers' addresses are `mailboxOf(account)`: on AWS, SES's
 * mailbox simulator, which a sandboxed account may send to.
 */
export function planDemoTraffic(
  total: number,
  duplicateRate: number,
  seed: number,
  mailboxOf: MailboxOf = exampleMailbox,
): DemoPlan {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  let sequence = 0;
  const id = (prefix: string) => `${prefix}-${seed}-${++sequence}`;
  const malformedCount = Math.max(3, Math.round(total * 0.03));
  const conflictingCount = total >= 20 ? 1 : 0;
  const distinctCount = Math.max(
    0,
    Math.round((total - malformedCount - conflictingCount) / (1 + duplicateRate)),
  );
  const payments: PaymentCaptured[] = [];
  const orders: OrderPlaced[] = [];
  const notifications: PaymentNotification[] = [];
  const distinct: DemoMessage[] = [];
  for (let i = 0; i < distinctCount; i++) {
    if (i % 3 !== 1) {
      const accountId = pick(ACCOUNTS);
      const payment = {
        eventId: id('evt'),
        accountId,
        paymentId: id('pay'),
        amountCents: 100 + Math.floor(random() * 9900),
        currency: 'EUR',
        email: mailboxOf(accountId),
      };
      payments.push(payment);
      // Credited, the ledger publishes it to the notifier through its outbox.
      notifications.push(notificationOf(payment, mailboxOf));
      distinct.push({
        consumer: 'ledger',
        body: JSON.stringify(payment),
        groupId: payment.accountId,
      });
    } else {
      const big = random() < 0.15;
      const lines = Array.from({ length: 1 + Math.floor(random() * 3) }, () => ({
        sku: pick(SKUS),
        quantity: big ? STOCK_PER_SKU + 5 : 1 + Math.floor(random() * 3),
      }));
      const order = { eventId: id('evt'), orderId: id('ord'), lines };
      orders.push(order);
      distinct.push({ consumer: 'inventory', body: JSON.stringify(order) });
    }
  }
  // Copies without replacement: each copied event is sent exactly twice.
  const copies = shuffle([...distinct], random).slice(
    0,
    Math.max(0, total - malformedCount - conflictingCount - distinctCount),
  );
  const malformed: DemoMessage[] = Array.from({ length: malformedCount }, (_, i) =>
    malformedMessage(CONSUMER_NAMES[i % CONSUMER_NAMES.length] ?? 'ledger', id('evt'), i),
  );
  const conflicting = payments
    .slice(0, conflictingCount)
    .map((payment) => ({ ...payment, eventId: id('evt'), amountCents: 1 }));
  // Same message group as the payment it collides with: FIFO order makes the original win.
  const conflictingMessages = conflicting.map(
    (payment): DemoMessage => ({
      consumer: 'ledger',
      body: JSON.stringify(payment),
      groupId: payment.accountId,
    }),
  );
  const messages = shuffle([...distinct, ...copies, ...malformed], random);
  return {
    // A conflicting event is sent after everything else of its message group.
    messages: [...messages, ...conflictingMessages],
    payments,
    orders,
    notifications,
    malformed,
    conflicting,
    seededStock: new Map(SKUS.map((sku) => [sku, STOCK_PER_SKU])),
    duplicates: copies.length,
  };
}

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}
