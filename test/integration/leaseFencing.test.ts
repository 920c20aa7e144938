import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { InboxStatus, inboxPk } from '../../src/constants/index.js';
import type { ClaimRequest, LeaseToken } from '../../src/core/InboxStore.js';
import { hashPayload as hashPayloadForTests } from '../../src/core/inboxEntry.js';
import { LeaseOperation } from '../../src/errors.js';
import { LeaseLostError } from '../../src/index.js';
import { useLedger } from '../support/ledgerFixture.js';

const { aws, ledger } = useLedger();
// Now, not a fixed date: the emulators delete an entry whose expiresAt (T0 + a day) has passed.
const T0 = Math.floor(Date.now() / 60_000) * 60_000;
const TTL_SECONDS = 86_400;
/**
 * An entry "expired but not yet swept": its expiresAt is in the future by the emulators' clock
 * (which sweep past ones on their own, at any moment) and in the past by the claim's, which is
 * AFTER_EXPIRY.
 */
const EXPIRED_SECONDS = 3_600;
const AFTER_EXPIRY = T0 + (EXPIRED_SECONDS + 60) * 1000;

/** A claim of `key` at `nowMillis` by `owner`, for a lease of `leaseMillis`. */
function claimOf(
  key: string,
  owner: string,
  nowMillis: number,
  leaseMillis = 1_000,
  payload = 'p1',
): ClaimRequest {
  const payloadHash = hashPayloadForTests(payload);
  return {
    entry: {
      pk: inboxPk('fencing', key),
      consumer: 'fencing',
      key,
      messageId: `m-${owner}`,
      payloadHash,
      expiresAt: Math.floor(nowMillis / 1000) + TTL_SECONDS,
    },
    payloadHashes: [payloadHash],
    owner,
    nowMillis,
    leaseUntilMillis: nowMillis + leaseMillis,
  };
}

async function claimed(request: ClaimRequest): Promise<LeaseToken> {
  const result = await ledger.store.claim(request);
  if (!result.claimed) throw new Error(`claim refused: ${result.existing.status}`);
  return result.lease;
}

function entryOf(key: string, nowMillis: number, lease: LeaseToken) {
  return {
    entry: {
      pk: inboxPk('fencing', key),
      consumer: 'fencing',
      key,
      messageId: 'm-commit',
      status: InboxStatus.Completed,
      payloadHash: hashPayloadForTests('p1'),
      processedAt: new Date(nowMillis).toISOString(),
      expiresAt: Math.floor(nowMillis / 1000) + TTL_SECONDS,
      formatVersion: 1,
    },
    nowEpochSeconds: Math.floor(nowMillis / 1000),
    lease,
  };
}

/** An entry of payload p1 written by message m-old, expired by AFTER_EXPIRY, with `fields`. */
async function putExpiredEntry(key: string, fields: Record<string, unknown>): Promise<void> {
  await aws.documentClient.send(
    new PutCommand({
      TableName: ledger.tables.inbox,
      Item: {
        pk: inboxPk('fencing', key),
        consumer: 'fencing',
        key,
        messageId: 'm-old',
        payloadHash: hashPayloadForTests('p1'),
        expiresAt: Math.floor(T0 / 1000) + EXPIRED_SECONDS,
        ...fields,
      },
    }),
  );
}

async function rawEntry(key: string) {
  const { Item } = await aws.documentClient.send(
    new GetCommand({
      TableName: ledger.tables.inbox,
      Key: { pk: inboxPk('fencing', key) },
      ConsistentRead: true,
    }),
  );
  return Item;
}

describe('the lease of a handler with steps', () => {
  it('claims an absent entry: in progress, owned, fencing counter and attempts 1, empty journal', async () => {
    const key = randomUUID();
    const result = await ledger.store.claim(claimOf(key, 'owner-a', T0));

    expect(result).toMatchObject({
      claimed: true,
      lease: { owner: 'owner-a', epoch: 1 },
      attempts: 1,
      journal: {},
    });
    const entry = await ledger.store.find(inboxPk('fencing', key));
    expect(entry).toMatchObject({
      status: InboxStatus.InProgress,
      attempts: 1,
      leaseUntilMillis: T0 + 1_000,
      steps: {},
    });
  });

  it('refuses a claim while another attempt holds a live lease, answering with the holder', async () => {
    const key = randomUUID();
    await claimed(claimOf(key, 'owner-a', T0, 5_000));

    const second = await ledger.store.claim(claimOf(key, 'owner-b', T0 + 4_999));

    expect(second.claimed).toBe(false);
    expect(second.claimed ? undefined : second.existing).toMatchObject({
      status: InboxStatus.InProgress,
      messageId: 'm-owner-a',
      leaseUntilMillis: T0 + 5_000,
    });
  });

  it('takes over a lapsed lease with the next fencing counter, keeping the journal', async () => {
    const key = randomUUID();
    const first = await claimed(claimOf(key, 'owner-a', T0));
    await ledger.store.journal({
      pk: inboxPk('fencing', key),
      lease: first,
      stepName: 'charge',
      step: { result: '{"id":"ch_1"}', at: 'then' },
    });

    const second = await ledger.store.claim(claimOf(key, 'owner-b', T0 + 1_001));

    expect(second).toMatchObject({
      claimed: true,
      lease: { owner: 'owner-b', epoch: 2 },
      attempts: 2,
      journal: { charge: { result: '{"id":"ch_1"}', at: 'then' } },
      takenOver: true,
    });
  });

  it('tells a takeover from a first claim and from the resumption of a released entry', async () => {
    const fresh = randomUUID();
    const released = randomUUID();
    const pk = inboxPk('fencing', released);
    const first = await ledger.store.claim(claimOf(fresh, 'owner-a', T0));
    const lease = await claimed(claimOf(released, 'owner-a', T0, 60_000));
    await ledger.store.release({ pk, lease, lastError: { name: 'Error', at: 'then' } });

    const resumed = await ledger.store.claim(claimOf(released, 'owner-b', T0 + 1));

    expect(first).toMatchObject({ claimed: true, takenOver: false });
    expect(resumed).toMatchObject({ claimed: true, takenOver: false });
  });

  it('still tells its takeover when the answer was lost and the claim is sent again', async () => {
    const key = randomUUID();
    await claimed(claimOf(key, 'owner-a', T0));
    const takeover = claimOf(key, 'owner-b', T0 + 1_001, 60_000);
    await claimed(takeover);

    await expect(ledger.store.claim({ ...takeover, nowMillis: T0 + 1_005 })).resolves.toMatchObject(
      { claimed: true, lease: { owner: 'owner-b' }, takenOver: true },
    );
  });

  it('refuses every write of an attempt whose lapsed lease was taken over: its journal write, heartbeat, commit and release', async () => {
    const key = randomUUID();
    const pk = inboxPk('fencing', key);
    const stale = await claimed(claimOf(key, 'owner-a', T0));
    const current = await claimed(claimOf(key, 'owner-b', T0 + 2_000));
    const accountId = `acc-${randomUUID()}`;

    const refusals = await Promise.allSettled([
      ledger.store.journal({ pk, lease: stale, stepName: 'charge', step: { at: 'stale' } }),
      ledger.store.heartbeat({
        pk,
        lease: stale,
        leaseUntilMillis: T0 + 60_000,
        expiresAt: 2_000_000_000,
      }),
      ledger.store.commit({
        ...entryOf(key, T0 + 2_500, stale),
        operations: [
          {
            Update: {
              TableName: ledger.tables.accounts,
              Key: { accountId },
              UpdateExpression: 'ADD balanceCents :a',
              ExpressionAttributeValues: { ':a': 100 },
            },
          },
        ],
      }),
      ledger.store.release({ pk, lease: stale, lastError: { name: 'Error', at: 'stale' } }),
    ]);

    const operations = refusals.map((r) =>
      r.status === 'rejected' && r.reason instanceof LeaseLostError ? r.reason.operation : r.status,
    );
    expect(operations).toEqual([
      LeaseOperation.Journal,
      LeaseOperation.Heartbeat,
      LeaseOperation.Commit,
      LeaseOperation.Release,
    ]);
    expect(await ledger.balanceOf(accountId)).toBe(0);
    const item = await rawEntry(key);
    expect(item).toMatchObject({
      status: InboxStatus.InProgress,
      leaseOwner: 'owner-b',
      leaseEpoch: 2,
      leaseUntil: T0 + 3_000,
      steps: {},
    });
    // The holder's own writes still go through.
    await ledger.store.journal({ pk, lease: current, stepName: 'charge', step: { at: 'current' } });
    await ledger.store.heartbeat({
      pk,
      lease: current,
      leaseUntilMillis: T0 + 9_000,
      expiresAt: 2_000_000_000,
    });
    await expect(
      ledger.store.commit({ ...entryOf(key, T0 + 3_000, current), operations: [] }),
    ).resolves.toEqual({ committed: true });
    expect(await rawEntry(key)).toMatchObject({
      status: InboxStatus.Completed,
      steps: { charge: { at: 'current' } },
    });
  });

  it('refuses the writes of an attempt whose lease the holder already committed or released', async () => {
    const key = randomUUID();
    const pk = inboxPk('fencing', key);
    const lease = await claimed(claimOf(key, 'owner-a', T0, 60_000));
    await ledger.store.release({ pk, lease, lastError: { name: 'TypeError', at: 'now' } });

    await expect(
      ledger.store.heartbeat({
        pk,
        lease,
        leaseUntilMillis: T0 + 90_000,
        expiresAt: 2_000_000_000,
      }),
    ).rejects.toBeInstanceOf(LeaseLostError);
    await expect(
      ledger.store.release({ pk, lease, lastError: { name: 'Error', at: 'again' } }),
    ).rejects.toBeInstanceOf(LeaseLostError);
    expect(await ledger.store.find(pk)).toMatchObject({
      status: InboxStatus.Failed,
      lastError: { name: 'TypeError', at: 'now' },
    });
  });

  it('lets a released entry be claimed at once by the next attempt, which resumes its journal', async () => {
    const key = randomUUID();
    const pk = inboxPk('fencing', key);
    const lease = await claimed(claimOf(key, 'owner-a', T0, 60_000));
    await ledger.store.journal({ pk, lease, stepName: 'email', step: { at: 'then' } });
    await ledger.store.release({ pk, lease, lastError: { name: 'Error', at: 'then' } });

    const next = await ledger.store.claim(claimOf(key, 'owner-b', T0 + 1));

    expect(next).toMatchObject({
      claimed: true,
      attempts: 2,
      lease: { epoch: 2 },
      journal: { email: { at: 'then' } },
    });
  });

  it('refuses a claim for another payload under the same key, answering with its entry', async () => {
    const key = randomUUID();
    const lease = await claimed(claimOf(key, 'owner-a', T0, 10));
    await ledger.store.release({
      pk: inboxPk('fencing', key),
      lease,
      lastError: { name: 'Error', at: 'then' },
    });

    const other = await ledger.store.claim(claimOf(key, 'owner-b', T0 + 100, 1_000, 'p2'));

    expect(other).toMatchObject({
      claimed: false,
      existing: { status: InboxStatus.Failed, payloadHash: hashPayloadForTests('p1') },
    });
  });

  it('starts afresh on an expired entry not yet swept by TTL: attempts 1, empty journal, the next fencing counter', async () => {
    const key = randomUUID();
    await putExpiredEntry(key, {
      status: InboxStatus.Failed,
      attempts: 4,
      leaseEpoch: 4,
      lastError: { name: 'Error', at: 'long ago' },
      steps: { charge: { result: '1', at: 'long ago' } },
    });

    const result = await ledger.store.claim(claimOf(key, 'owner-a', AFTER_EXPIRY));

    expect(result).toMatchObject({ claimed: true, attempts: 1, lease: { epoch: 5 }, journal: {} });
    expect(await rawEntry(key)).not.toHaveProperty('lastError');
  });

  it('starts afresh on an expired committed entry: the messages its commit published are no longer the entry’s', async () => {
    const key = randomUUID();
    await putExpiredEntry(key, {
      status: InboxStatus.Completed,
      processedAt: 'long ago',
      published: [{ id: 'a'.repeat(64), destination: 'https://sqs.example/q' }],
    });

    const lease = await claimed(claimOf(key, 'owner-a', AFTER_EXPIRY, 60_000));
    await ledger.store.commit({ ...entryOf(key, AFTER_EXPIRY + 10, lease), operations: [] });

    const entry = await rawEntry(key);
    expect(entry).toMatchObject({ status: InboxStatus.Completed, messageId: 'm-commit' });
    expect(entry).not.toHaveProperty('published');
  });

  it('refuses a claim on a completed, live entry, answering with it', async () => {
    const key = randomUUID();
    const lease = await claimed(claimOf(key, 'owner-a', T0, 60_000));
    await ledger.store.commit({ ...entryOf(key, T0 + 10, lease), operations: [] });

    const again = await ledger.store.claim(claimOf(key, 'owner-b', T0 + 20));

    expect(again).toMatchObject({
      claimed: false,
      existing: { status: InboxStatus.Completed, messageId: 'm-commit' },
    });
  });

  it('recognises its own claim when the answer was lost and the claim is sent again', async () => {
    const key = randomUUID();
    const request = claimOf(key, 'owner-a', T0, 60_000);
    await claimed(request);

    await expect(ledger.store.claim({ ...request, nowMillis: T0 + 5 })).resolves.toMatchObject({
      claimed: true,
      lease: { owner: 'owner-a', epoch: 1 },
    });
  });

  it('refuses a step-less commit while a live lease holds the entry, and lets it overwrite a released one', async () => {
    const key = randomUUID();
    const pk = inboxPk('fencing', key);
    const lease = await claimed(claimOf(key, 'owner-a', T0, 60_000));
    const { lease: _, ...plain } = entryOf(key, T0 + 10, lease);

    const held = await ledger.store.commit({ ...plain, operations: [] });
    expect(held).toMatchObject({ committed: false, existing: { status: InboxStatus.InProgress } });

    await ledger.store.release({ pk, lease, lastError: { name: 'Error', at: 'then' } });
    await expect(ledger.store.commit({ ...plain, operations: [] })).resolves.toEqual({
      committed: true,
    });
  });
});
