import type { ChangeCause } from './ChangeLog.js';
import type { ClientTokens } from './ClientTokens.js';
import type { Item } from './compareValues.js';
import type { ConflictRecord, ItemHolds, ServerTime } from './ItemHolds.js';
import type { SimTable } from './SimTable.js';

/**
 * What the operations of the simulator need from it: its tables and one way to change an item
 * (which stores and logs the change). Implemented by `SimDynamoDB`.
 *
 * @example
 * ```ts
 * db.write(table, id, key, nextItem, 'write');
 * ```
 */
export interface Database {
  /** The table of a name or ARN; throws `ResourceNotFoundException` when missing. */
  table(nameOrArn: string | undefined): SimTable;
  /** Stores `next` as the item (deletes it when `undefined`) and logs the change. */
  write(
    table: SimTable,
    id: string,
    key: Item,
    next: Item | undefined,
    cause: ChangeCause,
    transactionId?: string,
  ): void;
  /** A fresh id shared by the changes of one transaction. */
  nextTransactionId(): string;
  /**
   * The transactions applied with a `ClientRequestToken`, each kept for DynamoDB's ten minutes
   * from its completion (see `ClientTokens`).
   */
  readonly clientTokens: ClientTokens;
  /**
   * When a request reaches the server, in world milliseconds: its `ServerTime` if it carries
   * one, else the simulator's `now` option, else `undefined` (a model without time).
   */
  requestMillis(at: ServerTime | undefined): number | undefined;
  /** The items transactions in flight hold (only for requests given a `ServerTime`). */
  readonly holds: ItemHolds;
  /** Logs a write refused for a held item, before it is answered with its exception. */
  noteConflict(conflict: ConflictRecord): void;
}
