import type { OrderPlaced } from '../../functions/inventory/orderPlaced.js';
import type { PaymentCaptured } from '../../functions/ledger/paymentCaptured.js';
import type { PaymentNotification } from '../../functions/notifier/paymentNotification.js';
import {
  CONSUMER_NAMES,
  type ConsumerName,
  type DemoMessage,
  type DemoPlan,
  malformedMessage,
  notificationOf,
  seededRandom,
} from '../local/demoTraffic.js';
import type { CounterIncremented } from './counterConsumer.js';

/** The chaos run's consumers: the two reference consumers and the naive counter. */
export type ChaosConsumer = ConsumerName | 'counter';
/** A message of the chaos run, for any of its consumers. */
export type ChaosMessage = Omit<DemoMessage, 'consumer'> & { readonly consumer: ChaosConsumer };

const COUNTER_COUNT = 20;

const ACCOUNT_COUNT = 30;
const SKUS = ['sku-apple', 'sku-bread', 'sku-cheese', 'sku-dates', 'sku-eggs', 'sku-figs'];
// A copy sent this many messages after its original lands, with batches of ten and several
// workers, in another worker's batch while the original is still being processed.
const TWIN_OFFSET = { min: 8, spread: 7 };

/**
 * The chaos run's traffic, wave by wave, from a seed: payments (FIFO, group = account), each
 * with its payer's address (the ledger publishes every credit to the notifier through its
 * outbox), orders and counter increments; `duplicateRate` of the events sent twice as separate SQS messages —
 * half of the copies right behind the original (two consumers then hold both at once), half in
 * the next wave (after the original committed); some orders larger than any stock; one malformed
 * message a wave. `plan()` is what went to the reference consumers, in the shape the invariant
 * checks read; `counterPlan()` what went to the counter.
 *
 * @example
 * ```ts
 * const traffic = new ChaosTraffic({ seed: 7, duplicateRate: 0.25, stockPerSku: 500 });
 * const messages = traffic.nextWave(40);
 * ```
 */
export class ChaosTraffic {
  readonly #random: () => number;
  readonly #seed: number;
  readonly #duplicateRate: number;
  readonly #payments: PaymentCaptured[] = [];
  readonly #orders: OrderPlaced[] = [];
  readonly #notifications: PaymentNotification[] = [];
  readonly #malformed: DemoMessage[] = [];
  readonly #messages: ChaosMessage[] = [];
  readonly #counterEvents: CounterIncremented[] = [];
  readonly #seededStock: Map<string, number>;
  #lateCopies: ChaosMessage[] = [];
  #copies = 0;
  #sequence = 0;

  constructor(options: { seed: number; duplicateRate: number; stockPerSku: number }) {
    this.#seed = options.seed;
    this.#random = seededRandom(options.seed);
    this.#duplicateRate = options.duplicateRate;
    this.#seededStock = new Map(SKUS.map((sku) => [sku, options.stockPerSku]));
  }

  /** The next `events` distinct events with their copies, last wave's late copies and one malformed message. */
  nextWave(events: number): ChaosMessage[] {
    const lists: Record<ChaosConsumer, ChaosMessage[]> = {
      ledger: [],
      inventory: [],
      notifier: [],
      counter: [],
    };
    const late: ChaosMessage[] = [];
    for (let i = 0; i < events; i++) {
      const pick = this.#random();
      const message = pick < 0.4 ? this.#payment() : pick < 0.75 ? this.#order() : this.#counter();
      const list = lists[message.consumer];
      list.push(message);
      if (this.#random() >= this.#duplicateRate) continue;
      if (this.#random() < 0.5) late.push(message);
      else this.#twins.push({ list, message, at: list.length - 1 });
    }
    for (const copy of this.#lateCopies)
      lists[copy.consumer].splice(this.#index(lists[copy.consumer].length + 1), 0, copy);
    for (const { list, message, at } of this.#twins.splice(0))
      list.splice(
        Math.min(
          list.length,
          at + TWIN_OFFSET.min + Math.floor(this.#random() * TWIN_OFFSET.spread),
        ),
        0,
        message,
      );
    this.#lateCopies = late;
    const malformed = this.#malformedMessage();
    lists[malformed.consumer].splice(
      this.#index(lists[malformed.consumer].length + 1),
      0,
      malformed,
    );
    const wave = [...lists.ledger, ...lists.inventory, ...lists.notifier, ...lists.counter];
    this.#copies += wave.length - events - 1;
    this.#messages.push(...wave);
    return wave;
  }

  /** Everything sent so far to the reference consumers, and what it should leave behind. */
  plan(): DemoPlan {
    return {
      messages: this.#messages.filter((m): m is DemoMessage => m.consumer !== 'counter'),
      payments: this.#payments,
      orders: this.#orders,
      notifications: this.#notifications,
      malformed: this.#malformed,
      conflicting: [],
      seededStock: this.#seededStock,
      duplicates: this.#copies,
    };
  }

  /** Everything sent so far to the counter consumer: its distinct events and its messages. */
  counterPlan(): { events: readonly CounterIncremented[]; messages: readonly ChaosMessage[] } {
    return {
      events: this.#counterEvents,
      messages: this.#messages.filter((m) => m.consumer === 'counter'),
    };
  }

  /** Every message sent so far, to any consumer, copies included. */
  sentMessages(): readonly ChaosMessage[] {
    return this.#messages;
  }

  /** How many messages were sent so far, to any consumer. */
  get sent(): number {
    return this.#messages.length;
  }

  readonly #twins: Array<{ list: ChaosMessage[]; message: ChaosMessage; at: number }> = [];

  #index(length: number): number {
    return Math.floor(this.#random() * length);
  }

  #id(prefix: string): string {
    return `${prefix}-${this.#seed}-${++this.#sequence}`;
  }

  #payment(): DemoMessage {
    const accountId = `acc-${1 + this.#index(ACCOUNT_COUNT)}`;
    const payment: PaymentCaptured = {
      eventId: this.#id('evt'),
      accountId,
      paymentId: this.#id('pay'),
      amountCents: 100 + this.#index(9900),
      currency: 'EUR',
      email: `${accountId}@example.com`,
    };
    this.#payments.push(payment);
    // Credited, the ledger publishes its notification through the outbox.
    this.#notifications.push(notificationOf(payment));
    return { consumer: 'ledger', body: JSON.stringify(payment), groupId: payment.accountId };
  }

  #counter(): ChaosMessage {
    const event: CounterIncremented = {
      eventId: this.#id('evt'),
      counterId: `counter-${1 + this.#index(COUNTER_COUNT)}`,
      amount: 1 + this.#index(1000),
    };
    this.#counterEvents.push(event);
    return { consumer: 'counter', body: JSON.stringify(event) };
  }

  #order(): DemoMessage {
    const big = this.#random() < 0.1;
    const stock = Math.max(...this.#seededStock.values());
    const lines = Array.from({ length: 1 + this.#index(3) }, () => ({
      sku: SKUS[this.#index(SKUS.length)] ?? 'sku-apple',
      quantity: big ? stock + 1 : 1 + this.#index(3),
    }));
    const order: OrderPlaced = { eventId: this.#id('evt'), orderId: this.#id('ord'), lines };
    this.#orders.push(order);
    return { consumer: 'inventory', body: JSON.stringify(order) };
  }

  #malformedMessage(): DemoMessage {
    const turn = this.#malformed.length;
    const consumer = CONSUMER_NAMES[turn % CONSUMER_NAMES.length] ?? 'ledger';
    // The notifier reads only what the relay sends: a notification sent to it directly is refused.
    const message = malformedMessage(consumer, this.#id('evt'), turn);
    this.#malformed.push(message);
    return message;
  }
}
