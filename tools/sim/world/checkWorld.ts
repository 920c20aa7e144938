import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { ChangeRecord } from '../../../src/testing/dynamo/SimDynamoDB.js';
import { WORLD_EPOCH_MILLIS } from '../lambda/SimLambda.js';
import type { QueuedMessage } from '../sqs/SimQueue.js';
import { checkAcknowledged } from './checkAcknowledged.js';
import { checkContention, checkSelfContention } from './checkContention.js';
import { checkDeadLetters } from './checkDeadLetters.js';
import { checkEffects, checkWritesInInboxTransactions } from './checkEffects.js';
import { checkFailureRecords } from './checkFailureRecords.js';
import { checkFormats } from './checkFormats.js';
import { checkLeaseTakeovers } from './checkLeaseTakeovers.js';
import { checkOutbox } from './checkOutbox.js';
import { checkRedrive, isOperationItem } from './checkRedrive.js';
import { checkRetryDelays } from './checkRetryDelays.js';
import { checkSteps } from './checkSteps.js';
import { WorldTables } from './consumerFunction.js';
import { FailureExplainer, type LeaseClaim, slowedByFaults } from './explainFailure.js';
import { type PlannedEvent, Planted } from './paymentWorkload.js';
import { type EventCommits, WorldEvents } from './WorldEvents.js';
import type { EventOf, WorldObservation } from './WorldObservation.js';

/**
 * The invariants of a world, each failure one line naming what broke:
 * - every key is committed once while its entry lives, and no business write is made outside
 *   the transaction of an inbox entry;
 * - no live entry is taken over by another payload (committed or unfinished);
 * - balances and ledger entries (or counter totals) are exactly the effects of the committed
 *   events;
 * - nothing is lost: every event committed or in the DLQ;
 * - dead letters (see `checkDeadLetters`): a planted permanent failure with its own reason,
 *   anything else only on its last receive after a fault of its own; never a key that had
 *   committed; never a record its batch had already reported failed (one place);
 * - no unexplained failure: a record is reported failed only after a fault struck one of its
 *   own requests, at a batch deadline a fault caused, behind a failure in its FIFO group, or
 *   refused by its business condition; no invocation reaches the function timeout;
 * - contention (see `checkContention`): no record is failed for conflicts alone while its batch
 *   had time, and no invocation's transaction conflicts with one of its own;
 * - FIFO: each account's events commit in the order they were sent;
 * - metrics (see `checkLeaseTakeovers`): a container counts exactly the lease takeovers its
 *   claims made (at most that many when it was killed);
 * - retry delays and caps (see `checkRetryDelays`): no record comes back before the delay the
 *   processor gave it, and no delay exceeds what the `retry` option allows;
 * - formats (see `checkFormats`): every entry and outbox item the current release writes holds
 *   its format version, and the previous release's containers stamp none;
 * - liveness: once faults stop, the world quiesces within its bound.
 *
 * @example
 * ```ts
 * expect(checkWorld(observation)).toEqual([]);
 * ```
 */
export function checkWorld(world: WorldObservation): string[] {
  const failures: string[] = [];
  if (!world.quiesced) failures.push(notQuiescent(world));
  // The operator's items in the inbox table (the redrive's lock) are no entries: checked by checkRedrive.
  const changes = world.dynamo.changes
    .slice(world.changesBefore)
    .filter((change) => !isOperationItem(change));
  const commits = inboxCommits(world, changes, failures);
  const events = new WorldEvents(world.workload.events);
  const committed = events.commits(changes, failures);
  checkWritesInInboxTransactions(changes, committed, failures);
  checkSteps(world, changes, committed, failures);
  checkLeaseTakeovers(world, changes, failures);
  checkFailureRecords(world, changes, failures);
  checkEffects(world, committed, failures);
  const eventOf: EventOf = (body) => events.ofBody(body);
  const explain = new FailureExplainer(world.config, commits, leaseClaims(world, changes));
  checkNothingLost(world, committed, eventOf, failures);
  checkAcknowledged(world, committed, eventOf, failures);
  checkDeadLetters(world, { committed, eventOf, explain }, failures);
  checkFailuresExplained(world, eventOf, explain, failures);
  checkContention(world, eventOf, explain, failures);
  checkSelfContention(world, failures);
  if (world.config.fifo) checkFifoOrder(world, committed, eventOf, failures);
  checkOutbox(world, committed, failures);
  checkFormats(world, failures);
  checkRedrive(world, events, failures);
  checkRetryDelays(world, eventOf, failures);
  return failures;
}

function notQuiescent(world: WorldObservation): string {
  const inFlight = world.invocations.filter((i) => i.end === 'running').length;
  return `liveness: the world did not quiesce (${world.end}): ${world.queue.messages.length} message(s) left on the queue, ${inFlight} invocation(s) running`;
}

/** Each inbox entry write, as the commit of a key, with I1 checked on overwrites. */
function inboxCommits(
  world: WorldObservation,
  changes: readonly ChangeRecord[],
  failures: string[],
): Map<string, ChangeRecord[]> {
  const { ttlSeconds } = world.config;
  const commits = new Map<string, ChangeRecord[]>();
  for (const change of changes) {
    if (change.tableName !== WorldTables.Inbox) continue;
    const entry = change.newImage;
    if (entry === undefined) {
      // Only DynamoDB's TTL removes an entry (and only an expired one): nothing else may.
      if (change.cause !== 'ttl') {
        failures.push(
          `exactly-once: inbox entry ${text(change.keys.pk)} deleted by a write (change ${change.sequence})`,
        );
      }
      continue;
    }
    const key = text(entry.key);
    checkNoTakeover(world, change, failures);
    if (!isCommit(change)) {
      checkLeaseWrite(world, change, failures);
      continue;
    }
    commits.set(key, [...(commits.get(key) ?? []), change]);
    const committedAtSeconds = Math.floor(Date.parse(text(entry.processedAt)) / 1000);
    if (Number(entry.expiresAt?.N) !== committedAtSeconds + ttlSeconds) {
      failures.push(
        `exactly-once: the entry of ${key} expires at ${entry.expiresAt?.N}, not its commit time plus ttlSeconds (${committedAtSeconds + ttlSeconds})`,
      );
    }
    const old = change.oldImage;
    if (isCommit(old) && Number(old?.expiresAt?.N) >= committedAtSeconds) {
      failures.push(
        `exactly-once: key ${key} committed again (change ${change.sequence}) while its entry lived`,
      );
    }
  }
  return commits;
}

/**
 * No write of any path takes over an entry that holds another payload's hash while it lives,
 * committed or not: an unfinished one's journal may hold an effect that already happened. A
 * failure record without a journal holds the key for no payload. Live
 * even by the fastest container clock (the world's plus `clockSkewMillis`): an entry a skewed
 * writer may have seen expired is not judged.
 */
function checkNoTakeover(world: WorldObservation, change: ChangeRecord, failures: string[]): void {
  const old = change.oldImage;
  const next = change.newImage;
  if (old === undefined || next === undefined) return;
  if (text(old.payloadHash) === text(next.payloadHash)) return;
  // A step-less attempt's failure record holds no journal: nothing of its message happened.
  if (text(old.status) === 'FAILED' && old.steps === undefined) return;
  const atMillis = world.changeMillis[change.sequence - 1] ?? 0;
  const fastestNowMillis = WORLD_EPOCH_MILLIS + atMillis + world.config.clockSkewMillis;
  if (Number(old.expiresAt?.N) * 1000 <= fastestNowMillis) return;
  failures.push(
    `payloads: the ${text(old.status)} entry of ${text(next.key)}, holding another payload's hash, was taken over by a write (change ${change.sequence}) while it lived`,
  );
}

/**
 * Each key's lease claims (a change that raises `leaseEpoch`), in order, each held until the
 * latest `leaseUntil` its heartbeats wrote before the next claim.
 */
function leaseClaims(
  world: WorldObservation,
  changes: readonly ChangeRecord[],
): Map<string, LeaseClaim[]> {
  const claims = new Map<string, LeaseClaim[]>();
  for (const change of changes) {
    const entry = change.newImage;
    if (change.tableName !== WorldTables.Inbox || entry === undefined) continue;
    const key = text(entry.key);
    const untilMillis = Number(entry.leaseUntil?.N) - WORLD_EPOCH_MILLIS;
    const held = claims.get(key) ?? [];
    if (Number(entry.leaseEpoch?.N ?? 0) <= Number(change.oldImage?.leaseEpoch?.N ?? 0)) {
      const last = held.at(-1);
      if (last !== undefined && untilMillis > last.untilMillis) {
        held[held.length - 1] = { ...last, untilMillis };
      }
      continue;
    }
    held.push({
      invocationId: world.changeInvocations[change.sequence - 1],
      recordId: text(entry.messageId),
      atMillis: world.changeMillis[change.sequence - 1] ?? 0,
      untilMillis,
    });
    claims.set(key, held);
  }
  return claims;
}

/** A write that completes an entry (an image that is `COMPLETED`). */
function isCommit(change: ChangeRecord | Record<string, AttributeValue> | undefined): boolean {
  const image = change !== undefined && 'newImage' in change ? change.newImage : change;
  return (image as Record<string, AttributeValue> | undefined)?.status?.S === 'COMPLETED';
}

/**
 * A write of a step's lease (claim, journal, heartbeat, release) never changes a completed
 * entry that still lives: only a claim may, of one past its TTL (by the writer's clock, which
 * may run `clockSkewMillis` ahead).
 */
function checkLeaseWrite(world: WorldObservation, change: ChangeRecord, failures: string[]): void {
  const old = change.oldImage;
  if (!isCommit(old)) return;
  const atMillis =
    WORLD_EPOCH_MILLIS +
    (world.changeMillis[change.sequence - 1] ?? 0) +
    world.config.clockSkewMillis;
  const claim = Number(change.newImage?.leaseEpoch?.N ?? 0) > Number(old?.leaseEpoch?.N ?? 0);
  if (!claim || Number(old?.expiresAt?.N) * 1000 >= atMillis) {
    failures.push(
      `exactly-once: the completed entry of ${text(change.newImage?.key)} was changed by a lease write (change ${change.sequence}) while it lived`,
    );
  }
}

function checkNothingLost(
  world: WorldObservation,
  committed: EventCommits,
  eventOf: EventOf,
  failures: string[],
): void {
  const dead = new Set<PlannedEvent>();
  for (const message of world.deadLetterQueue.messages) {
    const event = eventOf(message.body);
    if (event === undefined) failures.push(`DLQ: ${message.messageId} carries no event's body`);
    else dead.add(event);
  }
  for (const event of world.workload.events) {
    if (!committed.byEvent.has(event) && !dead.has(event)) {
      failures.push(
        `nothing lost: ${event.eventId} (${event.planted}) neither committed nor in the DLQ`,
      );
    }
  }
}

/**
 * Every invocation answers before the function timeout (the batch deadline sees to it), its
 * deadline passes only when a fault slowed it, and each record it reports failed met a fault
 * of its own, was cut off by that deadline, waited behind a failure in its FIFO group, or was
 * refused by its business condition. A planted permanent failure is never reported failed
 * without one of those: it is dead-lettered at once.
 */
function checkFailuresExplained(
  world: WorldObservation,
  eventOf: EventOf,
  explain: FailureExplainer,
  failures: string[],
): void {
  const sent = new Map<string, QueuedMessage>(world.queue.history.map((m) => [m.messageId, m]));
  for (const invocation of world.invocations) {
    if (invocation.end === 'timed out') {
      failures.push(
        `liveness: invocation ${invocation.id} reached the function timeout: its batch deadline did not answer first`,
      );
      continue;
    }
    if (invocation.end !== 'response') continue;
    if (invocation.deadlineMillis !== undefined) {
      if (!slowedByFaults(invocation)) {
        failures.push(
          `explained failures: the batch deadline passed in invocation ${invocation.id}, which no fault slowed`,
        );
      }
      continue;
    }
    const failed = new Set(invocation.failedMessageIds);
    const blockedGroups = new Set<string | undefined>();
    for (const messageId of invocation.messageIds) {
      if (!failed.has(messageId)) continue;
      const message = sent.get(messageId);
      const event = eventOf(message?.body ?? '');
      const what = `${messageId} (${event?.eventId ?? 'no event'}, ${event?.planted ?? 'unknown'})`;
      const behindFailure = world.config.fifo && blockedGroups.has(message?.groupId);
      blockedGroups.add(message?.groupId);
      const lastReceive =
        (invocation.receiveCounts.get(messageId) ?? 0) >= world.config.maxReceiveCount;
      if (behindFailure || explain.reportedFailed(invocation, messageId, event, lastReceive)) {
        continue;
      }
      failures.push(
        lastReceive
          ? // SQS would move it without a reason (and hold its FIFO group behind it).
            `DLQ: ${what} reported failed on its last receive by invocation ${invocation.id}, though no fault struck its inbox read or DLQ send, instead of dead-lettered with its reason`
          : `explained failures: ${what} reported failed by invocation ${invocation.id}, though the faults on its requests do not explain it`,
      );
    }
  }
}

function checkFifoOrder(
  world: WorldObservation,
  committed: EventCommits,
  eventOf: EventOf,
  failures: string[],
): void {
  const everDead = new Set(world.deadLetterQueue.history.map((m) => eventOf(m.body)));
  const firstSent = new Map<PlannedEvent | undefined, number>();
  for (const message of world.queue.history) {
    const event = eventOf(message.body);
    if (!firstSent.has(event)) firstSent.set(event, message.sequence);
  }
  const ordered = world.workload.events
    .filter((e) => e.planted === Planted.None && !everDead.has(e) && committed.byEvent.has(e))
    .sort((a, b) => (firstSent.get(a) ?? 0) - (firstSent.get(b) ?? 0));
  const lastByAccount = new Map<string, { eventId: string; sequence: number }>();
  for (const event of ordered) {
    const sequence = committed.byEvent.get(event)?.[0]?.sequence ?? 0;
    const last = lastByAccount.get(event.accountId);
    if (last !== undefined && sequence < last.sequence) {
      failures.push(
        `FIFO: ${event.eventId} committed before ${last.eventId}, sent earlier to ${event.accountId}`,
      );
    }
    lastByAccount.set(event.accountId, { eventId: event.eventId, sequence });
  }
}

function text(value: AttributeValue | undefined): string {
  return value?.S ?? '';
}
