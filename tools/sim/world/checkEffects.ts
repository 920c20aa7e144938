import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { ChangeRecord } from '../../../src/testing/dynamo/SimDynamoDB.js';
import { outboxMessagesOf } from './checkOutbox.js';
import { WorldTables } from './consumerFunction.js';
import { type PlannedEvent, Planted, UNKNOWN_COUNTER_ID } from './paymentWorkload.js';
import { WorldConsumer } from './WorldConfig.js';
import type { EventCommits } from './WorldEvents.js';
import type { WorldObservation } from './WorldObservation.js';

/** Planted events that may commit: one of two colliding payments, one of two events sharing an id. */
const MAY_COMMIT: ReadonlySet<Planted> = new Set([
  Planted.None,
  Planted.PaymentCollision,
  Planted.KeyReused,
]);

/**
 * Every business change is made in the transaction of an inbox entry, and is the change of
 * that entry's event: its account (or counter) credited with its amount, its payment's entry.
 *
 * @example
 * ```ts
 * checkWritesInInboxTransactions(changes, committed, failures);
 * ```
 */
export function checkWritesInInboxTransactions(
  changes: readonly ChangeRecord[],
  committed: EventCommits,
  failures: string[],
): void {
  const withEntry = new Set(
    changes
      .filter((c) => c.tableName === WorldTables.Inbox && c.newImage?.status?.S === 'COMPLETED')
      .map((c) => c.transactionId),
  );
  for (const change of changes) {
    if (change.tableName === WorldTables.Inbox) continue;
    if (change.transactionId === undefined || !withEntry.has(change.transactionId)) {
      failures.push(
        `atomicity: ${change.tableName} changed (change ${change.sequence}) outside an inbox entry's transaction`,
      );
      continue;
    }
    // A coalesced transaction commits several events: the change must be one of theirs.
    const events = committed.byTransaction.get(change.transactionId) ?? [];
    if (
      events.length > 0 &&
      !events.some((event) => isChangeOf(change, event)) &&
      !isMergedChange(change, events)
    ) {
      const ids = events.map((event) => event.eventId).join(', ');
      failures.push(
        `atomicity: ${change.tableName} change ${change.sequence} is not the change of any event it committed with (${ids})`,
      );
    }
  }
}

/**
 * Whether a business change is a merged `ADD` (coalesce's hot-item aggregation): a counter or an
 * account changed by the sum of the amounts of the transaction's events on it, two or more.
 */
function isMergedChange(change: ChangeRecord, events: readonly PlannedEvent[]): boolean {
  const [keyName, attribute] =
    change.tableName === WorldTables.Accounts
      ? ['accountId', 'balanceCents']
      : change.tableName === WorldTables.Counters
        ? ['counterId', 'total']
        : [];
  if (keyName === undefined || attribute === undefined) return false;
  const on = events.filter((event) => event.accountId === text(change.keys[keyName]));
  const delta =
    Number(change.newImage?.[attribute]?.N ?? 0) - Number(change.oldImage?.[attribute]?.N ?? 0);
  return on.length >= 2 && delta === on.reduce((sum, event) => sum + event.amountCents, 0);
}

/** Whether a business change is what the event's handler writes. */
function isChangeOf(change: ChangeRecord, event: PlannedEvent): boolean {
  const delta = (name: string) =>
    Number(change.newImage?.[name]?.N ?? 0) - Number(change.oldImage?.[name]?.N ?? 0);
  switch (change.tableName) {
    case WorldTables.Accounts:
      return (
        text(change.keys.accountId) === event.accountId &&
        delta('balanceCents') === event.amountCents
      );
    case WorldTables.Counters:
      return (
        text(change.keys.counterId) === event.accountId && delta('total') === event.amountCents
      );
    case WorldTables.Entries:
      return text(change.keys.paymentId) === event.paymentId && change.oldImage === undefined;
    case WorldTables.Notifications:
      return text(change.keys.eventId) === event.eventId && change.oldImage === undefined;
    case WorldTables.Outbox:
      return outboxMessagesOf(change).every((message) => message.eventId === event.eventId);
    default:
      return false;
  }
}

/**
 * Balances and ledger entries (or counter totals) are exactly the effects of the committed
 * events, each applied once per commit (a key committed again after its entry expired counts
 * twice), and no event planted to fail committed.
 *
 * @example
 * ```ts
 * checkEffects(world, committed, failures);
 * ```
 */
export function checkEffects(
  world: WorldObservation,
  committed: EventCommits,
  failures: string[],
): void {
  for (const [event] of committed.byEvent) {
    if (!MAY_COMMIT.has(event.planted)) {
      failures.push(`effects: ${event.eventId} (${event.planted}) committed`);
    }
  }
  if (world.config.consumer === WorldConsumer.Notifier) {
    checkNotifications(world, committed, failures);
    return;
  }
  const expectedCents = new Map(world.workload.accounts.map((a) => [a.accountId, 0]));
  const expectedEntries = new Set<string>();
  for (const [event, writes] of committed.byEvent) {
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
  if (ledger) checkLedgerEntries(world, expectedEntries, failures);
  else checkUnknownCounter(world, failures);
}

/** The counter no one opened is never created: every increment of it was refused. */
function checkUnknownCounter(world: WorldObservation, failures: string[]): void {
  const item = world.dynamo.getItem({
    TableName: WorldTables.Counters,
    Key: { counterId: { S: UNKNOWN_COUNTER_ID } },
  }).Item;
  if (item !== undefined) {
    failures.push(
      `effects: counter ${UNKNOWN_COUNTER_ID} exists (total ${item.total?.N ?? 'none'}), though no one opened it`,
    );
  }
}

/** One notification row per committed event: its first commit wrote it (a later one is refused). */
function checkNotifications(
  world: WorldObservation,
  committed: EventCommits,
  failures: string[],
): void {
  const committedIds = new Set([...committed.byEvent.keys()].map((event) => event.eventId));
  for (const eventId of new Set(world.workload.events.map((event) => event.eventId))) {
    const item = world.dynamo.getItem({
      TableName: WorldTables.Notifications,
      Key: { eventId: { S: eventId } },
    }).Item;
    if ((item !== undefined) !== committedIds.has(eventId)) {
      failures.push(
        `effects: notification of ${eventId} ${item ? 'exists without' : 'missing despite'} a committed event`,
      );
    }
  }
}

function checkLedgerEntries(
  world: WorldObservation,
  expectedEntries: ReadonlySet<string>,
  failures: string[],
): void {
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

function text(value: AttributeValue | undefined): string {
  return value?.S ?? '';
}
