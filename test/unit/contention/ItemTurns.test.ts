import { describe, expect, it } from 'vitest';
import { ItemTurns } from '../../../src/contention/ItemTurns.js';

const never = new AbortController().signal;

/** Whether a promise has settled after the microtasks queued so far. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('ItemTurns', () => {
  it('lets commits that share no item go at once, together', async () => {
    const turns = new ItemTurns();

    const first = turns.take(['inbox#a', 'accounts#1'], never);
    const second = turns.take(['inbox#b', 'accounts#2'], never);

    expect(await settled(first)).toBe(true);
    expect(await settled(second)).toBe(true);
    expect(turns.heldCount).toBe(4);
  });

  it('holds a commit that shares an item until the one in flight releases it', async () => {
    const turns = new ItemTurns();
    const release = await turns.take(['inbox#a', 'accounts#1'], never);

    const second = turns.take(['inbox#b', 'accounts#1'], never);
    expect(await settled(second)).toBe(false);

    release();
    expect(await settled(second)).toBe(true);
  });

  it('serves waiters in arrival order: a later commit never overtakes an earlier one on the same item', async () => {
    const turns = new ItemTurns();
    const order: string[] = [];
    const releaseHot = await turns.take(['accounts#hot', 'inbox#0'], never);
    const waiters = ['a', 'b', 'c'].map((name) =>
      turns.take(['accounts#hot', `inbox#${name}`], never).then((release) => {
        order.push(name);
        return release;
      }),
    );
    // Shares nothing with the hot item, but an item with waiter b: it waits behind b.
    const behindB = turns.take(['inbox#b'], never).then((release) => {
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
    const turns = new ItemTurns();
    await turns.take(['accounts#hot'], never);
    const waiting = turns.take(['accounts#hot', 'inbox#a'], never);

    const unrelated = turns.take(['accounts#cold', 'inbox#b'], never);

    expect(await settled(unrelated)).toBe(true);
    expect(await settled(waiting)).toBe(false);
  });

  it('gives up a waiting commit when its batch reaches its deadline, and lets the next one go', async () => {
    const turns = new ItemTurns();
    const release = await turns.take(['accounts#hot'], never);
    const deadline = new AbortController();
    const abandoned = turns.take(['accounts#hot', 'inbox#a'], deadline.signal);
    const next = turns.take(['inbox#a'], never);

    deadline.abort(new Error('deadline'));

    await expect(abandoned).rejects.toThrow('deadline');
    expect(await settled(next)).toBe(true);
    release();
    expect(turns.heldCount).toBe(1);
  });

  it('refuses a commit whose batch already passed its deadline, holding nothing', async () => {
    const turns = new ItemTurns();
    const deadline = new AbortController();
    deadline.abort(new Error('deadline'));

    await expect(() => turns.take(['inbox#a'], deadline.signal)).toThrow('deadline');
    expect(turns.heldCount).toBe(0);
  });

  it('releases once however often release is called', async () => {
    const turns = new ItemTurns();
    const release = await turns.take(['accounts#1'], never);
    release();
    const again = await turns.take(['accounts#1'], never);

    release();

    expect(turns.heldCount).toBe(1);
    again();
    expect(turns.heldCount).toBe(0);
  });
});
