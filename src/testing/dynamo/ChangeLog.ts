import { type Item, itemsEqual } from './compareValues.js';

/**
 * Why an item changed: a request, or the TTL sweep the world triggered.
 *
 * @example
 * ```ts
 * const cause: ChangeCause = 'ttl';
 * ```
 */
export type ChangeCause = 'write' | 'ttl';

/**
 * One applied change of one item, in the order the simulator applied them: the basis of a
 * Streams model and of the invariant "business state is the fold of committed transactions".
 * Images are frozen wire items; `oldImage` is absent for a creation, `newImage` for a delete.
 *
 * @example
 * ```ts
 * const credits = dynamo.changes.filter((change) => change.tableName === 'accounts');
 * ```
 */
export interface ChangeRecord {
  /** 1, 2, 3… across all tables. */
  readonly sequence: number;
  readonly tableName: string;
  /** The key attributes of the item, in wire form. */
  readonly keys: Item;
  readonly oldImage?: Item;
  readonly newImage?: Item;
  /** Shared by the changes of one `TransactWriteItems` (`tx-1`, `tx-2`…). */
  readonly transactionId?: string;
  readonly cause: ChangeCause;
}

/**
 * The simulator's change log. A write that leaves an item as it was (a Put of the same item,
 * a Delete of an absent one) records nothing, as DynamoDB Streams writes no record for it.
 *
 * @example
 * ```ts
 * const log = new ChangeLog();
 * log.record({ tableName: 't', keys, oldImage: undefined, newImage: item, cause: 'write' });
 * ```
 */
export class ChangeLog {
  readonly records: ChangeRecord[] = [];
  #transactions = 0;

  /** A fresh id for the changes of one transaction. */
  nextTransactionId(): string {
    this.#transactions += 1;
    return `tx-${this.#transactions}`;
  }

  /** Appends a change unless it changes nothing; returns whether it did. */
  record(change: Omit<ChangeRecord, 'sequence'>): boolean {
    if (itemsEqual(change.oldImage, change.newImage)) return false;
    const { tableName, keys, oldImage, newImage, transactionId, cause } = change;
    const record: { -readonly [K in keyof ChangeRecord]: ChangeRecord[K] } = {
      sequence: this.records.length + 1,
      tableName,
      keys,
      cause,
    };
    if (oldImage !== undefined) record.oldImage = oldImage;
    if (newImage !== undefined) record.newImage = newImage;
    if (transactionId !== undefined) record.transactionId = transactionId;
    this.records.push(Object.freeze(record));
    return true;
  }
}
