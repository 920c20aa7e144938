import type { FaultedRequest, Invocation } from '../lambda/SimLambda.js';
import { FaultKind, RequestChannel } from '../network/Network.js';
import { senderOf } from './checkDeadLetters.js';
import { BATCH_DEADLINE_MARGIN_MILLIS } from './consumerFunction.js';
import { type FailureExplainer, permanentReason, slowedByFaults } from './explainFailure.js';
import type { PlannedEvent } from './paymentWorkload.js';
import type { EventOf, WorldObservation } from './WorldObservation.js';

/**
 * How close to its batch's deadline a record may give up after a conflict: after its last
 * conflict a record that still retries waits a backoff (at most a second today) and a round
 * trip, and the deadline may cut it there. A record whose last conflict came earlier than this
 * before the deadline gave up while its batch had time.
 */
export const CONTENTION_SLACK_MILLIS = 1_500;

/** What a conflict is to the oracle: DynamoDB's own answer (real contention) or the injected one. */
const CONFLICTS: ReadonlySet<FaultKind> = new Set([
  FaultKind.Contention,
  FaultKind.TransactionConflict,
]);

/**
 * No record is failed for contention alone while its batch had time (issue 30): a conflict
 * means "busy for about one more transaction", so a record whose only trouble was conflicts —
 * DynamoDB's own (a transaction in flight held one of its items) or injected ones — must still
 * be retrying when its batch's deadline passes. A record breaks this when, in an invocation
 * that answered and that no fault slowed, it was reported failed (or dead-lettered by the
 * library) although:
 * - the store requests made for it that a fault struck were conflicts only (one at least), and
 *   no request of its handler or of the DLQ publisher met a fault;
 * - nothing else explains it: not a planted permanent failure, not refused by its business
 *   condition, not a copy meeting another's lease;
 * - its last conflict came more than {@link CONTENTION_SLACK_MILLIS} before the batch's deadline
 *   (the library's timer: the function timeout less the margin, at least half of it) — for a
 *   DLQ message, it was sent that early.
 *
 * @example
 * ```ts
 * checkContention(world, eventOf, explain, failures);
 * ```
 */
export function checkContention(
  world: WorldObservation,
  eventOf: EventOf,
  explain: FailureExplainer,
  failures: string[],
): void {
  const sent = new Map(world.queue.history.map((message) => [message.messageId, message]));
  for (const invocation of world.invocations) {
    if (invocation.end !== 'response' || slowedByFaults(invocation)) continue;
    for (const messageId of invocation.failedMessageIds) {
      const event = eventOf(sent.get(messageId)?.body ?? '');
      const alone = contentionAlone(world, explain, invocation, messageId, event);
      const deadlineMillis = batchDeadlineMillis(world, invocation);
      if (alone === undefined || alone.lastMillis + CONTENTION_SLACK_MILLIS >= deadlineMillis) {
        continue;
      }
      failures.push(
        `contention: ${messageId} (${event?.eventId ?? 'no event'}) reported failed by invocation ${invocation.id} for ${alone.what} alone, the last at ${seconds(alone.lastMillis)}, while its batch had until ${seconds(deadlineMillis)}`,
      );
    }
  }
  checkDeadLettered(world, eventOf, explain, failures);
}

/** The same rule for the messages the library dead-lettered (on their last receive). */
function checkDeadLettered(
  world: WorldObservation,
  eventOf: EventOf,
  explain: FailureExplainer,
  failures: string[],
): void {
  for (const message of world.deadLetterQueue.history) {
    if (message.sentBy === undefined) continue;
    const id = message.attributes?.['inbox.originalMessageId']?.StringValue ?? message.messageId;
    const sender = senderOf(world, message, id);
    if (sender === undefined || slowedByFaults(sender)) continue;
    const event = eventOf(message.body);
    const alone = contentionAlone(world, explain, sender, id, event);
    const sentMillis = message.requestedAtMillis ?? message.sentAtMillis;
    const deadlineMillis = batchDeadlineMillis(world, sender);
    if (alone === undefined || sentMillis + CONTENTION_SLACK_MILLIS >= deadlineMillis) continue;
    failures.push(
      `contention: ${id} (${event?.eventId ?? 'no event'}) dead-lettered by invocation ${sender.id} for ${alone.what} alone at ${seconds(sentMillis)}, while its batch had until ${seconds(deadlineMillis)}`,
    );
  }
}

/**
 * The record's conflicts in the invocation (how many of each kind, and when the last was
 * answered), if conflicts alone made it fail there; undefined when it met none, or when
 * anything else explains its failure.
 */
function contentionAlone(
  world: WorldObservation,
  explain: FailureExplainer,
  invocation: Invocation,
  messageId: string,
  event: PlannedEvent | undefined,
): { readonly what: string; readonly lastMillis: number } | undefined {
  const requests = invocation.faultedRequests.filter((request) => isFor(request, messageId, event));
  const conflicts = requests.filter((request) => request.channel === RequestChannel.Store);
  const onlyConflicts =
    conflicts.length === requests.length &&
    conflicts.every((request) => [...request.kinds].every((kind) => CONFLICTS.has(kind)));
  if (conflicts.length === 0 || !onlyConflicts) return undefined;
  const permanent =
    event !== undefined && permanentReason(event.planted, world.config.source) !== undefined;
  if (permanent || explain.refusedByItsCondition(invocation, event)) return undefined;
  if (explain.contendedLease(invocation, messageId, event)) return undefined;
  const real = conflicts.filter((request) => request.kinds.has(FaultKind.Contention)).length;
  return {
    what: `${conflicts.length} conflict(s) (${real} real, ${conflicts.length - real} injected)`,
    lastMillis: Math.max(...conflicts.map((request) => request.notedMillis)),
  };
}

/**
 * An invocation never conflicts with itself (issue 30): the commits of one invocation that share
 * an item (an inbox entry, a business item, an outbox item) wait for each other, so no
 * transaction is cancelled for an item a transaction of its own invocation holds, in the
 * consumer's DynamoDB or the downstream consumer's. Judged only where the conflict rules apply;
 * a lease write meeting its own commit is no commit, and a request the network applied again or
 * after its SDK timeout carries no sender (`ConflictRules`): its sender could not wait for it.
 * One line per invocation.
 *
 * @example
 * ```ts
 * checkSelfContention(world, failures);
 * ```
 */
export function checkSelfContention(world: WorldObservation, failures: string[]): void {
  const dynamos = [world.dynamo, ...(world.outbox ? [world.outbox.downstreamDynamo] : [])];
  const reported = new Set<string>();
  for (const conflict of dynamos.flatMap((dynamo) => dynamo.conflictLog)) {
    const { by } = conflict;
    if (conflict.operation !== 'TransactWriteItems' || by === undefined || reported.has(by)) {
      continue;
    }
    if (!conflict.heldBy.includes(by)) continue;
    reported.add(by);
    failures.push(
      `self-contention: a transaction of ${by} was cancelled at ${seconds(conflict.atMillis)} for an item a transaction of the same invocation held: its commits that share an item must wait for each other`,
    );
  }
}

function isFor(request: FaultedRequest, messageId: string, event: PlannedEvent | undefined) {
  return (
    request.subjects.includes(messageId) ||
    (event !== undefined && request.subjects.includes(event.eventId))
  );
}

/**
 * When the library's deadline of the invocation's batch falls (world millis): as the library
 * sets its timer, the remaining time less the margin, never less than half of it.
 */
function batchDeadlineMillis(world: WorldObservation, invocation: Invocation): number {
  if (invocation.deadlineMillis !== undefined) return invocation.deadlineMillis;
  const timeoutMillis = world.config.functionTimeoutMillis;
  const afterMillis = Math.max(timeoutMillis - BATCH_DEADLINE_MARGIN_MILLIS, timeoutMillis / 2);
  return invocation.startedMillis + Math.floor(afterMillis);
}

function seconds(millis: number): string {
  return `${(millis / 1000).toFixed(3)} s`;
}
