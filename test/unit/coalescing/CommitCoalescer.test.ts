import { TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { type CoalescingStore, CommitCoalescer } from '../../../src/coalescing/CommitCoalescer.js';
import type { CommitRequest, PreparedCommit } from '../../../src/core/InboxStore.js';
import { buildEntry } from '../../../src/core/inboxEntry.js';
import {
  TransactionLimit,
  TransactionLimitError,
  TransientReason,
  TransientStoreError,
} from '../../../src/index.js';
import { recordingLogger } from '../../support/sqsRecords.js';

function requestFor(key: string): CommitRequest {
  const entry = buildEntry({
    consumer: 'unit',
    key,
    messageId: `m-${key}`,
    payloadHash: 'h',
    nowMillis: 1_700_000_000_000,
    ttlSeconds: 60,
  });
  return { entry, operations: [], nowEpochSeconds: 1_700_000_000 };
}

/**
 * A store whose shared transactions are all refused as a whole (as DynamoDB refuses a merged
 * update it cannot apply), every message crediting one hot account, and which counts the
 * commits in flight at once.
 */
function refusingStore() {
  let inFlight = 0;
  let mostInFlight = 0;
  const store: CoalescingStore = {
    find: async () => undefined,
    prepareCommit: async (request): Promise<PreparedCommit> => ({
      request,
      items: [],
      itemIds: [request.entry.pk, 'accounts#hot'],
      mergeableIds: new Set(['accounts#hot']),
      bytes: 100,
    }),
    commitTogether: async () => {
      throw new TransactionLimitError(
        TransactionLimit.InvalidOperation,
        'the merged update was refused',
        'Update accounts',
        'a number',
      );
    },
    commit: async () => {
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      return { committed: true };
    },
    claim: async () => {
      throw new Error('no steps here');
    },
    journal: async () => {},
    heartbeat: async () => {},
    release: async () => {},
  };
  return { store, mostInFlight: () => mostInFlight };
}

/** Four messages' commits through a coalescer on `store`, all at once; their results. */
function commitFour(store: CoalescingStore) {
  const coalescer = new CommitCoalescer(store, {
    runtime: { sleep: async () => {}, random: () => 0.5, now: () => 0 },
    logger: recordingLogger(),
    consumer: 'unit',
    attempts: 3,
  });
  const signal = new AbortController().signal;
  return Promise.all(['a', 'b', 'c', 'd'].map((key) => coalescer.commit(requestFor(key), signal)));
}

describe('CommitCoalescer', () => {
  it('commits the members of a transaction refused as a whole one at a time where they share an item, never two on it at once', async () => {
    const { store, mostInFlight } = refusingStore();
    const results = await commitFour(store);

    expect(results).toEqual(results.map(() => ({ committed: true })));
    expect(mostInFlight()).toBe(1);
  });

  it('queues the members of a transaction cancelled by a conflict on their hot item (injected) again together, so they stay in one transaction', async () => {
    const { store } = refusingStore();
    const sent: number[] = [];
    const conflict = new TransientStoreError(
      TransientReason.TransactionConflict,
      new TransactionConflictException({
        message: 'Transaction is ongoing for the item',
        $metadata: {},
      }),
    );
    store.commitTogether = async (members) => {
      sent.push(members.length);
      return sent.length === 1
        ? members.map(() => ({ error: conflict }))
        : members.map(() => ({ result: { committed: true as const } }));
    };
    const results = await commitFour(store);

    expect(results).toEqual(results.map(() => ({ committed: true })));
    expect(sent).toEqual([4, 4]);
  });
});
