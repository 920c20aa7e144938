import { TRANSACTION_LIMITS } from '../constants/values.js';
import type { PreparedCommit } from '../core/InboxStore.js';

/** A transaction being filled: its members, its distinct items and its estimated bytes. */
interface Planned<T> {
  readonly members: T[];
  items: number;
  bytes: number;
}

/** Who took an item in this flush: its transaction, and whether every update of it so far merges. */
interface Taken<T> {
  readonly transaction: Planned<T>;
  readonly mergeable: boolean;
}

/**
 * How a flush may share transactions: at most `maxMembers` members each; none touching an item
 * in `held` (written by a transaction still in flight); and, with `sameItemOnly`, only members
 * that update one item mergeably share one, every other member going alone.
 *
 * @example
 * ```ts
 * const sharing: Sharing = { maxMembers: 8, held: new Set(['accounts#acc-1']), sameItemOnly: true };
 * ```
 */
export interface Sharing {
  readonly maxMembers?: number;
  readonly held?: ReadonlySet<string>;
  readonly sameItemOnly?: boolean;
}

/**
 * The transactions one flush sends, and the members it leaves for the next. No two transactions
 * of a flush (which run at once) touch one item, none touches an item held by one in flight
 * or wanted by an earlier member waiting for one, and no transaction touches one item twice, but for mergeable updates (an unconditional `ADD`
 * of integers, see `mergeableIds`): a member whose every item shared with an earlier member is
 * mergeable on both sides joins that member's transaction, where the store writes one update
 * adding all their amounts, if it fits (the shared item counted once). Any other member sharing
 * an item with an earlier one, or touching a held item, waits for the next flush. The others
 * fill transactions first-fit in arrival order (each its own with `sameItemOnly`), up to 100
 * items, 4 MB and `maxMembers` each.
 *
 * @example
 * ```ts
 * const { transactions, deferred } = planTransactions(pending);
 * ```
 */
export function planTransactions<T extends { readonly prepared: PreparedCommit }>(
  members: readonly T[],
  sharing: Sharing = {},
): { transactions: T[][]; deferred: T[] } {
  const { maxMembers = Number.POSITIVE_INFINITY, held, sameItemOnly = false } = sharing;
  const taken = new Map<string, Taken<T>>();
  const transactions: Planned<T>[] = [];
  const deferred: T[] = [];
  // Items held in flight, and every item of a member waiting for one: a later member that
  // touches any of them waits behind it, so no member is overtaken on one item after another.
  const blocked = new Set(held);
  for (const member of members) {
    const { itemIds, bytes } = member.prepared;
    if (itemIds.some((id) => blocked.has(id))) {
      deferred.push(member);
      for (const id of itemIds) blocked.add(id);
      continue;
    }
    const shared = itemIds.filter((id) => taken.has(id));
    const newItems = itemIds.length - shared.length;
    const fits = (transaction: Planned<T>) =>
      transaction.members.length < maxMembers &&
      transaction.items + newItems <= TRANSACTION_LIMITS.maxOperations &&
      transaction.bytes + bytes <= TRANSACTION_LIMITS.maxTransactionBytes;
    const target =
      shared.length === 0
        ? ((sameItemOnly ? undefined : transactions.find(fits)) ?? open(transactions))
        : joinable(shared, member.prepared, taken);
    if (target === undefined || !fits(target)) {
      deferred.push(member);
      continue;
    }
    add(member, target, newItems, taken);
  }
  // A transaction opened for a member that then did not fit it stays empty: not sent.
  const filled = transactions.filter((transaction) => transaction.members.length > 0);
  return { transactions: filled.map((transaction) => transaction.members), deferred };
}

/**
 * Counts a shared transaction's merged updates: the items two or more of its members update
 * (`items`), and the members' updates they stand for (`updates`).
 *
 * @example
 * ```ts
 * const { items, updates } = countMergedUpdates(members.map((member) => member.prepared));
 * ```
 */
export function countMergedUpdates(members: readonly PreparedCommit[]): {
  items: number;
  updates: number;
} {
  const sharing = new Map<string, number>();
  for (const { itemIds, mergeableIds } of members) {
    for (const id of itemIds) {
      if (mergeableIds?.has(id)) sharing.set(id, (sharing.get(id) ?? 0) + 1);
    }
  }
  const merged = [...sharing.values()].filter((count) => count >= 2);
  return { items: merged.length, updates: merged.reduce((sum, count) => sum + count, 0) };
}

/** Puts a member into a transaction, which takes the member's items not taken yet. */
function add<T extends { readonly prepared: PreparedCommit }>(
  member: T,
  transaction: Planned<T>,
  newItems: number,
  taken: Map<string, Taken<T>>,
): void {
  const { itemIds, bytes, mergeableIds } = member.prepared;
  transaction.members.push(member);
  transaction.items += newItems;
  transaction.bytes += bytes;
  for (const id of itemIds) {
    if (taken.has(id)) continue;
    taken.set(id, { transaction, mergeable: mergeableIds?.has(id) === true });
  }
}

function open<T>(transactions: Planned<T>[]): Planned<T> {
  const transaction: Planned<T> = { members: [], items: 0, bytes: 0 };
  transactions.push(transaction);
  return transaction;
}

/**
 * The one transaction a member sharing items with earlier members may join: the one holding
 * them all, when each shared item is mergeable there and in the member. Undefined otherwise.
 */
function joinable<T>(
  shared: readonly string[],
  prepared: PreparedCommit,
  taken: ReadonlyMap<string, Taken<T>>,
): Planned<T> | undefined {
  const holders = new Set<Planned<T>>();
  for (const id of shared) {
    const holder = taken.get(id);
    if (holder === undefined || !holder.mergeable || !prepared.mergeableIds?.has(id)) {
      return undefined;
    }
    holders.add(holder.transaction);
  }
  const [only] = holders;
  return holders.size === 1 ? only : undefined;
}
