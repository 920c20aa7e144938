import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { compareOrdered, type Item } from './compareValues.js';
import { evaluateCondition } from './evaluateCondition.js';
import { itemBytes } from './itemBytes.js';
import { projectItem } from './parseProjection.js';
import type { PreparedRead } from './prepareRead.js';
import type { SimTable } from './SimTable.js';

/**
 * The most a `Query` or `Scan` reads in one page, 1 MB of items as `itemBytes` counts them,
 * before the filter and the projection apply.
 *
 * @example
 * ```ts
 * if (bytesRead >= MAX_PAGE_BYTES) stopWithLastEvaluatedKey();
 * ```
 */
export const MAX_PAGE_BYTES = 1024 * 1024;

/**
 * One page of a `Query` or `Scan`, in wire form.
 *
 * @example
 * ```ts
 * const { Items, Count, ScannedCount, LastEvaluatedKey }: Page = readPage(read, candidates);
 * ```
 */
export interface Page {
  readonly Items?: Item[];
  readonly Count: number;
  readonly ScannedCount: number;
  readonly LastEvaluatedKey?: Item;
}

/**
 * Reads one page from `candidates` (the items in the order the operation returns them, from
 * just after the `ExclusiveStartKey`), as DynamoDB does: it evaluates items one by one,
 * counting each in `ScannedCount` and keeping those the filter passes (`Count`), projected. It
 * stops after `Limit` evaluated items — filtered out or not — with a `LastEvaluatedKey` even
 * when no item follows (unless `keyOnLimit` is false: DynamoDB Local leaves it out where at
 * most one item can match, a `Query` of a table without a sort key). It also stops, with a
 * `LastEvaluatedKey`, once the items evaluated reach 1 MB and another item follows: the item
 * that reaches 1 MB is the page's last (as DynamoDB Local counts: 1 MB exactly stops it).
 *
 * @example
 * ```ts
 * readPage(read, items, { keyOnLimit: true }) // => { Items: [...], Count: 2, ScannedCount: 5, LastEvaluatedKey: { pk: … } }
 * ```
 */
export function readPage(
  read: PreparedRead,
  candidates: readonly Item[],
  { keyOnLimit }: { readonly keyOnLimit: boolean },
): Page {
  const items: Item[] = [];
  let bytes = 0;
  let scanned = 0;
  let last: Item | undefined;
  for (const item of candidates) {
    scanned++;
    bytes += itemBytes(item);
    if (read.filter === undefined || evaluateCondition(read.filter, item, read.placeholders)) {
      items.push(read.projection ? projectItem(item, read.projection) : item);
    }
    const more = scanned < candidates.length;
    if (scanned === read.limit) {
      if (keyOnLimit) last = item;
      break;
    }
    if (bytes >= MAX_PAGE_BYTES && more) {
      last = item;
      break;
    }
  }
  return {
    ...(read.countOnly ? {} : { Items: items }),
    Count: items.length,
    ScannedCount: scanned,
    ...(last && { LastEvaluatedKey: keyOf(read.table, last) }),
  };
}

/**
 * The key attributes of an item.
 *
 * @example
 * ```ts
 * keyOf(table, { pk: { S: 'a' }, sk: { N: '1' }, n: { N: '2' } }) // => { pk: { S: 'a' }, sk: { N: '1' } }
 * ```
 */
export function keyOf(table: SimTable, item: Item): Item {
  return Object.fromEntries(table.keys.map((key) => [key.name, item[key.name] as AttributeValue]));
}

/**
 * Orders two items (or keys) of a table by partition key, then sort key, each by its type's
 * order (numbers by value, strings and binaries by bytes).
 *
 * @example
 * ```ts
 * items.sort((a, b) => compareKeys(table, a, b));
 * ```
 */
export function compareKeys(table: SimTable, a: Item, b: Item): number {
  for (const key of table.keys) {
    const order = compareOrdered(a[key.name] as AttributeValue, b[key.name] as AttributeValue);
    if (order) return order;
  }
  return 0;
}
