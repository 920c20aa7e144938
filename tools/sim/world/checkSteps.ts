import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { stepIdempotencyKey } from '../../../src/constants/index.js';
import type { ChangeRecord } from '../../../src/testing/dynamo/SimDynamoDB.js';
import type { EffectCall } from '../effects/SimEffects.js';
import { WORLD_EPOCH_MILLIS } from '../lambda/SimLambda.js';
import { isFailureRecord } from './checkFailureRecords.js';
import { WorldTables } from './consumerFunction.js';
import { WorldConsumer } from './WorldConfig.js';
import type { EventCommits } from './WorldEvents.js';
import type { WorldObservation } from './WorldObservation.js';

type Image = Record<string, AttributeValue>;

/** The notifier's steps, by the name its handler gives them. */
const STEPS = { email: 'email', receipt: 'receipt' } as const;

/**
 * The invariants of steps and their lease:
 * - fencing: every write to an entry under a lease (a journal write, a heartbeat, a release,
 *   the commit) is made by the invocation that claimed it last; a released entry is only
 *   claimed again (or overwritten by a step-less commit);
 * - the journal is kept: a journaled step stays on the entry until the entry expires;
 * - no step runs again after its journal write, unless by an attempt whose lease was taken
 *   over (the window a downstream key covers);
 * - a step's idempotency key is the same on every call: consumer, key and step name;
 * - every committed event emailed and its receipt written, with its own payment.
 *
 * @example
 * ```ts
 * checkSteps(world, changes, committed, failures);
 * ```
 */
export function checkSteps(
  world: WorldObservation,
  changes: readonly ChangeRecord[],
  committed: EventCommits,
  failures: string[],
): void {
  const history = entryHistories(world, changes);
  for (const [key, entries] of history) {
    checkFencing(key, entries, failures);
    checkClaims(world, key, entries, failures);
  }
  if (world.config.consumer !== WorldConsumer.Notifier) return;
  const calls = [
    ...world.effects.emails.map((call) => ({ ...call, step: STEPS.email })),
    ...world.effects.receiptPuts.map((call) => ({ ...call, step: STEPS.receipt })),
  ];
  for (const call of calls) checkCall(call, history.get(call.eventId) ?? [], failures);
  checkResultsInHand(calls, failures);
  for (const email of world.effects.emails) {
    const expected = stepIdempotencyKey(world.config.consumer, email.eventId, STEPS.email);
    if (email.reference !== expected) {
      failures.push(
        `steps: an email of ${email.eventId} carries reference ${email.reference.slice(0, 12)}…, not the step's stable idempotency key`,
      );
    }
  }
  for (const [event, commits] of committed.byEvent) {
    // A quiet payment is recorded without a step: no email, no receipt.
    if (event.stepless) continue;
    const firstMillis = world.changeMillis[(commits[0]?.sequence ?? 1) - 1] ?? 0;
    if (
      !world.effects.emails.some(
        (e) => e.eventId === event.eventId && e.appliedMillis <= firstMillis,
      )
    ) {
      failures.push(`steps: ${event.eventId} committed without an email sent before`);
    }
    const receipt = world.effects.objects.get(`receipts/${event.paymentId}.json`);
    const written =
      receipt === undefined ? undefined : (JSON.parse(receipt) as { amountCents?: number });
    if (written?.amountCents !== event.amountCents) {
      failures.push(
        `steps: ${event.eventId} committed, but its receipt is ${receipt === undefined ? 'missing' : "another payment's"}`,
      );
    }
  }
}

/** One change of an entry, with who made it and when. */
interface EntryChange {
  readonly change: ChangeRecord;
  readonly invocationId: number | undefined;
  readonly atMillis: number;
}

function entryHistories(
  world: WorldObservation,
  changes: readonly ChangeRecord[],
): Map<string, EntryChange[]> {
  const history = new Map<string, EntryChange[]>();
  for (const change of changes) {
    if (change.tableName !== WorldTables.Inbox) continue;
    const pk = change.keys.pk?.S ?? '';
    const key = pk.slice(pk.indexOf('#') + 1);
    history.set(key, [
      ...(history.get(key) ?? []),
      {
        change,
        invocationId: world.changeInvocations[change.sequence - 1],
        atMillis: world.changeMillis[change.sequence - 1] ?? 0,
      },
    ]);
  }
  return history;
}

const epochOf = (image: Image | undefined) => Number(image?.leaseEpoch?.N ?? 0);
const isClaim = ({ change }: EntryChange) => epochOf(change.newImage) > epochOf(change.oldImage);
const stepsOf = (image: Image | undefined) => Object.keys(image?.steps?.M ?? {});

function checkFencing(key: string, entries: readonly EntryChange[], failures: string[]): void {
  let holder: EntryChange | undefined;
  for (const entry of entries) {
    const { change } = entry;
    const old = change.oldImage;
    const next = change.newImage;
    if (next === undefined || isClaim(entry)) {
      holder = next === undefined ? undefined : entry;
      continue;
    }
    // A step-less commit replaces the whole item: it carries no lease.
    if (next.leaseEpoch === undefined) {
      holder = undefined;
      continue;
    }
    const what = `${describeWrite(change)} of ${key}'s entry (change ${change.sequence}) by invocation ${entry.invocationId}`;
    // A step-less attempt's failure record is under no lease (checkFailureRecords holds it to
    // released entries), but keeps the journal as every write but a commit does.
    const fenced = !isFailureRecord(change);
    if (fenced && old?.leaseOwner === undefined) {
      failures.push(`fencing: ${what}, after its lease was released or completed`);
    } else if (fenced && (holder === undefined || holder.invocationId !== entry.invocationId)) {
      failures.push(`fencing: ${what}, though invocation ${holder?.invocationId} claimed it last`);
    }
    const lost = stepsOf(old).filter((step) => !stepsOf(next).includes(step));
    if (lost.length > 0)
      failures.push(
        `steps: the journal of ${key} lost ${lost.join(', ')} (change ${change.sequence})`,
      );
  }
}

/**
 * A claim takes an entry only when no live lease holds it: one in progress must have lapsed by
 * the claimer's clock (which may run `clockSkewMillis` ahead of the world's), and by the world's
 * own: the lease its holder last wrote has run its whole length in real time (`leaseMillis` from
 * when that write was sent, never past the holder's invocation's end), whatever the containers'
 * skew — the skew the lease's allowance covers.
 */
function checkClaims(
  world: WorldObservation,
  key: string,
  entries: readonly EntryChange[],
  failures: string[],
): void {
  entries.forEach((entry, n) => {
    if (!isClaim(entry)) return;
    const old = entry.change.oldImage;
    if (old?.status?.S !== 'IN_PROGRESS' || old.leaseUntil === undefined) return;
    const what = `invocation ${entry.invocationId} claimed ${key}'s entry (change ${entry.change.sequence})`;
    const claimerMillis = WORLD_EPOCH_MILLIS + entry.atMillis + world.config.clockSkewMillis;
    if (Number(old.leaseUntil.N) >= claimerMillis) {
      failures.push(`fencing: ${what} while another attempt's lease still held it`);
    }
    const lastLeaseWrite = entries
      .slice(0, n)
      .findLast(({ change }) => change.newImage?.leaseUntil?.N !== change.oldImage?.leaseUntil?.N);
    const endMillis = leaseEndInRealTime(world, lastLeaseWrite);
    if (endMillis !== undefined && entry.atMillis < endMillis) {
      failures.push(
        `fencing: ${what} at ${Math.round(entry.atMillis)} ms, before the lease its holder last wrote had run its length in real time (${Math.round(endMillis)} ms)`,
      );
    }
  });
}

/**
 * When, in world millis, the lease a write gave its holder ends: its length from when the write
 * was sent, never past the end of the holder's invocation (the Lambda timeout).
 */
function leaseEndInRealTime(
  world: WorldObservation,
  write: EntryChange | undefined,
): number | undefined {
  if (write === undefined || write.change.newImage?.status?.S !== 'IN_PROGRESS') return undefined;
  const sentMillis = world.changeSentMillis[write.change.sequence - 1];
  const holder = world.invocations.find(({ id }) => id === write.invocationId);
  if (sentMillis === undefined || holder === undefined) return undefined;
  const invocationEndMillis = holder.startedMillis + world.config.functionTimeoutMillis;
  const leaseMillis = world.config.leaseMillis ?? Number.POSITIVE_INFINITY;
  return Math.min(sentMillis + leaseMillis, invocationEndMillis);
}

/**
 * A step's effect is called once per attempt: an attempt that holds its result journals it
 * (retrying the write under its lease, or with the release) before anything could run the step
 * again. So one invocation never calls one step twice for one record: a second call would be a
 * result in hand thrown away (two distinct calls, not one request the network applied twice).
 */
function checkResultsInHand(
  calls: ReadonlyArray<EffectCall & { readonly step: string }>,
  failures: string[],
): void {
  const seen = new Map<string, number>();
  for (const call of calls) {
    if (call.invocationId === undefined) continue;
    const attempt = `${call.invocationId} ${call.recordId} ${call.step}`;
    const first = seen.get(attempt);
    if (first === undefined) {
      seen.set(attempt, call.callId);
    } else if (first !== call.callId) {
      failures.push(
        `steps: ${call.step} of ${call.eventId} ran twice in invocation ${call.invocationId} for one record, though the first call's result was in hand`,
      );
      seen.set(attempt, call.callId);
    }
  }
}

function describeWrite(change: ChangeRecord): string {
  const status = change.newImage?.status?.S;
  if (status === 'COMPLETED') return 'the commit';
  if (isFailureRecord(change)) return 'a failure record';
  if (status === 'FAILED') return 'a release';
  return stepsOf(change.newImage).length > stepsOf(change.oldImage).length
    ? 'a journal write'
    : 'a heartbeat';
}

/**
 * A step's call is made only when its journal does not hold it, or by an attempt that no longer
 * owns the lease (taken over while it ran): the entry as it stood when the call was issued.
 */
function checkCall(
  call: EffectCall & { readonly step: string },
  entries: readonly EntryChange[],
  failures: string[],
): void {
  const before = entries.filter((entry) => entry.atMillis <= call.issuedMillis);
  const state = before.at(-1)?.change.newImage;
  if (!stepsOf(state).includes(call.step)) return;
  const claim = before.filter(isClaim).at(-1);
  const owned =
    claim?.invocationId === call.invocationId &&
    claim?.change.newImage?.messageId?.S === call.recordId;
  if (owned) {
    failures.push(
      `steps: ${call.step} of ${call.eventId} ran again (invocation ${call.invocationId}) after its journal write, by the attempt that held the lease`,
    );
  }
}
