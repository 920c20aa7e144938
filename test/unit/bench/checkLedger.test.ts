import { describe, expect, it } from 'vitest';
import { type LedgerObservation, ledgerProblems } from '../../../bench/checkLedger.js';
import { makeLedgerWorkload } from '../../../bench/ledgerWorkload.js';

const workload = makeLedgerWorkload({ records: 100, copyShare: 0.2, accounts: 4, batchSize: 10 });

/** What a right run leaves: each payment once, each copy a duplicate. */
function rightRun(): LedgerObservation {
  const balances = new Map<string, number>();
  for (const { accountId, amountCents } of workload.distinct)
    balances.set(accountId, (balances.get(accountId) ?? 0) + amountCents);
  return {
    statuses: { processed: 80, duplicate: 20 },
    accounts: [...balances].map(([accountId, balanceCents]) => ({
      accountId,
      balanceCents,
      currency: 'EUR',
    })),
    entries: workload.distinct.map((payment) => ({ ...payment })),
  };
}

describe('the bench:kit result check', () => {
  it('finds nothing wrong with a run that applied each payment once', () => {
    expect(ledgerProblems(workload, rightRun())).toEqual([]);
  });

  it('tells a copy processed again rather than acknowledged as a duplicate', () => {
    const run = { ...rightRun(), statuses: { processed: 81, duplicate: 19 } };
    expect(ledgerProblems(workload, run)).toEqual([
      '81 records processed, expected 80',
      '19 records duplicate, expected 20',
    ]);
  });

  it('tells a record that failed', () => {
    const run = { ...rightRun(), statuses: { processed: 79, duplicate: 20, failed: 1 } };
    expect(ledgerProblems(workload, run)).toContain('1 records failed, expected 0');
  });

  it("tells a payment credited twice by its account's balance", () => {
    const right = rightRun();
    const [first, ...rest] = right.accounts;
    const twice = { ...first, balanceCents: Number(first?.balanceCents) + 100 };
    const problems = ledgerProblems(workload, { ...right, accounts: [twice, ...rest] });
    expect(problems).toEqual([
      `balances wrong: ${first?.accountId} holds ${twice.balanceCents}, expected ${first?.balanceCents}`,
    ]);
  });

  it('tells an account credited that no payment names', () => {
    const right = rightRun();
    const stray = { accountId: 'acc-99', balanceCents: 5 };
    expect(ledgerProblems(workload, { ...right, accounts: [...right.accounts, stray] })).toEqual([
      'balances wrong: acc-99 holds 5, expected no item',
    ]);
  });

  it('tells a ledger entry missing, and one whose amount is not the payment’s', () => {
    const [first, ...rest] = rightRun().entries;
    expect(ledgerProblems(workload, { ...rightRun(), entries: rest })).toEqual([
      '79 ledger entries, expected 80',
    ]);
    const changed = { ...first, amountCents: 1 };
    expect(ledgerProblems(workload, { ...rightRun(), entries: [changed, ...rest] })).toEqual([
      `entries no payment matches: entry ${first?.paymentId} (1 cents)`,
    ]);
  });
});
