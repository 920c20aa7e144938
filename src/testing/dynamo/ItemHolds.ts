import type { PreparedWrite } from './prepareWrite.js';

/**
 * When a request reaches the simulated server, for DynamoDB's transaction-conflict rules: the
 * world's time as it applies (the simulator reads no clock), and how long a `TransactWriteItems`
 * applied then holds its items (its modelled service time; single-item writes hold nothing). A
 * request given no `ServerTime` neither meets held items nor holds any, as before the rules.
 *
 * @example
 * ```ts
 * dynamo.transactWriteItems(input, { nowMillis: kernel.nowMillis, holdMillis: 17 });
 * ```
 */
export interface ServerTime {
  readonly nowMillis: number;
  readonly holdMillis: number;
  /** Who sent the request, as the world names it for its oracle (see `ConflictRecord`). */
  readonly by?: string;
}

/**
 * A write refused because a transaction in flight held one of its items: when, which
 * operation, who sent it and who sent the transactions holding those items (as `ServerTime.by`
 * named them; undefined where no name was given).
 *
 * @example
 * ```ts
 * const selfInflicted = dynamo.conflictLog.filter((c) => c.by !== undefined && c.heldBy.includes(c.by));
 * ```
 */
export interface ConflictRecord {
  readonly atMillis: number;
  readonly operation: 'TransactWriteItems' | 'PutItem' | 'UpdateItem' | 'DeleteItem';
  readonly by: string | undefined;
  readonly heldBy: ReadonlyArray<string | undefined>;
}

/** One held item: until when (world millis, exclusive) and by whom. */
interface Hold {
  readonly untilMillis: number;
  readonly by: string | undefined;
}

/**
 * The items that transactions in flight hold, by table and full key, with the time each is
 * released, and the `ClientRequestToken`s of those transactions (a request repeating one while
 * it is in flight is told so, not applied again). DynamoDB's documented rules ("Transaction
 * conflict handling",
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-conflict-handling):
 * while a `TransactWriteItems` is in flight, another one touching one of its items is cancelled
 * with `TransactionConflict` at that item, and a `PutItem`, `UpdateItem` or `DeleteItem` of one
 * fails with `TransactionConflictException`; reads are not refused. Here the transaction applies
 * at the instant it reaches the server and holds its items (every kind, `ConditionCheck` too)
 * from then for its service time, its answer leaving when the hold ends. No emulator implements
 * these rules: the conformance suite says which of them it can check.
 *
 * @example
 * ```ts
 * if (holds.heldIndexes(writes, now).length === 0) holds.hold(writes, token, { nowMillis: now, holdMillis: 12 });
 * ```
 */
export class ItemHolds {
  /** Item identity (`table` U+0001 `id`) → its hold. */
  readonly #items = new Map<string, Hold>();
  /** `ClientRequestToken` of a transaction in flight → when it completes. */
  readonly #tokens = new Map<string, number>();

  /** The positions of the writes whose item a transaction in flight holds at `nowMillis`. */
  heldIndexes(writes: readonly PreparedWrite[], nowMillis: number): number[] {
    return writes.flatMap((write, at) => (this.isHeld(write, nowMillis) ? [at] : []));
  }

  /** Whether a transaction in flight holds the item of `write` at `nowMillis`. */
  isHeld(write: PreparedWrite, nowMillis: number): boolean {
    return this.#holdOf(write, nowMillis) !== undefined;
  }

  /** Who sent the transactions in flight that hold the items of `writes` at `nowMillis`. */
  holdersOf(writes: readonly PreparedWrite[], nowMillis: number): Array<string | undefined> {
    return writes.flatMap((write) => {
      const hold = this.#holdOf(write, nowMillis);
      return hold === undefined ? [] : [hold.by];
    });
  }

  /** Whether the transaction of `token` is still in flight at `nowMillis`. */
  inProgress(token: string, nowMillis: number): boolean {
    const untilMillis = this.#tokens.get(token);
    return untilMillis !== undefined && nowMillis < untilMillis;
  }

  /** Holds the items of a transaction that applied at `at.nowMillis` for `at.holdMillis`. */
  hold(writes: readonly PreparedWrite[], token: string | undefined, at: ServerTime): void {
    this.#release(at.nowMillis);
    if (at.holdMillis <= 0) return;
    const untilMillis = at.nowMillis + at.holdMillis;
    for (const write of writes) this.#items.set(identityOf(write), { untilMillis, by: at.by });
    if (token !== undefined) this.#tokens.set(token, untilMillis);
  }

  #holdOf(write: PreparedWrite, nowMillis: number): Hold | undefined {
    const hold = this.#items.get(identityOf(write));
    return hold !== undefined && nowMillis < hold.untilMillis ? hold : undefined;
  }

  /** Forgets the holds that ended, so that the maps stay as small as what is in flight. */
  #release(nowMillis: number): void {
    for (const [identity, hold] of this.#items) {
      if (hold.untilMillis <= nowMillis) this.#items.delete(identity);
    }
    for (const [token, untilMillis] of this.#tokens) {
      if (untilMillis <= nowMillis) this.#tokens.delete(token);
    }
  }
}

/**
 * An item's identity across tables: its table and its full key (a Put's from the table's key
 * schema), as `TransactWriteItems` tells two operations on one item apart.
 *
 * @example
 * ```ts
 * const identity = identityOf(write); // 'inbox\u0001…'
 * ```
 */
export function identityOf(write: Pick<PreparedWrite, 'table' | 'id'>): string {
  return `${write.table.name}\u0001${write.id}`;
}
