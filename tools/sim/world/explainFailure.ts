import type { ChangeRecord } from '../dynamo/SimDynamoDB.js';
import { type Invocation, WORLD_EPOCH_MILLIS } from '../lambda/SimLambda.js';
import { type PlannedEvent, Planted } from './paymentWorkload.js';
import { type WorldConfig, WorldSource } from './WorldConfig.js';

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
 * What the oracle knows to explain one record's failure in one invocation.
 *
 * @example
 * ```ts
 * const explain = new FailureExplainer(world.config, commits);
 * if (!explain.metFault(invocation, messageId, event)) failures.push('…');
 * ```
 */
export class FailureExplainer {
  readonly #config: WorldConfig;
  readonly #commits: ReadonlyMap<string, readonly ChangeRecord[]>;

  constructor(config: WorldConfig, commits: ReadonlyMap<string, readonly ChangeRecord[]>) {
    this.#config = config;
    this.#commits = commits;
  }

  /**
   * Whether a fault struck one of the requests made for this record in this invocation (by its
   * key or its messageId), or the whole invocation died.
   */
  metFault(invocation: Invocation, messageId: string, event: PlannedEvent | undefined): boolean {
    if (invocation.end !== 'response' && invocation.end !== 'running') return true;
    const byId = invocation.recordFaults.get(messageId)?.size ?? 0;
    const byKey = event === undefined ? 0 : (invocation.recordFaults.get(event.eventId)?.size ?? 0);
    return byId + byKey > 0;
  }

  /**
   * Whether the record may fail, retryably, without a fault of its own: its payment collided
   * with another event's, or it is a copy received after its committed entry expired, which
   * the ledger entry's condition refuses (the short-TTL worlds make those on purpose).
   */
  refusedByItsCondition(invocation: Invocation, event: PlannedEvent | undefined): boolean {
    if (event === undefined) return false;
    if (event.planted === Planted.PaymentCollision) return true;
    if (event.planted !== Planted.None && event.planted !== Planted.KeyReused) return false;
    const expiresAtSeconds = Number(this.#commits.get(event.eventId)?.[0]?.newImage?.expiresAt?.N);
    const receivedMillis =
      WORLD_EPOCH_MILLIS + invocation.startedMillis + this.#config.clockSkewMillis;
    return expiresAtSeconds * 1000 < receivedMillis;
  }
}

/**
 * Whether anything struck the invocation at all: a fault of its own (a slowed container) or of
 * one of its requests. A batch deadline needs one to pass.
 *
 * @example
 * ```ts
 * if (invocation.deadlineMillis !== undefined && !anyFault(invocation)) failures.push('…');
 * ```
 */
export function anyFault(invocation: Invocation): boolean {
  return invocation.faults.size > 0 || invocation.recordFaults.size > 0;
}
