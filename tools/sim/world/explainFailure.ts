import type { ChangeRecord } from '../../../src/testing/dynamo/SimDynamoDB.js';
import { type Invocation, WORLD_EPOCH_MILLIS } from '../lambda/SimLambda.js';
import { FaultKind, RequestChannel } from '../network/Network.js';
import { type PlannedEvent, Planted } from './paymentWorkload.js';
import { type WorldConfig, WorldConsumer, WorldSource } from './WorldConfig.js';

/**
 * The reason the library must dead-letter a planted permanent failure with, at the first
 * receive that meets no fault (a retry cannot change it); undefined for the other events (of two
 * events sharing an id, the one that does not commit is dead-lettered with this reason). A
 * published SNS message that is not JSON is given to the schema as text, which refuses it.
 *
 * @example
 * ```ts
 * permanentReason(Planted.Poison, WorldSource.Sqs); // 'MessageParseError'
 * ```
 */
export function permanentReason(
  planted: Planted,
  source: WorldSource | undefined,
): string | undefined {
  switch (planted) {
    case Planted.Poison:
      return source === WorldSource.Sns ? 'SchemaValidationError' : 'MessageParseError';
    case Planted.Invalid:
      return 'SchemaValidationError';
    case Planted.CurrencyMismatch:
      return 'PermanentError';
    case Planted.KeyReused:
      return 'PayloadMismatchError';
    default:
      return undefined;
  }
}

/**
 * The reason a record fails when its ledger entry's condition refuses it (a retryable failure).
 *
 * @example
 * ```ts
 * if (reason === BUSINESS_CONDITION_FAILED && explain.refusedByItsCondition(invocation, event)) return;
 * ```
 */
export const BUSINESS_CONDITION_FAILED = 'BusinessConditionFailedError';

/**
 * What the oracle knows to explain one record's failure in one invocation, from the requests
 * made for it that a fault struck, by the code that sent them: the store (one inbox read or
 * commit failing per attempt, `transactionAttempts` of them before a retryable failure, one
 * more for the inbox read before dead-lettering), the handler (its error fails the record at
 * once), the dead-letter publisher.
 *
 * @example
 * ```ts
 * const explain = new FailureExplainer(world.config, commits);
 * if (!explain.reportedFailed(invocation, messageId, event, false)) failures.push('…');
 * ```
 */
export class FailureExplainer {
  readonly #config: WorldConfig;
  readonly #commits: ReadonlyMap<string, readonly ChangeRecord[]>;
  readonly #claims: ReadonlyMap<string, readonly LeaseClaim[]>;

  constructor(
    config: WorldConfig,
    commits: ReadonlyMap<string, readonly ChangeRecord[]>,
    claims: ReadonlyMap<string, readonly LeaseClaim[]> = new Map(),
  ) {
    this.#config = config;
    this.#commits = commits;
    this.#claims = claims;
  }

  /**
   * Whether another record (another copy of the key, in this invocation or another) held a
   * step's lease on the record's key while the invocation ran: the record may then fail with
   * `LeaseHeldError` (it found the lease held) or `LeaseLostError` (its lease was taken over),
   * retryably, without a fault of its own.
   */
  contendedLease(invocation: Invocation, messageId: string, event: PlannedEvent | undefined) {
    if (event === undefined) return false;
    const skewMillis = this.#config.clockSkewMillis;
    const endedMillis = invocation.endedMillis ?? Number.POSITIVE_INFINITY;
    return (this.#claims.get(event.eventId) ?? []).some(
      (claim) =>
        (claim.invocationId !== invocation.id || claim.recordId !== messageId) &&
        claim.atMillis <= endedMillis &&
        claim.untilMillis + skewMillis >= invocation.startedMillis,
    );
  }

  /**
   * Whether faults made the record fail (before any dead-lettering): one struck a request of
   * its handler, or every attempt's store request.
   */
  causedByFaults(invocation: Invocation, messageId: string, event: PlannedEvent | undefined) {
    const faulted = faultedRequests(invocation, messageId, event);
    return faulted.handler > 0 || faulted.store >= this.#config.transactionAttempts;
  }

  /**
   * Whether the record may be reported failed (left for SQS to deliver again) by an invocation
   * that answered, on its last receive or not: the faults that made it fail, and (when the
   * library would dead-letter it instead) one that struck the inbox read or the DLQ send; or
   * its business condition refusing it, before its last receive.
   */
  reportedFailed(
    invocation: Invocation,
    messageId: string,
    event: PlannedEvent | undefined,
    lastReceive: boolean,
  ): boolean {
    const faulted = faultedRequests(invocation, messageId, event);
    if (faulted.deadLetter > 0) return true;
    const permanent =
      event !== undefined && permanentReason(event.planted, this.#config.source) !== undefined;
    const refused = this.refusedByItsCondition(invocation, event);
    const attempts = this.#config.transactionAttempts;
    if (!lastReceive) {
      if (faulted.handler > 0 || refused) return true;
      if (this.contendedLease(invocation, messageId, event)) return true;
      return faulted.store >= (permanent ? 1 : attempts);
    }
    // A copy that met another's lease fails at once, with no store attempt of its own.
    const contended = this.contendedLease(invocation, messageId, event);
    const failedWithoutAttempts = faulted.handler > 0 || permanent || refused || contended;
    return faulted.store >= (failedWithoutAttempts ? 0 : attempts) + 1;
  }

  /**
   * Whether the record may fail, retryably, without a fault of its own: its payment collided
   * with another event's, or it adds to a counter never opened (guarded counters), or (the
   * ledger's entry condition refusing it) it is a copy that ran after its committed entry
   * expired — the short-TTL worlds make those on purpose. The counter has no condition on a
   * counter that exists: such a copy commits again.
   */
  refusedByItsCondition(invocation: Invocation, event: PlannedEvent | undefined): boolean {
    if (event?.planted === Planted.UnknownCounter) return true;
    // The counter has no condition; the ledger's entry and the notifier's row each have one.
    if (event === undefined || this.#config.consumer === WorldConsumer.Counter) return false;
    if (event.planted === Planted.PaymentCollision) return true;
    if (event.planted !== Planted.None && event.planted !== Planted.KeyReused) return false;
    const expiresAtSeconds = Number(this.#commits.get(event.eventId)?.[0]?.newImage?.expiresAt?.N);
    const lastRanMillis =
      WORLD_EPOCH_MILLIS +
      (invocation.endedMillis ?? Number.POSITIVE_INFINITY) +
      this.#config.clockSkewMillis;
    return expiresAtSeconds * 1000 < lastRanMillis;
  }
}

/**
 * A step's claim of a key's lease: by which invocation and record, when (world millis), and
 * until when its lease held (world millis, by the claimer's clock).
 *
 * @example
 * ```ts
 * const claims: LeaseClaim[] = [{ invocationId: 3, recordId: 'ledger-2', atMillis: 1_200, untilMillis: 11_200 }];
 * ```
 */
export interface LeaseClaim {
  readonly invocationId: number | undefined;
  readonly recordId: string;
  readonly atMillis: number;
  readonly untilMillis: number;
}

/** How many requests made for a record in an invocation a fault struck, by the code that sent them. */
function faultedRequests(
  invocation: Invocation,
  messageId: string,
  event: PlannedEvent | undefined,
): { store: number; handler: number; deadLetter: number } {
  const counts = { store: 0, handler: 0, deadLetter: 0 };
  for (const request of invocation.faultedRequests) {
    const forRecord =
      request.subjects.includes(messageId) ||
      (event !== undefined && request.subjects.includes(event.eventId));
    if (!forRecord) continue;
    if (request.channel === RequestChannel.Store) counts.store++;
    else if (request.channel === RequestChannel.Handler) counts.handler++;
    else if (request.channel === RequestChannel.DeadLetter) counts.deadLetter++;
  }
  return counts;
}

/** Faults that cost an invocation seconds: a slowed container, a request the SDK gave up on. */
const SLOWING: ReadonlySet<FaultKind> = new Set([
  FaultKind.Slow,
  FaultKind.TimedOut,
  FaultKind.RequestLost,
  FaultKind.ResponseLost,
  FaultKind.RequestClogged,
]);

/**
 * Whether a fault slowed the invocation enough to explain its batch deadline: a slowed
 * container, or a request it waited the SDK's timeout for. Conflicts and throttling cost
 * backoffs of at most a second each and explain it only when there were enough of them to fill
 * the batch's time.
 *
 * @example
 * ```ts
 * if (invocation.deadlineMillis !== undefined && !slowedByFaults(invocation)) failures.push('…');
 * ```
 */
export function slowedByFaults(invocation: Invocation): boolean {
  return (
    [...invocation.faults].some((kind) => SLOWING.has(kind)) ||
    invocation.faultedRequests.some((request) =>
      [...request.kinds].some((kind) => SLOWING.has(kind)),
    ) ||
    retriesFillTheBatch(invocation)
  );
}

/** Faults the library retries after a wait: throttling (up to 1 s each), conflicts (shorter). */
const RETRIED: ReadonlySet<FaultKind> = new Set([
  FaultKind.Throttling,
  FaultKind.TransactionConflict,
  FaultKind.Contention,
]);
/** The longest wait before a retry (the throttling backoff's cap) plus a round trip. */
const RETRY_BOUND_MILLIS = 1_000 + 80;

/**
 * Whether the invocation met so many retried faults that their waits alone could fill its
 * batch's time: one throttled request costs at most a second, but a batch whose records run
 * one at a time (`recordConcurrency` 1) and meet throttling on most writes adds them up.
 */
function retriesFillTheBatch(invocation: Invocation): boolean {
  if (invocation.deadlineMillis === undefined) return false;
  const retried = invocation.faultedRequests.filter((request) =>
    [...request.kinds].some((kind) => RETRIED.has(kind)),
  ).length;
  const batchMillis = invocation.deadlineMillis - invocation.startedMillis;
  return retried > 0 && retried * RETRY_BOUND_MILLIS >= batchMillis;
}
