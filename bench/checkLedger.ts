import type { PaymentCaptured } from '../functions/ledger/paymentCaptured.js';
import { RecordStatus } from '../src/index.js';
import type { LedgerWorkload } from './ledgerWorkload.js';

/** What a run left: each record's status, and the ledger's two tables as native items. */
export interface LedgerObservation {
  /** How many records the processor reported in each status. */
  readonly statuses: Readonly<Record<string, number>>;
  /** The accounts table's items (`accountId`, `balanceCents`, `currency`). */
  readonly accounts: ReadonlyArray<Record<string, unknown>>;
  /** The ledger entries table's items, one per payment applied. */
  readonly entries: ReadonlyArray<Record<string, unknown>>;
}

/** Problems listed per kind before the rest is counted. */
const SHOWN_PER_KIND = 3;

/**
 * What is wrong with a run's result, empty when it is right: every distinct payment processed
 * once and every copy acknowledged as a duplicate, none failed; each account's balance the sum
 * of its distinct payments; one ledger entry per distinct payment, as sent. A run with any
 * problem printed no figure worth reading.
 *
 * @example
 * ```ts
 * const problems = ledgerProblems(workload, await readLedger(documents, tables, statuses));
 * if (problems.length > 0) throw new Error(problems.join('; '));
 * ```
 */
export function ledgerProblems(workload: LedgerWorkload, observed: LedgerObservation): string[] {
  return [
    ...statusProblems(workload, observed.statuses),
    ...balanceProblems(workload.distinct, observed.accounts),
    ...entryProblems(workload.distinct, observed.entries),
  ];
}

function statusProblems(workload: LedgerWorkload, statuses: LedgerObservation['statuses']) {
  const records = workload.batches.reduce((sum, batch) => sum + batch.length, 0);
  const expected: Record<string, number> = {
    [RecordStatus.Processed]: workload.distinct.length,
    [RecordStatus.Duplicate]: records - workload.distinct.length,
  };
  const named = new Set([...Object.keys(expected), ...Object.keys(statuses)]);
  return [...named]
    .filter((status) => (statuses[status] ?? 0) !== (expected[status] ?? 0))
    .map(
      (status) => `${statuses[status] ?? 0} records ${status}, expected ${expected[status] ?? 0}`,
    );
}

/** What a balance or entry check reads of a payment. */
export type AppliedPayment = Pick<PaymentCaptured, 'accountId' | 'paymentId' | 'amountCents'>;

/**
 * The accounts whose balance is not the sum of their distinct payments, each applied once:
 * a payment applied twice, or never, shows here.
 *
 * @example
 * ```ts
 * balanceProblems([payment], [{ accountId: payment.accountId, balanceCents: 0 }]);
 * // => ['balances wrong: acc-0 holds 0, expected 1250']
 * ```
 */
export function balanceProblems(
  distinct: readonly AppliedPayment[],
  accounts: LedgerObservation['accounts'],
): string[] {
  const expected = new Map<string, number>();
  for (const { accountId, amountCents } of distinct)
    expected.set(accountId, (expected.get(accountId) ?? 0) + amountCents);
  const found = new Map(accounts.map((item) => [String(item.accountId), item.balanceCents]));
  const wrong = [...new Set([...expected.keys(), ...found.keys()])]
    .filter((accountId) => found.get(accountId) !== expected.get(accountId))
    .map(
      (accountId) =>
        `${accountId} holds ${found.get(accountId) ?? 'nothing'}, expected ${expected.get(accountId) ?? 'no item'}`,
    );
  return summarize('balances wrong', wrong);
}

/**
 * The ledger entries that are missing (their count) or that no payment matches.
 *
 * @example
 * ```ts
 * entryProblems([payment], []); // => ['0 ledger entries, expected 1']
 * ```
 */
export function entryProblems(
  distinct: readonly AppliedPayment[],
  entries: LedgerObservation['entries'],
): string[] {
  const byPayment = new Map(distinct.map((payment) => [payment.paymentId, payment]));
  const wrong = entries
    .filter((entry) => {
      const payment = byPayment.get(String(entry.paymentId));
      return payment?.amountCents !== entry.amountCents || payment?.accountId !== entry.accountId;
    })
    .map((entry) => `entry ${String(entry.paymentId)} (${String(entry.amountCents)} cents)`);
  const count =
    entries.length === distinct.length
      ? []
      : [`${entries.length} ledger entries, expected ${distinct.length}`];
  return [...count, ...summarize('entries no payment matches', wrong)];
}

/**
 * One line for a kind of problem: the first few, then how many more.
 *
 * @example
 * ```ts
 * summarize('not committed', ['evt-1', 'evt-2', 'evt-3', 'evt-4']);
 * // => ['not committed: evt-1; evt-2; evt-3 and 1 more']
 * ```
 */
export function summarize(kind: string, problems: readonly string[]): string[] {
  if (problems.length === 0) return [];
  const more = problems.length - SHOWN_PER_KIND;
  return [
    `${kind}: ${problems.slice(0, SHOWN_PER_KIND).join('; ')}${more > 0 ? ` and ${more} more` : ''}`,
  ];
}
