import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ItemTurns } from '../../../src/contention/ItemTurns.js';
import { hasSettled } from '../../support/manualRuntime.js';

const never = new AbortController().signal;

describe('ItemTurns', () => {
  it('lets commits that share no item go at once, together', async () => {
    const turns = new ItemTurns(never);

    const first = turns.take(['inbox#a', 'accounts#1']);
    const second = turns.take(['inbox#b', 'accounts#2']);

    expect(await hasSettled(first)).toBe(true);
    expect(await hasSettled(second)).toBe(true);
    expect(turns.heldCount).toBe(4);
  });

  it('holds a commit that shares an item until the one in flight releases it', async () => {
    const turns = new ItemTurns(never);
    const release = await turns.take(['inbox#a', 'accounts#1']);

    const second = turns.take(['inbox#b', 'accounts#1']);
    expect(await hasSettled(second)).toBe(false);

    release();
    expect(await hasSettled(second)).toBe(true);
  });

  it('serves waiters in arrival order: a later commit never overtakes an earlier one on the same item', async () => {
    const turns = new ItemTurns(never);
    const order: string[] = [];
    const releaseHot = await turns.take(['accounts#hot', 'inbox#0']);
    const waiters = ['a', 'b', 'c'].map((name) =>
      turns.take(['accounts#hot', `inbox#${name}`]).then((release) => {
        order.push(name);
        return release;
      }),
    );
    // Shares nothing with the hot item, but an item with waiter b: it waits behind b.
    const behindB = turns.take(['inbox#b']).then((release) => {
      order.push('b-copy');
      return release;
    });

    releaseHot();
    for (const waiter of waiters) (await waiter)();
    (await behindB)();

    expect(order).toEqual(['a', 'b', 'c', 'b-copy']);
    expect(turns.heldCount).toBe(0);
  });

  it('lets a commit that shares nothing with the waiters go past them', async () => {
    const turns = new ItemTurns(never);
    await turns.take(['accounts#hot']);
    const waiting = turns.take(['accounts#hot', 'inbox#a']);

    const unrelated = turns.take(['accounts#cold', 'inbox#b']);

    expect(await hasSettled(unrelated)).toBe(true);
    expect(await hasSettled(waiting)).toBe(false);
  });

  it('gives up every waiting commit when its batch reaches its deadline, with one listener on the signal', async () => {
    const deadline = new AbortController();
    const turns = new ItemTurns(deadline.signal);
    const release = await turns.take(['accounts#hot']);
    const abandoned = Array.from({ length: 20 }, (_, n) =>
      turns.take(['accounts#hot', `inbox#${n}`]),
    );

    expect(getEventListeners(deadline.signal, 'abort')).toHaveLength(1);
    deadline.abort(new Error('deadline'));

    for (const waiter of abandoned) await expect(waiter).rejects.toThrow('deadline');
    release();
    expect(turns.heldCount).toBe(0);
  });

  it('refuses a commit whose batch already passed its deadline, holding nothing', async () => {
    const deadline = new AbortController();
    const turns = new ItemTurns(deadline.signal);
    deadline.abort(new Error('deadline'));

    await expect(turns.take(['inbox#a'])).rejects.toThrow('deadline');
    expect(turns.heldCount).toBe(0);
  });

  it('releases once however often release is called', async () => {
    const turns = new ItemTurns(never);
    const release = await turns.take(['accounts#1']);
    release();
    const again = await turns.take(['accounts#1']);

    release();

    expect(turns.heldCount).toBe(1);
    again();
    expect(turns.heldCount).toBe(0);
  });
});
