import { Precheck } from '../../../src/constants/values.js';
import type { Prng } from '../kernel/Prng.js';
import { drawRedriveKind, type OperatorRedriveSettings } from './drawRedriveKind.js';
import { WorldConsumer } from './WorldConsumer.js';
import { drawRetry, type WorldRetrySettings } from './worldRetry.js';

export { WorldConsumer } from './WorldConsumer.js';

/**
 * Everything a world is made of, drawn from its seed (or given, to replay or shrink): the
 * queue, the Lambda event source mapping, the workload and the faults.
 *
 * @example
 * ```ts
 * const config = drawWorldConfig(new Prng(seed).derive('config'));
 * ```
 */
export interface WorldConfig extends OperatorRedriveSettings, WorldRetrySettings {
  /** The reference ledger (business conditions too), or the counter (the inbox alone). */
  readonly consumer: WorldConsumer;
  readonly fifo: boolean;
  /** Payments produced (each a distinct event), and the accounts they go to. */
  readonly events: number;
  readonly accounts: number;
  /** Share of events an upstream delivers again later, as a new SQS message. */
  readonly upstreamDuplicateRate: number;
  /**
   * How soon after an event its upstream copy is sent, at most (default 10 minutes); short,
   * copies of one message meet in one batch and race for one inbox entry.
   */
  readonly upstreamCopyWithinMillis?: number;
  /** Planted failures: a body that is not JSON, one the schema refuses, a payment in another currency. */
  readonly poisonRate: number;
  readonly invalidRate: number;
  readonly currencyMismatchRate: number;
  /** A second event for a payment already paid (same paymentId, new eventId). */
  readonly paymentCollisionRate: number;
  /** DLQ redrives during the run by an operator (each copy a new messageId). */
  readonly redrives: number;
  readonly batchSize: number;
  /** Concurrent invocations the event source mapping runs at most. */
  readonly pollers: number;
  /** The processor's `concurrency` option. */
  readonly recordConcurrency: number;
  /** The processor's `performance.precheck` option. */
  readonly precheck: Precheck;
  /** The processor's `coalesce` option: several messages' commits in one transaction. */
  readonly coalesce?: boolean;
  /** Events are sent over this long from the start (default 20 s); short: full batches. */
  readonly sendSpreadMillis?: number;
  readonly maxReceiveCount: number;
  readonly functionTimeoutMillis: number;
  readonly visibilityTimeoutMillis: number;
  readonly transactionAttempts: number;
  readonly ttlSeconds: number;
  /** How late the TTL sweeper deletes an expired entry, at most. */
  readonly ttlSweepLagMillis: number;
  /** Largest clock skew of a Lambda container, either way. */
  readonly clockSkewMillis: number;
  readonly faults: FaultRates;
  /**
   * Where the queue's messages come from: sent to SQS directly (the default), or published to
   * an SNS topic that delivers them to the queue in its envelope.
   */
  readonly source?: WorldSource;
  /** A second event with an earlier one's eventId and another payment (default none). */
  readonly keyReuseRate?: number;
  /** The processor's `leaseMillis` (steps only); default the invocation's remaining time. */
  readonly leaseMillis?: number;
  /**
   * The ledger publishes each credit through its transactional outbox, relayed from the
   * outbox's stream to a downstream consumer's queue (ledger worlds only; default none).
   */
  readonly outbox?: WorldOutbox;
  /**
   * Share of the notifier's events it records without a step (a quiet payment: no email, no
   * receipt), so that a key reused by a step-less body meets another payload's journal (half of
   * the reused keys are quiet). Notifier worlds only; default none.
   */
  readonly steplessRate?: number;
  /** Share of journal writes throttled while faults are on (notifier worlds; default none). */
  readonly journalThrottling?: number;
  /**
   * DynamoDB's transaction-conflict rules apply (see `ConflictRules`): a transaction holds its
   * items for its service time, and writes meeting them are refused. Default off, so that the
   * worlds pinned before the rules existed replay as they were.
   */
  readonly conflictRules?: boolean;
  /**
   * Guarded counters (counter worlds with `coalesce`; default none): the counters are opened
   * before the run and each increment is conditioned on its counter existing
   * (`attribute_exists(counterId)`), and this share of the events goes to a counter never opened
   * — refused at every receive, never creating it. A conditional `ADD` on a hot item, which
   * hot-item aggregation must not merge.
   */
  readonly unknownCounterRate?: number;
  /**
   * Share of the consumer's containers that run the previous release (0.1.0), as during a
   * rolling deploy: the same code, but its entries and outbox items carry no format version
   * (see `previousRelease.ts`), so the others, and the relay, read items of the previous
   * format. Default none, so that the worlds pinned before format versions replay as they were.
   */
  readonly previousReleaseShare?: number;
}

/**
 * The second hop of an outbox world: the stream, the relay and the downstream consumer.
 *
 * @example
 * ```ts
 * if (config.outbox?.fifo) expectCommitOrderPerAccount();
 * ```
 */
export interface WorldOutbox {
  /** The downstream queue is FIFO: the ledger then groups its credits by account. */
  readonly fifo: boolean;
  /** Shards the outbox items hash to (order across them is not kept). */
  readonly shards: number;
  /** The relay's event source mapping's batch size. */
  readonly relayBatchSize: number;
  /** The relay's `concurrency` option: outbox items relayed at once. */
  readonly relayConcurrency: number;
  /** Share of messages the downstream queue refuses for good (the relay dead-letters them). */
  readonly refuseRate: number;
  /** The downstream consumer's event source mapping's batch size. */
  readonly downstreamBatchSize: number;
}

/**
 * How events reach the queue: as SQS messages, or as SNS notifications (an SNS retry delivers
 * the same notification again; a publisher's retry publishes a new one).
 *
 * @example
 * ```ts
 * if (config.source === WorldSource.Sns) body = envelope(body);
 * ```
 */
export const WorldSource = { Sqs: 'sqs', Sns: 'sns' } as const;
/** One of the values of {@link WorldSource}. */
export type WorldSource = (typeof WorldSource)[keyof typeof WorldSource];

/**
 * How often each fault strikes while faults are on (they stop at `untilMillis`, after which the
 * world must quiesce).
 *
 * @example
 * ```ts
 * const calm: FaultRates = { ...config.faults, killPerInvocation: 0 };
 * ```
 */
export interface FaultRates {
  readonly untilMillis: number;
  /** A container killed at a random time during an invocation. */
  readonly killPerInvocation: number;
  /** A container killed around its n-th request (before it is sent, or once it is). */
  readonly crashPointPerInvocation: number;
  readonly requestLost: number;
  readonly responseLost: number;
  /** A request the network delivers twice (an SDK retry whose first attempt landed). */
  readonly requestDuplicated: number;
  /** A request held back for long (past a takeover, a timeout), then applied. */
  readonly requestClogged: number;
  readonly transactionConflict: number;
  readonly throttling: number;
  /** An invocation's DynamoDB round trips slowed past the visibility timeout. */
  readonly slowInvocation: number;
  /** A delete with a stale receipt handle that SQS ignores. */
  readonly staleDeleteKept: number;
}

/**
 * Draws a world's configuration from its seed: the default mix of `npm run sim`.
 *
 * @example
 * ```ts
 * const config = drawWorldConfig(new Prng(12).derive('config'));
 * ```
 */
export function drawWorldConfig(random: Prng): WorldConfig {
  const roll = random.next();
  const consumer =
    roll < 0.4
      ? WorldConsumer.Ledger
      : roll < 0.75
        ? WorldConsumer.Counter
        : WorldConsumer.Notifier;
  const ledger = consumer === WorldConsumer.Ledger;
  const fifo = random.chance(0.5);
  const batchSize = random.pick([1, 2, 3, 5, 10, 10, 25, 100]);
  // Long enough that a batch without faults never reaches its deadline: a deadline then needs a fault.
  const functionTimeoutMillis = batchSize >= 25 ? 60_000 : random.pick([10_000, 30_000]);
  const shortTtl = random.chance(0.1);
  const calm = random.chance(0.15);
  const rate = (max: number) => (calm ? 0 : random.pick([0, 0, max / 4, max / 2, max]));
  const drawn: WorldConfig = {
    consumer,
    fifo,
    // Mostly small worlds (most interleavings need few events), some large ones for big batches.
    events: random.chance(0.06)
      ? random.pick([24, 40])
      : random.pick([1, 2, 3, 4, 5, 6, 8, 10, 12]),
    accounts: random.int(1, 4),
    upstreamDuplicateRate: random.pick([0, 0.2, 0.5]),
    poisonRate: random.pick([0, 0, 0.05, 0.15]),
    invalidRate: random.pick([0, 0, 0.05, 0.15]),
    currencyMismatchRate: ledger ? random.pick([0, 0, 0.05, 0.15]) : 0,
    paymentCollisionRate: ledger ? random.pick([0, 0, 0.1]) : 0,
    redrives: random.pick([0, 0, 1, 2]),
    batchSize,
    pollers: random.int(1, 3),
    recordConcurrency: random.pick([1, 2, 10]),
    precheck: random.chance(0.7) ? Precheck.Concurrent : Precheck.Off,
    maxReceiveCount: random.int(2, 5),
    functionTimeoutMillis,
    // The construct's 6× the function timeout, or (a fault) shorter than processing takes.
    visibilityTimeoutMillis: random.chance(0.2) ? functionTimeoutMillis : 6 * functionTimeoutMillis,
    transactionAttempts: random.int(1, 4),
    ttlSeconds: shortTtl ? random.pick([60, 120]) : 23 * 86_400,
    ttlSweepLagMillis: random.pick([0, 5_000, 600_000]),
    clockSkewMillis: random.pick([0, 50, 2_000]),
    faults: {
      untilMillis: random.pick([60_000, 300_000, 900_000]),
      killPerInvocation: rate(0.1),
      crashPointPerInvocation: rate(0.2),
      requestLost: rate(0.03),
      responseLost: rate(0.05),
      requestDuplicated: rate(0.03),
      requestClogged: rate(0.02),
      transactionConflict: rate(0.08),
      throttling: rate(0.05),
      slowInvocation: rate(0.4),
      staleDeleteKept: rate(0.5),
    },
    source: random.chance(0.3) ? WorldSource.Sns : WorldSource.Sqs,
    keyReuseRate: random.pick([0, 0, 0.1]),
    ...(consumer === WorldConsumer.Notifier && random.chance(0.5)
      ? { leaseMillis: random.pick([1_000, 3_000, 8_000]) }
      : {}),
    // Drawn last, so that the worlds drawn before the outbox existed stay as they were.
    ...(ledger && random.chance(0.5) ? { outbox: drawOutbox(random) } : {}),
    // Drawn after the outbox, for the same reason: the batch read awaited before the handlers,
    // and the default concurrency (the whole batch).
    ...drawBatchSettings(random),
    // Drawn last, for the same reason: the seams between steps and keys (issue 28).
    ...(consumer === WorldConsumer.Notifier ? drawStepSeams(random, calm) : {}),
  };
  // Drawn last, for the same reason: DynamoDB's conflict rules (issue 30), on in most worlds.
  const contended = { ...drawn, ...drawContention(random, drawn) };
  // Drawn after them, for the same reason: a conditional ADD on a hot item (issue 30).
  const guarded = { ...contended, ...drawGuardedCounters(random, contended) };
  // Drawn last, for the same reason: containers of the previous release (issue 31).
  const released = { ...guarded, ...drawPreviousRelease(random) };
  // Drawn last, for the same reason: the operator's inbox-aware redrive (issue 32).
  const redriven = { ...released, ...drawRedriveKind(random, released) };
  // Drawn last, for the same reason: the per-message retry backoff (issue 34).
  return { ...redriven, ...drawRetry(random, redriven) };
}

/** The share of worlds in which some containers run the previous release. */
const PREVIOUS_RELEASE_SHARE = 0.5;

function drawPreviousRelease(random: Prng): Partial<WorldConfig> {
  if (!random.chance(PREVIOUS_RELEASE_SHARE)) return {};
  return { previousReleaseShare: random.pick([0.3, 0.7]) };
}

/** The share of counter worlds with `coalesce` whose counters are guarded. */
const GUARDED_COUNTERS_SHARE = 0.5;

/**
 * Guarded counters, in half of the counter worlds that coalesce: their increments are sent in a
 * burst of at least ten (unless one was drawn already), so that a batch holds several of one
 * counter's, the unknown counter's too, and their commits meet in one flush.
 */
function drawGuardedCounters(random: Prng, drawn: WorldConfig): Partial<WorldConfig> {
  if (drawn.consumer !== WorldConsumer.Counter || drawn.coalesce !== true) return {};
  if (!random.chance(GUARDED_COUNTERS_SHARE)) return {};
  return {
    unknownCounterRate: random.pick([0.2, 0.4]),
    sendSpreadMillis: drawn.sendSpreadMillis ?? 0,
    events: Math.max(drawn.events, 10),
  };
}

/** The share of worlds under DynamoDB's conflict rules; the others keep the model without them. */
const CONFLICT_RULES_SHARE = 0.8;

/**
 * DynamoDB's conflict rules, and in half of their worlds the concurrency that meets them. The
 * event source mapping takes what the queue holds when it polls (no batching window), so events
 * spread over seconds make batches of one or two: a burst of at least ten events (all at once,
 * or within 0.3 s; unless coalescing drew a burst already) fills them, so that several records
 * of one batch credit one account and several invocations run at once. Upstream copies sent
 * within a millisecond land in the batch of their original and race it for one inbox entry;
 * within half a second, in another invocation that may run beside it.
 */
function drawContention(random: Prng, drawn: WorldConfig): Partial<WorldConfig> {
  if (!random.chance(CONFLICT_RULES_SHARE)) return {};
  const burst = random.chance(0.5) && drawn.sendSpreadMillis === undefined;
  const spreadMillis = random.pick([0, 0, 300]);
  const burstEvents = Math.max(drawn.events, random.pick([10, 12, 24]));
  const closeCopies = random.chance(0.5);
  const copyWithinMillis = random.pick([1, 500]);
  return {
    conflictRules: true,
    ...(burst ? { sendSpreadMillis: spreadMillis, events: burstEvents } : {}),
    ...(closeCopies ? { upstreamCopyWithinMillis: copyWithinMillis } : {}),
  };
}

function drawStepSeams(random: Prng, calm: boolean): Partial<WorldConfig> {
  const stepless = random.chance(0.5) ? random.pick([0.3, 0.6]) : 0;
  const journalThrottling = !calm && random.chance(0.5) ? random.pick([0.5, 0.9]) : 0;
  return {
    ...(stepless > 0 ? { steplessRate: stepless } : {}),
    ...(journalThrottling > 0 ? { journalThrottling } : {}),
  };
}

function drawBatchSettings(random: Prng): Partial<WorldConfig> {
  const before = random.chance(0.25);
  const wholeBatch = random.chance(0.3);
  const coalesce = random.chance(0.4);
  // A burst fills batches, so that commits have others to share a transaction with.
  const burst = coalesce && random.chance(0.5);
  return {
    ...(before ? { precheck: 'before' } : {}),
    ...(wholeBatch ? { recordConcurrency: 100 } : {}),
    ...(coalesce ? { coalesce } : {}),
    ...(burst ? { sendSpreadMillis: random.pick([0, 300]) } : {}),
  };
}

function drawOutbox(random: Prng): WorldOutbox {
  return {
    fifo: random.chance(0.6),
    shards: random.pick([1, 2, 4]),
    relayBatchSize: random.pick([1, 2, 10, 100]),
    relayConcurrency: random.pick([1, 10]),
    refuseRate: random.pick([0, 0, 0.1]),
    downstreamBatchSize: random.pick([1, 10]),
  };
}
