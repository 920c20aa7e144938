import { TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { CommitCoalescer } from '../../../src/coalescing/CommitCoalescer.js';
import { InboxStatus } from '../../../src/constants/index.js';
import { TransientReason } from '../../../src/errors.js';
import { Precheck, TransientStoreError } from '../../../src/index.js';
import { BatchPrecheck } from '../../../src/precheck/BatchPrecheck.js';
import {
  commitFour,
  copyCancelsFirstStore,
  gatedStore,
  never,
  refusingStore,
  requestFor,
  sameItemCoalescer,
  settle,
} from '../../support/coalescerFakes.js';
import { recordingLogger } from '../../support/sqsRecords.js';

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
