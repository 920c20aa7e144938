import type { PreparedCommit } from '../core/InboxStore.js';
import type { TransactItem } from '../core/TransactionBuilder.js';
import { mergeNumericAdds, type NumericAddUpdate, parseNumericAdds } from './numericAdds.js';

/**
 * Where each member's items are in a shared `TransactItems`: `positions[m][i]` is the index of
 * member m's item i. `merged` holds the indexes of merged updates, each written for two or more
 * members; every other index is one member's own item.
 *
 * @example
 * ```ts
 * const layout: TransactionLayout = { positions: [[0, 1], [2, 1]], merged: new Set([1]) };
 * ```
 */
export interface TransactionLayout {
  readonly positions: readonly (readonly number[])[];
  readonly merged: ReadonlySet<number>;
}

/**
 * The `TransactItems` of several members' commit, and where each member's items are in it:
 * each member's items in order, but an item that two or more members update mergeably (each
 * occurrence in its member's `mergeableIds`) is written once, at its first member's place, as
 * one update adding every member's amounts. The same members give the same items, so a
 * transaction sent again with its `ClientRequestToken` is the same request.
 *
 * @example
 * ```ts
 * const { items, layout } = buildSharedTransaction(members);
 * await client.send(new TransactWriteCommand({ TransactItems: items, ClientRequestToken: token }));
 * ```
 */
export function buildSharedTransaction(members: readonly PreparedCommit[]): {
  items: TransactItem[];
  layout: TransactionLayout;
} {
  const items: TransactItem[] = [];
  /** The index of each mergeable item written so far, and the updates merged into it. */
  const slots = new Map<string, { index: number; updates: NumericAddUpdate[] }>();
  const positions = members.map((member) =>
    member.items.map((item, at) => {
      const id = member.itemIds[at];
      const update =
        id !== undefined && member.mergeableIds?.has(id) ? parseNumericAdds(item) : undefined;
      const slot = id === undefined ? undefined : slots.get(id);
      if (update !== undefined && slot !== undefined) {
        slot.updates.push(update);
        return slot.index;
      }
      items.push(item);
      const index = items.length - 1;
      // A shared item not mergeable here is written twice: DynamoDB refuses the whole request.
      if (update !== undefined && id !== undefined) slots.set(id, { index, updates: [update] });
      return index;
    }),
  );
  const merged = new Set<number>();
  for (const { index, updates } of slots.values()) {
    if (updates.length < 2) continue;
    items[index] = mergeNumericAdds(updates);
    merged.add(index);
  }
  return { items, layout: { positions, merged } };
}

/**
 * The layout of members' items written one after another, none merged.
 *
 * @example
 * ```ts
 * consecutiveLayout(members).positions // => [[0, 1, 2], [3, 4, 5]]
 * ```
 */
export function consecutiveLayout(members: readonly PreparedCommit[]): TransactionLayout {
  let next = 0;
  const positions = members.map((member) => member.items.map(() => next++));
  return { positions, merged: new Set() };
}
