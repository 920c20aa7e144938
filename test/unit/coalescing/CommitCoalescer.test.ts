import { TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { type CoalescingStore, CommitCoalescer } from '../../../src/coalescing/CommitCoalescer.js';
import type { CommitRequest, PreparedCommit } from '../../../src/core/InboxStore.js';
import { buildEntry } from '../../../src/core/inboxEntry.js';
import {
  InboxStatus,
  Precheck,
  TransactionLimit,
  TransactionLimitError,
  TransientReason,
  TransientStoreError,
} from '../../../src/index.js';
import { BatchPrecheck } from '../../../src/precheck/BatchPrecheck.js';
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

const never = new AbortController().signal;

/** A coalescer as a processor without `coalesce` builds it. */
function sameItemCoalescer(store: CoalescingStore, precheck?: BatchPrecheck) {
  return new CommitCoalescer(store, {
    precheck,
    runtime: { sleep: async () => {}, random: () => 0.5, now: () => 0 },
    logger: recordingLogger(),
    consumer: 'unit',
    attempts: 3,
    sameItemOnly: true,
  });
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

/**
 * A store that credits the account named before a key's dash (`hot-1` credits `hot`), the
 * credit mergeable, and holds every transaction open until the test lets it answer. Records
 * the keys of each transaction sent, in order.
 */
function gatedStore() {
  const sent: string[][] = [];
  const gates: (() => void)[] = [];
  const answer = () => new Promise<void>((resolve) => gates.push(resolve));
  const account = (request: CommitRequest) => `accounts#${request.entry.key.split('-')[0]}`;
  const store: CoalescingStore = {
    ...refusingStore().store,
    prepareCommit: async (request): Promise<PreparedCommit> => ({
      request,
      items: [],
      itemIds: [request.entry.pk, account(request)],
      mergeableIds: new Set([account(request)]),
      bytes: 100,
    }),
    commit: async (request) => {
      sent.push([request.entry.key]);
      await answer();
      return { committed: true };
    },
    commitTogether: async (members) => {
      sent.push(members.map(({ request }) => request.entry.key));
      await answer();
      return members.map(() => ({ result: { committed: true as const } }));
    },
  };
  return {
    store,
    sent,
    answerNext: () => gates.shift()?.(),
    answerAll: () => {
      for (const open of gates.splice(0)) open();
    },
  };
}

/** Lets every commit started so far reach the store. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A store whose first shared transaction is cancelled by its first member's own inbox
 * condition (a copy committed before), its other members innocent; every other commits.
 * Records the keys of each transaction sent.
 */
function copyCancelsFirstStore() {
  const { store } = gatedStore();
  const sent: string[][] = [];
  const existing = { ...requestFor('copy').entry, status: InboxStatus.Completed };
  store.commit = async (request) => {
    sent.push([request.entry.key]);
    return { committed: true };
  };
  store.commitTogether = async (members) => {
    sent.push(members.map(({ request }) => request.entry.key));
    if (sent.filter((keys) => keys.length > 1).length > 1) {
      return members.map(() => ({ result: { committed: true as const } }));
    }
    return members.map((_, at) =>
      at === 0 ? { result: { committed: false as const, existing } } : { innocent: true as const },
    );
  };
  return { store, sent };
}

describe('CommitCoalescer', () => {
  it('without coalesce, keeps a hot item’s commits in one transaction after a copy among them cancelled it', async () => {
    const { store, sent } = copyCancelsFirstStore();
    const coalescer = sameItemCoalescer(store);

    await Promise.all(
      ['hot-1', 'hot-2', 'hot-3'].map((key) => coalescer.commit(requestFor(key), never)),
    );

    expect(sent).toEqual([
      ['hot-1', 'hot-2', 'hot-3'],
      ['hot-2', 'hot-3'],
    ]);
  });

  it('with coalesce, shares transactions again once a transaction of one member committed after a cancellation had cut them to one', async () => {
    const { store, sent } = copyCancelsFirstStore();
    const coalescer = new CommitCoalescer(store, {
      runtime: { sleep: async () => {}, random: () => 0.5, now: () => 0 },
      logger: recordingLogger(),
      consumer: 'unit',
      attempts: 3,
    });

    await Promise.all(['a-1', 'b-1'].map((key) => coalescer.commit(requestFor(key), never)));
    await Promise.all(['c-1', 'd-1'].map((key) => coalescer.commit(requestFor(key), never)));

    expect(sent).toEqual([['a-1', 'b-1'], ['b-1'], ['c-1', 'd-1']]);
  });

  it('without coalesce, shares a transaction only between commits crediting one account, and sends each other commit alone', async () => {
    const { store, sent, answerAll } = gatedStore();
    const coalescer = sameItemCoalescer(store);

    const results = ['hot-1', 'cold-1', 'hot-2', 'warm-1'].map((key) =>
      coalescer.commit(requestFor(key), never),
    );
    await settle();

    expect(sent).toEqual([['hot-1', 'hot-2'], ['cold-1'], ['warm-1']]);
    answerAll();
    expect(await Promise.all(results)).toEqual(results.map(() => ({ committed: true })));
  });

  it('without coalesce, holds a transaction several commits share until the batch’s read answers, and settles a copy it found committed without a write', async () => {
    const { store, sent, answerAll } = gatedStore();
    const committed = { ...requestFor('hot-1').entry, status: InboxStatus.Completed };
    let answerRead: () => void = () => {};
    const read = new Promise<void>((resolve) => {
      answerRead = resolve;
    });
    store.find = async (pk) => {
      await read;
      return pk === committed.pk ? committed : undefined;
    };
    const precheck = BatchPrecheck.start(
      Promise.resolve(['unit#hot-1', 'unit#hot-2', 'unit#cold-1']),
      {
        precheck: Precheck.Concurrent,
        store,
        logger: recordingLogger(),
        consumer: 'unit',
        warned: new Set(),
      },
    );
    const coalescer = sameItemCoalescer(store, precheck);

    const results = ['hot-1', 'cold-1', 'hot-2'].map((key) =>
      coalescer.commit(requestFor(key), never),
    );
    await settle();
    expect(sent).toEqual([['cold-1']]);

    answerRead();
    await settle();
    expect(sent).toEqual([['cold-1'], ['hot-2']]);
    answerAll();
    const [copy] = await Promise.all(results);
    expect(copy).toEqual({ committed: false, existing: committed });
  });

  it('without coalesce, holds a later commit on an item in flight until it answers, and lets one sharing nothing go at once', async () => {
    const { store, sent, answerNext, answerAll } = gatedStore();
    const coalescer = sameItemCoalescer(store);
    const first = coalescer.commit(requestFor('hot-1'), never);
    await settle();

    const later = ['hot-2', 'cold-1'].map((key) => coalescer.commit(requestFor(key), never));
    await settle();
    expect(sent).toEqual([['hot-1'], ['cold-1']]);

    answerNext();
    await settle();
    expect(sent).toEqual([['hot-1'], ['cold-1'], ['hot-2']]);
    answerAll();
    await Promise.all([first, ...later]);
  });

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
