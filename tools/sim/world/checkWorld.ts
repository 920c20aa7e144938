import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { ChangeRecord, SimDynamoDB } from '../dynamo/SimDynamoDB.js';
import type { RunEnd } from '../kernel/Kernel.js';
import { type Invocation, WORLD_EPOCH_MILLIS } from '../lambda/SimLambda.js';
import type { QueuedMessage, SimQueue } from '../sqs/SimQueue.js';
import { WorldTables } from './consumerFunction.js';
import { type PaymentWorkload, type PlannedEvent, Planted } from './paymentWorkload.js';
import { type WorldConfig, WorldConsumer } from './WorldConfig.js';

/**
 * What a world left behind, for the oracle.
 *
 * @example
 * ```ts
 * const failures = checkWorld(observation);
 * ```
 */
export interface WorldObservation {
  readonly config: WorldConfig;
  readonly workload: PaymentWorkload;
  readonly dynamo: SimDynamoDB;
  /** Changes before this index set the world up (the accounts). */
  readonly changesBefore: number;
  readonly queue: SimQueue;
  readonly deadLetterQueue: SimQueue;
  readonly invocations: readonly Invocation[];
  /** Messages a redrive put back on the queue. */
  readonly redriven: readonly string[];
  readonly quiesced: boolean;
  readonly end: RunEnd;
  readonly nowEpochSeconds: number;
}

const FAILS_BEFORE_ANY_REQUEST: ReadonlySet<Planted> = new Set([Planted.Poison, Planted.Invalid]);

/** The reason each planted failure must be dead-lettered with. */
const PLANTED_ERROR: Record<Planted, string | undefined> = {
  [Planted.None]: undefined,
  [Planted.Poison]: 'MessageParseError',
  [Planted.Invalid]: 'SchemaValidationError',
  [Planted.CurrencyMismatch]: 'PermanentError',
  [Planted.PaymentCollision]: 'BusinessConditionFailedError',
};

/**
 * The invariants of a world, each failure one line naming what broke:
 * - every key is committed once while its entry lives, and no business write is made outside
 *   the transaction of an inbox entry;
 * - balances and ledger entries (or counter totals) are exactly the effects of the committed
 *   events;
 * - nothing is lost: every event committed, or in the DLQ with the reason it was planted with
 *   (or after receives that all met a fault);
 * - no unexplained failure: a record fails only in an invocation a fault struck, for a planted
 *   event, or behind one in its FIFO group;
 * - one place: a record its batch reported failed is not also dead-lettered afterwards;
 * - FIFO: each account's events commit in the order they were sent;
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
  const changes = world.dynamo.changes.slice(world.changesBefore);
  const commits = inboxCommits(changes, world.config.ttlSeconds, failures);
  checkWritesInInboxTransactions(changes, failures);
  checkEffects(world, commits, failures);
  const byBody = new Map(world.workload.events.map((event) => [event.body, event]));
  checkNothingLost(world, commits, byBody, failures);
  checkFailuresExplained(world, commits, byBody, failures);
  checkNotDeadLetteredAfterAnswer(world, failures);
  if (world.config.fifo) checkFifoOrder(world, commits, failures);
  return failures;
}

function notQuiescent(world: WorldObservation): string {
  const inFlight = world.invocations.filter((i) => i.end === 'running').length;
  return `liveness: the world did not quiesce (${world.end}): ${world.queue.messages.length} message(s) left on the queue, ${inFlight} invocation(s) running`;
}

/** Each inbox entry write, as the commit of a key, with I1 checked on overwrites. */
function inboxCommits(
  changes: readonly ChangeRecord[],
  ttlSeconds: number,
  failures: string[],
): Map<string, ChangeRecord[]> {
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
    commits.set(key, [...(commits.get(key) ?? []), change]);
    const committedAtSeconds = Math.floor(Date.parse(text(entry.processedAt)) / 1000);
    if (Number(entry.expiresAt?.N) !== committedAtSeconds + ttlSeconds) {
      failures.push(
        `exactly-once: the entry of ${key} expires at ${entry.expiresAt?.N}, not its commit time plus ttlSeconds (${committedAtSeconds + ttlSeconds})`,
      );
    }
    const old = change.oldImage;
    if (old !== undefined && Number(old.expiresAt?.N) >= committedAtSeconds) {
      failures.push(
        `exactly-once: key ${key} committed again (change ${change.sequence}) while its entry lived`,
      );
    }
  }
  return commits;
}

function checkWritesInInboxTransactions(
  changes: readonly ChangeRecord[],
  failures: string[],
): void {
  const withEntry = new Set(
    changes
      .filter((c) => c.tableName === WorldTables.Inbox && c.newImage)
      .map((c) => c.transactionId),
  );
  for (const change of changes) {
    if (change.tableName === WorldTables.Inbox) continue;
    if (change.transactionId === undefined || !withEntry.has(change.transactionId)) {
      failures.push(
        `atomicity: ${change.tableName} changed (change ${change.sequence}) outside an inbox entry's transaction`,
      );
    }
  }
}

function checkEffects(
  world: WorldObservation,
  commits: Map<string, ChangeRecord[]>,
  failures: string[],
): void {
  const events = new Map(world.workload.events.map((event) => [event.eventId, event]));
  const expectedCents = new Map(world.workload.accounts.map((a) => [a.accountId, 0]));
  const expectedEntries = new Set<string>();
  for (const [key, writes] of commits) {
    const event = events.get(key);
    if (event === undefined) {
      failures.push(`effects: key ${key} committed but no event has it`);
      continue;
    }
    if (event.planted !== Planted.None && event.planted !== Planted.PaymentCollision) {
      failures.push(`effects: ${event.eventId} (${event.planted}) committed`);
    }
    expectedCents.set(
      event.accountId,
      (expectedCents.get(event.accountId) ?? 0) + event.amountCents * writes.length,
    );
    expectedEntries.add(event.paymentId);
  }
  const ledger = world.config.consumer === WorldConsumer.Ledger;
  for (const [accountId, cents] of expectedCents) {
    const item = world.dynamo.getItem(
      ledger
        ? { TableName: WorldTables.Accounts, Key: { accountId: { S: accountId } } }
        : { TableName: WorldTables.Counters, Key: { counterId: { S: accountId } } },
    ).Item;
    const actual = Number((ledger ? item?.balanceCents?.N : item?.total?.N) ?? 0);
    if (actual !== cents) {
      failures.push(
        `effects: ${ledger ? 'account' : 'counter'} ${accountId} holds ${actual}, the committed events make ${cents}`,
      );
    }
  }
  if (!ledger) return;
  for (const event of world.workload.events) {
    const item = world.dynamo.getItem({
      TableName: WorldTables.Entries,
      Key: { paymentId: { S: event.paymentId } },
    }).Item;
    if ((item !== undefined) !== expectedEntries.has(event.paymentId)) {
      failures.push(
        `effects: ledger entry of ${event.paymentId} ${item ? 'exists without' : 'missing despite'} a committed event`,
      );
    }
  }
}

function checkNothingLost(
  world: WorldObservation,
  commits: Map<string, ChangeRecord[]>,
  byBody: Map<string, PlannedEvent>,
  failures: string[],
): void {
  const dead = new Map<string, QueuedMessage[]>();
  for (const message of world.deadLetterQueue.messages) {
    const event = byBody.get(message.body);
    if (event === undefined) {
      failures.push(`DLQ: ${message.messageId} carries no event's body`);
      continue;
    }
    dead.set(event.eventId, [...(dead.get(event.eventId) ?? []), message]);
  }
  const explain = explanations(world, commits);
  for (const event of world.workload.events) {
    const deadLettered = dead.get(event.eventId) ?? [];
    if (!commits.has(event.eventId) && deadLettered.length === 0) {
      failures.push(
        `nothing lost: ${event.eventId} (${event.planted}) neither committed nor in the DLQ`,
      );
    }
    for (const message of deadLettered) {
      const reason = message.attributes?.['inbox.error']?.StringValue;
      if (reason !== undefined && reason === PLANTED_ERROR[event.planted]) continue;
      // A body that is not JSON or that the schema refuses fails before any request: no fault
      // can give the library another reason for it.
      if (reason !== undefined && FAILS_BEFORE_ANY_REQUEST.has(event.planted)) {
        failures.push(
          `DLQ: ${event.eventId} (${event.planted}) dead-lettered with ${reason}, not ${PLANTED_ERROR[event.planted]}`,
        );
        continue;
      }
      const deliveries = finalDeliveries(world, message);
      if (deliveries.some((invocation) => explain(invocation, event))) continue;
      failures.push(
        `DLQ: ${event.eventId} (${event.planted}) dead-lettered with ${reason ?? 'no reason'} ` +
          `(${originalId(message)}) after a receive that met no fault`,
      );
    }
  }
}

/** The messageId the message had on the source queue (the library's DLQ message says it). */
function originalId(message: QueuedMessage): string {
  return message.attributes?.['inbox.originalMessageId']?.StringValue ?? message.messageId;
}

/**
 * The invocation whose receive put a message in the DLQ: the last to receive it before the
 * library sent it there, or (moved by the redrive policy) the last to receive it at all.
 */
function finalDeliveries(world: WorldObservation, message: QueuedMessage): Invocation[] {
  const id = originalId(message);
  // A message the redrive policy moved keeps its messageId and its first send time.
  const movedByPolicy = id === message.messageId;
  const receives = world.invocations.filter(
    (invocation) =>
      invocation.messageIds.includes(id) &&
      (movedByPolicy || invocation.startedMillis <= message.sentAtMillis),
  );
  return receives.slice(-1);
}

/**
 * Whether a record of `event` may fail in `invocation`: a fault struck the invocation, or the
 * event is planted to fail, or it committed before and its entry had expired by then (a copy
 * past the TTL, which the short-TTL worlds make on purpose: the business conditions answer it).
 */
function explanations(
  world: WorldObservation,
  commits: Map<string, ChangeRecord[]>,
): (invocation: Invocation, event: PlannedEvent | undefined) => boolean {
  return (invocation, event) => {
    if (invocation.faults.size > 0 || event === undefined || event.planted !== Planted.None)
      return true;
    const expiresAtSeconds = Number(commits.get(event.eventId)?.[0]?.newImage?.expiresAt?.N);
    const receivedMillis =
      WORLD_EPOCH_MILLIS + invocation.startedMillis + world.config.clockSkewMillis;
    return expiresAtSeconds * 1000 < receivedMillis;
  };
}

function checkFailuresExplained(
  world: WorldObservation,
  commits: Map<string, ChangeRecord[]>,
  byBody: Map<string, PlannedEvent>,
  failures: string[],
): void {
  const sent = new Map<string, QueuedMessage>(world.queue.history.map((m) => [m.messageId, m]));
  const explain = explanations(world, commits);
  for (const invocation of world.invocations) {
    if (invocation.faults.size > 0 || invocation.end === 'running') continue;
    if (invocation.end !== 'response') {
      failures.push(
        `explained failures: invocation ${invocation.id} ${invocation.end} without a fault`,
      );
      continue;
    }
    const failed = new Set(invocation.failedMessageIds);
    const blockedGroups = new Set<string | undefined>();
    for (const messageId of invocation.messageIds) {
      if (!failed.has(messageId)) continue;
      const message = sent.get(messageId);
      const behindFailure = world.config.fifo && blockedGroups.has(message?.groupId);
      if (!behindFailure && !explain(invocation, byBody.get(message?.body ?? ''))) {
        failures.push(
          `explained failures: ${messageId} failed in invocation ${invocation.id}, which met no fault`,
        );
      }
      blockedGroups.add(message?.groupId);
    }
  }
}

/**
 * A record its batch reported failed is delivered again by SQS: the library must not also have
 * sent it to the DLQ after the batch answered (one message would then be in two places).
 */
function checkNotDeadLetteredAfterAnswer(world: WorldObservation, failures: string[]): void {
  for (const message of world.deadLetterQueue.history) {
    const id = message.attributes?.['inbox.originalMessageId']?.StringValue;
    const requestedAt = message.requestedAtMillis;
    if (id === undefined || requestedAt === undefined) continue;
    const sender = world.invocations
      .filter(
        (invocation) =>
          invocation.messageIds.includes(id) && invocation.startedMillis <= requestedAt,
      )
      .at(-1);
    if (
      sender?.end === 'response' &&
      (sender.endedMillis ?? Number.POSITIVE_INFINITY) < requestedAt &&
      sender.failedMessageIds.includes(id)
    ) {
      failures.push(
        `one place: ${id} was dead-lettered after invocation ${sender.id} had answered and reported it failed`,
      );
    }
  }
}

function checkFifoOrder(
  world: WorldObservation,
  commits: Map<string, ChangeRecord[]>,
  failures: string[],
): void {
  const everDead = new Set(world.deadLetterQueue.history.map((m) => m.body));
  const firstSent = new Map<string, number>();
  for (const message of world.queue.history) {
    if (!firstSent.has(message.body)) firstSent.set(message.body, message.sequence);
  }
  const ordered = world.workload.events
    .filter((e) => e.planted === Planted.None && !everDead.has(e.body) && commits.has(e.eventId))
    .sort((a, b) => (firstSent.get(a.body) ?? 0) - (firstSent.get(b.body) ?? 0));
  const lastByAccount = new Map<string, { eventId: string; sequence: number }>();
  for (const event of ordered) {
    const sequence = commits.get(event.eventId)?.[0]?.sequence ?? 0;
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
