import { describe, expect, it } from 'vitest';
import type { ConflictBackoff } from '../../../src/contention/ConflictBackoff.js';
import type { CommitRequest, InboxStore } from '../../../src/core/InboxStore.js';
import { buildEntry } from '../../../src/core/inboxEntry.js';
import { resolveOptions } from '../../../src/core/resolveOptions.js';
import { sendCommit } from '../../../src/record/sendCommit.js';
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

/** A store whose commit answers `commit`, and that cannot share a transaction. */
function fakeStore(commit: () => Promise<never> | Promise<{ committed: true }>): InboxStore {
  return {
    find: async () => undefined,
    commit,
    claim: async () => {
      throw new Error('no steps here');
    },
    journal: async () => {},
    heartbeat: async () => {},
    release: async () => {},
  };
}

function batchWith(store: InboxStore) {
  const options = resolveOptions(
    { store, consumer: 'unit', key: () => 'k', observability: { logger: recordingLogger() } },
    () => {
      throw new Error('no dead-letter queue here');
    },
  );
  return { options, coalescer: undefined };
}

const never = new AbortController().signal;

describe('sendCommit', () => {
  it('learns the round trip of a commit that answered, not of one that failed otherwise than by a conflict', async () => {
    let nowMillis = 0;
    const store = fakeStore(async () => {
      nowMillis += 400;
      return { committed: true };
    });
    const batch = batchWith(store);
    const options = {
      ...batch.options,
      runtime: { ...batch.options.runtime, now: () => nowMillis },
    };
    const backoff: ConflictBackoff = options.conflictBackoff;

    await sendCommit(request, never, { ...batch, options });

    expect(backoff.roundTripMillis).toBeCloseTo(25 + 0.2 * (400 - 25));
  });
});
