import { getEventListeners } from 'node:events';
import { TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import type { TransactItem } from '../../../src/core/TransactionBuilder.js';
import { TransientReason } from '../../../src/errors.js';
import { TransientStoreError } from '../../../src/index.js';
import {
  gatedStore,
  never,
  requestFor,
  sameItemCoalescer,
  settle,
} from '../../support/coalescerFakes.js';

/** A `TransactionConflict` as the store reports it (injected: no emulator produces one). */
const conflict = new TransientStoreError(
  TransientReason.TransactionConflict,
  new TransactionConflictException({
    message: 'Transaction is ongoing for the item',
    $metadata: {},
  }),
);

/** A store whose first shared transaction is cancelled by a conflict for every member. */
function conflictOnceStore() {
  const gated = gatedStore();
  const { store, sent } = gated;
  store.commitTogether = async (members) => {
    sent.push(members.map(({ request }) => request.entry.key));
    return sent.length === 1
      ? members.map(() => ({ error: conflict }))
      : members.map(() => ({ result: { committed: true as const } }));
  };
  return gated;
}

const versionCheck: TransactItem = {
  Put: {
    TableName: 'orders',
    Item: { orderId: 'o-1', version: 2 },
    ConditionExpression: 'version = :read',
    ExpressionAttributeValues: { ':read': 1 },
  },
};

describe('CommitCoalescer without coalesce: what waits, and for how long', () => {
  it('gives up a commit still waiting for an item in flight as soon as its batch reaches its deadline, and lets the one in flight settle', async () => {
    const { store, sent, answerAll } = gatedStore();
    const coalescer = sameItemCoalescer(store);
    const deadline = new AbortController();
    const first = coalescer.commit(requestFor('hot-1'), deadline.signal);
    await settle();
    const waiting = coalescer.commit(requestFor('hot-2'), deadline.signal);
    await settle();

    deadline.abort(new Error('the batch reached its deadline'));

    await expect(waiting).rejects.toThrow('deadline');
    answerAll();
    await expect(first).resolves.toEqual({ committed: true });
    expect(sent).toEqual([['hot-1']]);
  });

  it('listens to its batch’s signal once, however many commits wait (no listener warning in Lambda’s logs)', async () => {
    const { store, answerAll } = gatedStore();
    const coalescer = sameItemCoalescer(store);
    const batch = new AbortController();

    const results = Array.from({ length: 20 }, (_, n) =>
      coalescer.commit(requestFor(`hot-${n}`), batch.signal),
    );
    await settle();

    expect(getEventListeners(batch.signal, 'abort')).toHaveLength(1);
    answerAll();
    await Promise.all(results);
  });

  it('lets the next commit on an item go when the commit in flight on it failed', async () => {
    const { store, sent, answerAll } = gatedStore();
    const commit = store.commit;
    store.commit = async (request) => {
      if (request.entry.key === 'hot-1') {
        sent.push(['hot-1']);
        throw new TransientStoreError(TransientReason.Throttling, undefined);
      }
      return commit(request);
    };
    const coalescer = sameItemCoalescer(store);
    const failed = expect(coalescer.commit(requestFor('hot-1'), never)).rejects.toThrow(
      TransientStoreError,
    );
    await settle();
    const next = coalescer.commit(requestFor('hot-2'), never);

    await failed;
    await settle();
    answerAll();
    await expect(next).resolves.toEqual({ committed: true });
    expect(sent).toEqual([['hot-1'], ['hot-2']]);
  });

  it('sends unconditional members again together after a conflict (injected), but fails one with a condition of its own so that its handler runs again', async () => {
    const { store, sent, answerAll } = conflictOnceStore();
    const coalescer = sameItemCoalescer(store);

    const plain = coalescer.commit(requestFor('hot-1'), never);
    const checkedFails = expect(
      coalescer.commit(requestFor('hot-2', [versionCheck]), never),
    ).rejects.toBe(conflict);
    const other = coalescer.commit(requestFor('hot-3'), never);
    await settle();
    answerAll();

    await checkedFails;
    await settle();
    answerAll();
    await expect(Promise.all([plain, other])).resolves.toEqual([
      { committed: true },
      { committed: true },
    ]);
    expect(sent).toEqual([
      ['hot-1', 'hot-2', 'hot-3'],
      ['hot-1', 'hot-3'],
    ]);
  });

  it('fails members cancelled by a conflict (injected) once the batch’s conflict budget is spent, instead of sending them again', async () => {
    const { store, answerAll } = conflictOnceStore();
    const coalescer = sameItemCoalescer(store, undefined, { conflictsUntilMillis: 0 });

    const results = ['hot-1', 'hot-2'].map((key) =>
      expect(coalescer.commit(requestFor(key), never)).rejects.toBe(conflict),
    );
    await settle();
    answerAll();

    await Promise.all(results);
  });

  it('settles a shared transaction’s members as committed even when the metrics sink throws', async () => {
    const { store, answerAll } = gatedStore();
    const metrics = {
      addMetric() {
        throw new Error('metrics sink down');
      },
    };
    const coalescer = sameItemCoalescer(store, undefined, { metrics });

    const results = ['hot-1', 'hot-2'].map((key) => coalescer.commit(requestFor(key), never));
    await settle();
    answerAll();

    await expect(Promise.all(results)).resolves.toEqual([{ committed: true }, { committed: true }]);
  });

  it('settles a copy queued behind its original in the same batch as the duplicate of the entry the original committed, sending nothing for it', async () => {
    const { store, sent, answerAll } = gatedStore();
    const coalescer = sameItemCoalescer(store);
    const original = requestFor('hot-1');
    const first = coalescer.commit(original, never);
    await settle();
    const copy = coalescer.commit({ ...requestFor('hot-1'), operations: [] }, never);
    await settle();

    answerAll();

    await expect(first).resolves.toEqual({ committed: true });
    await expect(copy).resolves.toEqual({ committed: false, existing: original.entry });
    expect(sent).toEqual([['hot-1']]);
  });

  it('sends a copy itself when its original’s commit failed, so that the copy may still commit the message', async () => {
    const { store, sent, answerAll } = gatedStore();
    const commit = store.commit;
    let tries = 0;
    store.commit = async (request) => {
      if (++tries > 1) return commit(request);
      sent.push([request.entry.key]);
      throw new TransientStoreError(TransientReason.Throttling, undefined);
    };
    const coalescer = sameItemCoalescer(store);
    const failed = expect(coalescer.commit(requestFor('hot-1'), never)).rejects.toThrow(
      TransientStoreError,
    );
    await settle();
    const copy = coalescer.commit(requestFor('hot-1'), never);

    await failed;
    await settle();
    answerAll();

    await expect(copy).resolves.toEqual({ committed: true });
    expect(sent).toEqual([['hot-1'], ['hot-1']]);
  });
});
