import { describe, expect, it } from 'vitest';
import { countMergedUpdates, planTransactions } from '../../../src/coalescing/planTransactions.js';
import type { PreparedCommit } from '../../../src/core/InboxStore.js';
import { preparedPayment } from '../../support/preparedCommits.js';

/** A member writing the given items, of the given size, those in `mergeable` mergeable. */
function member(name: string, itemIds: readonly string[], bytes = 100, mergeable: string[] = []) {
  return {
    name,
    prepared: {
      itemIds,
      bytes,
      items: [],
      request: {},
      mergeableIds: new Set(mergeable),
    } as unknown as PreparedCommit,
  };
}

/** A payment crediting an account, as the store prepares it (its credit mergeable unless conditional). */
function payment(name: string, accountId: string, options: { condition?: string } = {}) {
  return { name, prepared: preparedPayment(name, accountId, 100, options) };
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
      { maxMembers: 2 },
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

  it('puts members that ADD to one item into the transaction of the first, the item counted once', () => {
    const plan = planTransactions([
      payment('a', 'hot'),
      payment('b', 'cold'),
      payment('c', 'hot'),
      payment('d', 'hot'),
    ]);

    expect(names(plan)).toEqual({ transactions: [['a', 'b', 'c', 'd']], deferred: [] });
  });

  it('defers a member whose update of a shared item has a condition, and one sharing an item with it', () => {
    const plan = planTransactions([
      payment('a', 'hot'),
      payment('debit', 'hot', { condition: 'balanceCents >= :amount' }),
      payment('c', 'hot'),
    ]);

    expect(names(plan)).toEqual({ transactions: [['a', 'c']], deferred: ['debit'] });
  });

  it('defers members that ADD to an item a conditional update took first', () => {
    const plan = planTransactions([
      payment('debit', 'hot', { condition: 'balanceCents >= :amount' }),
      payment('b', 'hot'),
      payment('c', 'cold'),
    ]);

    expect(names(plan)).toEqual({ transactions: [['debit', 'c']], deferred: ['b'] });
  });

  it('defers a member whose shared item is mergeable in the earlier member only (a SET, say)', () => {
    const plan = planTransactions([
      member('a', ['entry-a', 'hot'], 100, ['hot']),
      member('b', ['entry-b', 'hot']),
    ]);

    expect(names(plan)).toEqual({ transactions: [['a']], deferred: ['b'] });
  });

  it('defers a member sharing mergeable items with two different transactions of the flush', () => {
    const threeMegabytes = 3 * 1024 * 1024;
    const plan = planTransactions([
      member('a', ['entry-a', 'x'], threeMegabytes, ['x']),
      member('b', ['entry-b', 'y'], threeMegabytes, ['y']),
      member('c', ['entry-c', 'x', 'y'], 100, ['x', 'y']),
    ]);

    expect(names(plan)).toEqual({ transactions: [['a'], ['b']], deferred: ['c'] });
  });

  it('defers a member that would merge into a full transaction rather than open another on the same item', () => {
    const plan = planTransactions(
      ['a', 'b', 'c'].map((name) => payment(name, 'hot')),
      { maxMembers: 2 },
    );

    expect(names(plan)).toEqual({ transactions: [['a', 'b']], deferred: ['c'] });
  });

  it('counts a merged item once against the 100 items', () => {
    const many = Array.from({ length: 49 }, (_, i) => payment(`p${i}`, 'hot'));

    const plan = planTransactions(many);

    // 49 entries + 49 ledger entries + 1 merged account = 99 items; a 50th would make 101.
    expect(plan.transactions.map((transaction) => transaction.length)).toEqual([49]);
    const fifty = planTransactions([...many, payment('p49', 'hot')]);
    expect(fifty.transactions.map((transaction) => transaction.length)).toEqual([49]);
    expect(names(fifty).deferred).toEqual(['p49']);
  });

  it('defers every member that touches an item a transaction in flight holds', () => {
    const plan = planTransactions(
      [payment('a', 'hot'), payment('b', 'cold'), member('c', ['inbox#c', 'ledger#c'])],
      { held: new Set(['account:hot', 'ledger#c']) },
    );

    expect(names(plan)).toEqual({ transactions: [['b']], deferred: ['a', 'c'] });
  });

  it('defers a member behind an earlier one waiting for an item in flight, on that one’s other items too', () => {
    const plan = planTransactions(
      [
        member('a', ['inbox#a', 'x', 'z']),
        member('z0', ['inbox#z0', 'z']),
        member('y', ['inbox#y']),
      ],
      { held: new Set(['x']), sameItemOnly: true },
    );

    expect(names(plan)).toEqual({ transactions: [['y']], deferred: ['a', 'z0'] });
  });

  it('with sameItemOnly, shares a transaction only between members that merge an update of one item', () => {
    const plan = planTransactions(
      [
        payment('a', 'hot'),
        payment('b', 'cold'),
        payment('c', 'hot'),
        member('d', ['inbox#d']),
        member('e', ['inbox#e']),
      ],
      { sameItemOnly: true },
    );

    expect(names(plan)).toEqual({ transactions: [['a', 'c'], ['b'], ['d'], ['e']], deferred: [] });
  });
});

describe('countMergedUpdates', () => {
  it('counts the items several members update mergeably, and the updates merged into them', () => {
    const members = ['a', 'b', 'c'].map((name) => preparedPayment(name, 'hot', 1));
    const others = [preparedPayment('d', 'cold', 1), preparedPayment('e', 'warm', 1)];
    const warm = preparedPayment('f', 'warm', 1);

    expect(countMergedUpdates([...members, ...others, warm])).toEqual({ items: 2, updates: 5 });
    expect(countMergedUpdates(others)).toEqual({ items: 0, updates: 0 });
  });
});
