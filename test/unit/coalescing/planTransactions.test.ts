import { describe, expect, it } from 'vitest';
import { planTransactions } from '../../../src/coalescing/planTransactions.js';
import type { PreparedCommit } from '../../../src/core/InboxStore.js';

/** A member writing the given items, of the given size. */
function member(name: string, itemIds: readonly string[], bytes = 100) {
  return {
    name,
    prepared: { itemIds, bytes, items: [], request: {} } as unknown as PreparedCommit,
  };
}

const names = (plan: ReturnType<typeof planTransactions<ReturnType<typeof member>>>) => ({
  transactions: plan.transactions.map((transaction) => transaction.map(({ name }) => name)),
  deferred: plan.deferred.map(({ name }) => name),
});

describe('planTransactions', () => {
  it('puts members with distinct items in one transaction, in arrival order', () => {
    const plan = planTransactions([
      member('a', ['1', '2']),
      member('b', ['3']),
      member('c', ['4']),
    ]);

    expect(names(plan)).toEqual({ transactions: [['a', 'b', 'c']], deferred: [] });
  });

  it('leaves for the next flush a member that shares an item with one taken before it', () => {
    const plan = planTransactions([
      member('a', ['inbox#1', 'account-x']),
      member('b', ['inbox#2', 'account-x']),
      member('c', ['inbox#3', 'account-y']),
    ]);

    expect(names(plan)).toEqual({ transactions: [['a', 'c']], deferred: ['b'] });
  });

  it('opens another transaction when the next member would pass 100 items', () => {
    const thirtyThree = (prefix: string) => Array.from({ length: 33 }, (_, i) => `${prefix}${i}`);
    const plan = planTransactions(
      ['a', 'b', 'c', 'd'].map((name) => member(name, thirtyThree(name))),
    );

    expect(names(plan)).toEqual({ transactions: [['a', 'b', 'c'], ['d']], deferred: [] });
  });

  it('puts at most maxMembers members in a transaction', () => {
    const plan = planTransactions(
      ['a', 'b', 'c', 'd', 'e'].map((name) => member(name, [name])),
      2,
    );

    expect(names(plan)).toEqual({ transactions: [['a', 'b'], ['c', 'd'], ['e']], deferred: [] });
  });

  it('opens another transaction when the next member would pass 4 MB, and fills earlier ones first', () => {
    const megabytes = (n: number) => n * 1024 * 1024;
    const plan = planTransactions([
      member('a', ['1'], megabytes(3)),
      member('b', ['2'], megabytes(2)),
      member('c', ['3'], megabytes(1)),
    ]);

    expect(names(plan)).toEqual({ transactions: [['a', 'c'], ['b']], deferred: [] });
  });
});
