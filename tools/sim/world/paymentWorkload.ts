import type { Prng } from '../kernel/Prng.js';
import { type WorldConfig, WorldConsumer } from './WorldConfig.js';

/**
 * What the workload planted in an event, and so how it must end.
 *
 * @example
 * ```ts
 * if (event.planted === Planted.Poison) expect(dlqReason).toBe('MessageParseError');
 * ```
 */
export const Planted = {
  None: 'none',
  /** A body that is not JSON: dead-lettered with MessageParseError. */
  Poison: 'poison',
  /** A payment the schema refuses: dead-lettered with SchemaValidationError. */
  Invalid: 'invalid',
  /** A payment in another currency than its account's: dead-lettered with PermanentError. */
  CurrencyMismatch: 'currency mismatch',
  /** Two events for one payment: one commits, the other fails its condition until dead-lettered. */
  PaymentCollision: 'payment collision',
  /**
   * Two events with one eventId (a producer reusing an id) but other payments: one commits, the
   * other is dead-lettered with PayloadMismatchError.
   */
  KeyReused: 'key reused',
  /**
   * An increment of a counter that was never opened (worlds with `unknownCounterRate`): the
   * guarded counter's condition refuses it at every receive, so it is dead-lettered with
   * BusinessConditionFailedError on its last, and the counter is never created.
   */
  UnknownCounter: 'unknown counter',
} as const;
/** One of the values of {@link Planted}. */
export type Planted = (typeof Planted)[keyof typeof Planted];

/**
 * One event the producer sends, with when and what it should come to.
 *
 * @example
 * ```ts
 * const expectedCents = events.filter((e) => e.planted === Planted.None).reduce((s, e) => s + e.amountCents, 0);
 * ```
 */
export interface PlannedEvent {
  readonly eventId: string;
  readonly accountId: string;
  readonly paymentId: string;
  readonly amountCents: number;
  readonly planted: Planted;
  readonly body: string;
  readonly sendAtMillis: number;
  /** When the upstream delivers it again (a new SQS message), if it does. */
  readonly againAtMillis: number | undefined;
  /** A quiet payment, which the notifier records without a step (`steplessRate`). */
  readonly stepless?: boolean;
}

/**
 * The end of a quiet payment's id: the notifier of a world with `steplessRate` records it
 * without a step.
 *
 * @example
 * ```ts
 * if (body.paymentId.endsWith(QUIET_PAYMENT_SUFFIX)) recordWithoutSteps();
 * ```
 */
export const QUIET_PAYMENT_SUFFIX = '-quiet';

/**
 * The payments of one world (for the counter consumer, each an increment of its account's counter).
 *
 * @example
 * ```ts
 * const { accounts, events } = planPaymentWorkload(config, random.derive('workload'));
 * ```
 */
export interface PaymentWorkload {
  readonly accounts: ReadonlyArray<{ readonly accountId: string; readonly currency: string }>;
  readonly events: readonly PlannedEvent[];
}

/**
 * The counter the events planted {@link Planted.UnknownCounter} add to: never opened, so it
 * must never exist.
 *
 * @example
 * ```ts
 * expect(counterItem(UNKNOWN_COUNTER_ID)).toBeUndefined();
 * ```
 */
export const UNKNOWN_COUNTER_ID = 'acct-unopened';

const SEND_SPREAD_MILLIS = 20_000;
/** How late an upstream sends its copy of an event, at most, unless the world says otherwise. */
const COPY_WITHIN_MILLIS = 600_000;

/**
 * Plans the payments of a world: accounts with a fixed currency, events spread over the first
 * seconds, some delivered twice by their upstream, some planted to fail.
 *
 * @example
 * ```ts
 * const workload = planPaymentWorkload(drawWorldConfig(random), random.derive('workload'));
 * ```
 */
export function planPaymentWorkload(config: WorldConfig, random: Prng): PaymentWorkload {
  const accounts = Array.from({ length: config.accounts }, (_, n) => ({
    accountId: `acct-${n + 1}`,
    currency: n % 3 === 2 ? 'USD' : 'EUR',
  }));
  const events: PlannedEvent[] = [];
  // Events another one collides with or reuses the id of: each is the target of one at most.
  const targeted = new Set<string>();
  // A stream of its own, so that the draws of the worlds before it stay as they were.
  const quietDraws = random.derive('stepless');
  for (let n = 1; n <= config.events; n++) {
    const account = random.pick(accounts);
    const planted = drawPlanted(config, random, events, targeted);
    const target =
      planted === Planted.PaymentCollision || planted === Planted.KeyReused
        ? pickTarget(events, targeted, random)
        : undefined;
    const collidesWith = planted === Planted.PaymentCollision ? target : undefined;
    const accountId =
      planted === Planted.UnknownCounter
        ? UNKNOWN_COUNTER_ID
        : (collidesWith?.accountId ?? account.accountId);
    const currency = accounts.find((a) => a.accountId === accountId)?.currency ?? 'EUR';
    const stepless =
      config.steplessRate !== undefined &&
      quietDraws.chance(planted === Planted.KeyReused ? 0.5 : config.steplessRate);
    const payment = {
      eventId: planted === Planted.KeyReused ? (target?.eventId ?? `evt-${n}`) : `evt-${n}`,
      accountId,
      paymentId: collidesWith?.paymentId ?? `pay-${n}${stepless ? QUIET_PAYMENT_SUFFIX : ''}`,
      amountCents: otherThan(
        planted === Planted.Invalid ? -random.int(1, 100) : random.int(1, 10_000),
        planted === Planted.KeyReused ? target?.amountCents : undefined,
      ),
      currency:
        planted === Planted.CurrencyMismatch ? (currency === 'EUR' ? 'USD' : 'EUR') : currency,
    };
    const sendAtMillis = random.int(0, config.sendSpreadMillis ?? SEND_SPREAD_MILLIS);
    events.push({
      ...payment,
      planted,
      body:
        planted === Planted.Poison
          ? `{"eventId":"${payment.eventId}", not json`
          : bodyOf(payment, config),
      sendAtMillis,
      againAtMillis: random.chance(config.upstreamDuplicateRate)
        ? sendAtMillis + random.int(1, config.upstreamCopyWithinMillis ?? COPY_WITHIN_MILLIS)
        : undefined,
      ...(stepless ? { stepless } : {}),
    });
  }
  return { accounts, events: markTargets(events) };
}

/** The event as its consumer's schema has it: a payment, or an increment of the account's counter. */
function bodyOf(
  payment: Omit<PlannedEvent, 'planted' | 'body' | 'sendAtMillis' | 'againAtMillis'> & {
    currency: string;
  },
  config: WorldConfig,
): string {
  if (config.consumer === WorldConsumer.Ledger && config.outbox === undefined) {
    return JSON.stringify(payment);
  }
  if (config.consumer !== WorldConsumer.Counter) {
    return JSON.stringify({ ...payment, email: `payer-${payment.accountId}@example.com` });
  }
  return JSON.stringify({
    eventId: payment.eventId,
    counterId: payment.accountId,
    amount: payment.amountCents,
  });
}

function drawPlanted(
  config: WorldConfig,
  random: Prng,
  earlier: readonly PlannedEvent[],
  targeted: ReadonlySet<string>,
): Planted {
  const roll = random.next();
  let edge = config.poisonRate;
  if (roll < edge) return Planted.Poison;
  edge += config.invalidRate;
  if (roll < edge) return Planted.Invalid;
  edge += config.currencyMismatchRate;
  if (roll < edge) return Planted.CurrencyMismatch;
  const targetable = earlier.some((e) => e.planted === Planted.None && !targeted.has(e.eventId));
  edge += config.paymentCollisionRate;
  if (roll < edge && targetable) return Planted.PaymentCollision;
  edge += config.keyReuseRate ?? 0;
  if (roll < edge && targetable) return Planted.KeyReused;
  // Its own band: a roll that fell in an earlier one without a target stays None.
  if (roll >= edge && roll < edge + (config.unknownCounterRate ?? 0)) {
    return Planted.UnknownCounter;
  }
  return Planted.None;
}

/** The amount, made to differ from a reused id's first event so that the two bodies differ. */
function otherThan(amountCents: number, reused: number | undefined): number {
  return amountCents === reused ? amountCents + 1 : amountCents;
}

function pickTarget(
  events: readonly PlannedEvent[],
  targeted: Set<string>,
  random: Prng,
): PlannedEvent {
  const target = random.pick(
    events.filter((event) => event.planted === Planted.None && !targeted.has(event.eventId)),
  );
  targeted.add(target.eventId);
  return target;
}

/**
 * The first event of a collided payment, or of a reused id, is planted too: either of the two
 * may be the one that commits.
 */
function markTargets(events: readonly PlannedEvent[]): PlannedEvent[] {
  const collided = new Set(
    events.filter((e) => e.planted === Planted.PaymentCollision).map((e) => e.paymentId),
  );
  const reused = new Set(
    events.filter((e) => e.planted === Planted.KeyReused).map((e) => e.eventId),
  );
  return events.map((event) => {
    if (event.planted !== Planted.None) return event;
    if (collided.has(event.paymentId)) return { ...event, planted: Planted.PaymentCollision };
    if (reused.has(event.eventId)) return { ...event, planted: Planted.KeyReused };
    return event;
  });
}
