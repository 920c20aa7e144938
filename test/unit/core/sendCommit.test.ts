import { describe, expect, it } from 'vitest';
import type { ConflictBackoff } from '../../../src/contention/ConflictBackoff.js';
import { ItemTurns } from '../../../src/contention/ItemTurns.js';
import type { CommitRequest, InboxStore } from '../../../src/core/InboxStore.js';
import { buildEntry } from '../../../src/core/inboxEntry.js';
import { resolveOptions } from '../../../src/core/resolveOptions.js';
import { sendCommit } from '../../../src/core/sendCommit.js';
import { TransientReason, TransientStoreError } from '../../../src/index.js';
import { recordingLogger } from '../../support/sqsRecords.js';

const request: CommitRequest = {
  entry: buildEntry({
    consumer: 'unit',
    key: 'evt-1',
    messageId: 'm-1',
    payloadHash: 'h',
    nowMillis: 1_700_000_000_000,
    ttlSeconds: 60,
  }),
  operations: [],
  nowEpochSeconds: 1_700_000_000,
};

/** A store whose commit answers `commit`, its items always `accounts#hot`. */
function fakeStore(commit: () => Promise<never> | Promise<{ committed: true }>): InboxStore {
  return {
    find: async () => undefined,
    commit,
    identifyItems: async () => ['accounts#hot'],
    claim: async () => {
      throw new Error('no steps here');
    },
    journal: async () => {},
    heartbeat: async () => {},
    release: async () => {},
  };
}

function batchWith(store: InboxStore, turns: ItemTurns) {
  const options = resolveOptions(
    { store, consumer: 'unit', key: () => 'k', logger: recordingLogger() },
    () => {
      throw new Error('no dead-letter queue here');
    },
  );
  return { options, coalescer: undefined, turns };
}

const never = new AbortController().signal;

describe('sendCommit', () => {
  it('releases its turn when the commit fails, so the next commit on the item goes', async () => {
    const turns = new ItemTurns(never);
    const conflict = new TransientStoreError(TransientReason.Throttling, undefined);
    const failing = batchWith(
      fakeStore(() => Promise.reject(conflict)),
      turns,
    );

    await expect(sendCommit(request, never, failing)).rejects.toBe(conflict);

    expect(turns.heldCount).toBe(0);
    const next = batchWith(
      fakeStore(async () => ({ committed: true })),
      turns,
    );
    await expect(sendCommit(request, never, next)).resolves.toEqual({ committed: true });
    expect(turns.heldCount).toBe(0);
  });

  it('takes no turn when the items cannot be identified (the check refuses the transaction)', async () => {
    const turns = new ItemTurns(never);
    const refused = new Error('two operations on one item');
    const store = {
      ...fakeStore(async () => ({ committed: true })),
      identifyItems: () => Promise.reject(refused),
    };

    await expect(sendCommit(request, never, batchWith(store, turns))).rejects.toBe(refused);
    expect(turns.heldCount).toBe(0);
  });

  it('learns the round trip of a commit that answered, not of one that failed otherwise than by a conflict', async () => {
    let nowMillis = 0;
    const store = fakeStore(async () => {
      nowMillis += 400;
      return { committed: true };
    });
    const batch = batchWith(store, new ItemTurns(never));
    const options = {
      ...batch.options,
      runtime: { ...batch.options.runtime, now: () => nowMillis },
    };
    const backoff: ConflictBackoff = options.conflictBackoff;

    await sendCommit(request, never, { ...batch, options });

    expect(backoff.roundTripMillis).toBeCloseTo(25 + 0.2 * (400 - 25));
  });
});
