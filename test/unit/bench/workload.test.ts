import { describe, expect, it } from 'vitest';
import { HOT_ACCOUNT, makeRecords } from '../../../bench/workload.js';

const shareTo = (accountId: string, accounts: Array<{ accountId: string }>) =>
  accounts.filter((payment) => payment.accountId === accountId).length / accounts.length;

describe('the bench workload', () => {
  it('sends the hot share of the payments to acc-0 and spreads the rest over the other accounts', () => {
    const { distinct } = makeRecords({
      messages: 1000,
      duplicateRate: 0,
      accounts: 50,
      hotShare: 0.3,
    });
    expect(shareTo(HOT_ACCOUNT, distinct)).toBe(0.3);
    const cold = new Set(distinct.map((payment) => payment.accountId));
    expect(cold.size).toBe(50);
    // 700 cold payments over 49 accounts: 14 or 15 each.
    for (let i = 1; i < 50; i++) {
      expect(Math.round(shareTo(`acc-${i}`, distinct) * 1000)).toBeGreaterThanOrEqual(14);
    }
  });

  it('sends every payment to acc-0 at a hot share of 1, and spreads them evenly without one', () => {
    const hot = makeRecords({ messages: 200, duplicateRate: 0.2, accounts: 50, hotShare: 1 });
    expect(shareTo(HOT_ACCOUNT, hot.distinct)).toBe(1);
    const even = makeRecords({ messages: 200, duplicateRate: 0, accounts: 50 });
    expect(shareTo(HOT_ACCOUNT, even.distinct)).toBe(4 / 200);
  });
});
