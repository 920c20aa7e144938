import { type Invocation, WORLD_EPOCH_MILLIS } from '../lambda/SimLambda.js';
import type { QueuedMessage } from '../sqs/SimQueue.js';
import {
  BUSINESS_CONDITION_FAILED,
  type FailureExplainer,
  permanentReason,
} from './explainFailure.js';
import { type PlannedEvent, Planted } from './paymentWorkload.js';
import type { EventCommits } from './WorldEvents.js';
import type { EventOf, WorldObservation } from './WorldObservation.js';

/**
 * What {@link checkDeadLetters} reads besides the world.
 *
 * @example
 * ```ts
 * checkDeadLetters(world, { committed, eventOf, explain }, failures);
 * ```
 */
export interface DeadLetterEvidence {
  readonly committed: EventCommits;
  readonly eventOf: EventOf;
  readonly explain: FailureExplainer;
}

/**
 * The messages the library itself dead-lettered (the redrive policy's moves are checked through
 * the failures of each receive), each against what the library promises:
 * - a planted permanent failure carries its own reason; any other message is dead-lettered
 *   only on its last receive (`maxReceiveCount`), after a fault struck one of its requests in
 *   that invocation, or refused by its business condition;
 * - a message whose key had committed before its last receive began, and whose entry still
 *   lived, is acknowledged as a duplicate, never dead-lettered with `inbox.error`;
 * - a record its batch reported failed is not also dead-lettered afterwards (one place).
 *
 * @example
 * ```ts
 * const failures: string[] = [];
 * checkDeadLetters(world, evidence, failures);
 * ```
 */
export function checkDeadLetters(
  world: WorldObservation,
  evidence: DeadLetterEvidence,
  failures: string[],
): void {
  for (const message of world.deadLetterQueue.history) {
    if (message.sentBy === undefined) continue;
    const id = attribute(message, 'inbox.originalMessageId') ?? message.messageId;
    const event = evidence.eventOf(message.body);
    const sender = senderOf(world, message, id);
    if (sender === undefined) {
      failures.push(`DLQ: ${id} dead-lettered by an invocation that never received it`);
      continue;
    }
    checkAnswered(sender, id, message, failures);
    if (event === undefined) continue;
    checkReason(world, evidence.explain, { message, id, event, sender }, failures);
    checkNotCommitted(world, evidence.committed, { message, id, event, sender }, failures);
  }
}

interface DeadLetter {
  readonly message: QueuedMessage;
  readonly id: string;
  readonly event: PlannedEvent;
  readonly sender: Invocation;
}

/** The reasons a copy fails with when another copy holds, or took over, its key's lease. */
const LEASE_REASONS: ReadonlySet<string> = new Set(['LeaseHeldError', 'LeaseLostError']);

function checkReason(
  world: WorldObservation,
  explain: FailureExplainer,
  { message, id, event, sender }: DeadLetter,
  failures: string[],
): void {
  const reason = attribute(message, 'inbox.error') ?? 'no reason';
  const permanent = permanentReason(event.planted, world.config.source);
  if (permanent !== undefined && reason === permanent) return;
  const what = `DLQ: ${event.eventId} (${event.planted}) dead-lettered with ${reason}`;
  // A body that is not JSON, or that the schema refuses, fails before any request: no fault
  // can give the library another reason for it.
  if (event.planted === Planted.Poison || event.planted === Planted.Invalid) {
    failures.push(`${what}, not ${permanent}`);
    return;
  }
  const receives = sender.receiveCounts.get(id) ?? 0;
  if (receives < world.config.maxReceiveCount) {
    failures.push(
      `${what} on receive ${receives} of ${world.config.maxReceiveCount} (invocation ${sender.id}): only a permanent failure or the last receive may be`,
    );
    return;
  }
  const refused =
    reason === BUSINESS_CONDITION_FAILED && explain.refusedByItsCondition(sender, event);
  const contended = LEASE_REASONS.has(reason) && explain.contendedLease(sender, id, event);
  if (!refused && !contended && !explain.causedByFaults(sender, id, event)) {
    failures.push(
      `${what} on its last receive (invocation ${sender.id}), though the faults on its requests do not explain its failure`,
    );
  }
}

/**
 * The library reads the inbox before it dead-letters: an event that had committed when that
 * read was applied (the sender's last read of the key before the send; the invocation's start
 * if none was applied), its entry still live then (clock skew aside), is a duplicate.
 */
function checkNotCommitted(
  world: WorldObservation,
  committed: EventCommits,
  { message, event, sender }: DeadLetter,
  failures: string[],
): void {
  if (attribute(message, 'inbox.error') === undefined) return;
  const sentMillis = message.requestedAtMillis ?? message.sentAtMillis;
  const readMillis =
    world.inboxReads
      .filter(
        (read) =>
          read.invocationId === sender.id &&
          read.key === event.eventId &&
          read.atMillis <= sentMillis,
      )
      .at(-1)?.atMillis ?? sender.startedMillis;
  const marginMillis = world.config.clockSkewMillis + 1_000;
  for (const change of committed.byEvent.get(event) ?? []) {
    const committedMillis = world.changeMillis[change.sequence - 1] ?? Number.POSITIVE_INFINITY;
    const expiresMillis = Number(change.newImage?.expiresAt?.N) * 1000 - WORLD_EPOCH_MILLIS;
    if (committedMillis < readMillis && expiresMillis > readMillis + marginMillis) {
      failures.push(
        `one place: ${event.eventId} dead-lettered with ${attribute(message, 'inbox.error')} by invocation ${sender.id}, though its entry had committed (change ${change.sequence}) before that invocation's last read of the inbox and still lived`,
      );
      return;
    }
  }
}

/**
 * A record its batch reported failed is delivered again by SQS: the library must not also have
 * sent it to the DLQ after the batch answered (one message would then be in two places).
 */
function checkAnswered(
  sender: Invocation,
  id: string,
  message: QueuedMessage,
  failures: string[],
): void {
  const requestedAt = message.requestedAtMillis ?? message.sentAtMillis;
  if (
    sender.end === 'response' &&
    (sender.endedMillis ?? Number.POSITIVE_INFINITY) < requestedAt &&
    sender.failedMessageIds.includes(id)
  ) {
    failures.push(
      `one place: ${id} was dead-lettered after invocation ${sender.id} had answered and reported it failed`,
    );
  }
}

/**
 * The invocation whose code sent the DLQ message: the one running when it was sent, or, for
 * work left running after its own invocation answered, the last to receive the record before.
 *
 * @example
 * ```ts
 * const sender = senderOf(world, message, originalMessageId);
 * ```
 */
export function senderOf(
  world: WorldObservation,
  message: QueuedMessage,
  id: string,
): Invocation | undefined {
  const running = world.invocations[(message.sentBy ?? 0) - 1];
  if (running?.messageIds.includes(id)) return running;
  const requestedAt = message.requestedAtMillis ?? message.sentAtMillis;
  return world.invocations
    .filter(
      (invocation) => invocation.messageIds.includes(id) && invocation.startedMillis <= requestedAt,
    )
    .at(-1);
}

function attribute(message: QueuedMessage, name: string): string | undefined {
  return message.attributes?.[name]?.StringValue;
}
