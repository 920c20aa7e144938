import { TRANSACTION_LIMITS } from '../constants.js';
import type { PreparedCommit } from '../core/InboxStore.js';

/**
 * The transactions one flush sends, and the members it leaves for the next: a member that
 * shares an item with one taken earlier in the flush waits, so that no two transactions of a
 * flush (which run at once) and no transaction touch one item twice. The others fill
 * transactions first-fit in arrival order, up to 100 items, 4 MB and `maxMembers` each.
 *
 * @example
 * ```ts
 * const { transactions, deferred } = planTransactions(pending);
 * ```
 */
export function planTransactions<T extends { readonly prepared: PreparedCommit }>(
  members: readonly T[],
  maxMembers = Number.POSITIVE_INFINITY,
): { transactions: T[][]; deferred: T[] } {
  const taken = new Set<string>();
  const transactions: Array<{ members: T[]; items: number; bytes: number }> = [];
  const deferred: T[] = [];
  for (const member of members) {
    const { itemIds, bytes } = member.prepared;
    if (itemIds.some((id) => taken.has(id))) {
      deferred.push(member);
      continue;
    }
    for (const id of itemIds) taken.add(id);
    const fits = transactions.find(
      (transaction) =>
        transaction.members.length < maxMembers &&
        transaction.items + itemIds.length <= TRANSACTION_LIMITS.maxOperations &&
        transaction.bytes + bytes <= TRANSACTION_LIMITS.maxTransactionBytes,
    );
    if (fits === undefined) {
      transactions.push({ members: [member], items: itemIds.length, bytes });
    } else {
      fits.members.push(member);
      fits.items += itemIds.length;
      fits.bytes += bytes;
    }
  }
  return { transactions: transactions.map((transaction) => transaction.members), deferred };
}
