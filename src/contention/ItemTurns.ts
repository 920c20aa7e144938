/** A commit waiting for its turn: the items it writes, and how it is let go or given up. */
interface Waiter {
  readonly itemIds: readonly string[];
  readonly grant: () => void;
  readonly abandon: (reason: unknown) => void;
}

/**
 * Gives the commits of one invocation turns on the items they write, so that two of them that
 * share an item are never in flight at once: DynamoDB holds the items of a `TransactWriteItems`
 * while it runs and cancels another one that touches them with `TransactionConflict`, so such
 * commits sent together would only defeat each other. A commit takes all its items at once or
 * waits; waiters are served in arrival order, and a later commit never overtakes an earlier one
 * it shares an item with. A commit that shares nothing with those in flight or waiting goes at
 * once, with no wait of any kind.
 *
 * See "Transaction conflict handling" in the DynamoDB developer guide:
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html
 *
 * @example
 * ```ts
 * const turns = new ItemTurns(deadline.signal);
 * const release = await turns.take(itemIds);
 * try {
 *   await store.commit(request);
 * } finally {
 *   release();
 * }
 * ```
 */
export class ItemTurns {
  readonly #held = new Set<string>();
  readonly #signal: AbortSignal;
  #waiting: Waiter[] = [];

  /** `signal` aborts at the batch's deadline: every commit still waiting then gives up. */
  constructor(signal: AbortSignal) {
    this.#signal = signal;
    // One listener for the batch, however many commits wait.
    signal.addEventListener('abort', () => this.#abandonAll(), { once: true });
  }

  /** Items held by commits in flight now. */
  get heldCount(): number {
    return this.#held.size;
  }

  /**
   * Resolves once none of `itemIds` is held by another commit or wanted by an earlier waiter,
   * with the function that releases them; call it exactly once, when the commit has answered.
   * Rejects with the signal's reason if the batch reaches its deadline first: the commit then
   * holds nothing.
   */
  take(itemIds: readonly string[]): Promise<() => void> {
    if (this.#signal.aborted) return Promise.reject(this.#signal.reason);
    const ids = [...new Set(itemIds)];
    if (this.#free(ids, this.#wantedByWaiters())) return Promise.resolve(this.#hold(ids));
    return new Promise((resolve, reject) => {
      this.#waiting.push({
        itemIds: ids,
        grant: () => resolve(this.#hold(ids)),
        abandon: reject,
      });
    });
  }

  #abandonAll(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const waiter of waiting) waiter.abandon(this.#signal.reason);
  }

  #hold(ids: readonly string[]): () => void {
    for (const id of ids) this.#held.add(id);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const id of ids) this.#held.delete(id);
      this.#serve();
    };
  }

  /** Lets go, in arrival order, each waiter whose items are free and wanted by no earlier one. */
  #serve(): void {
    const wantedEarlier = new Set<string>();
    const still: Waiter[] = [];
    for (const waiter of this.#waiting) {
      if (this.#free(waiter.itemIds, wantedEarlier)) {
        waiter.grant(); // holds its items at once, before the next waiter is looked at
      } else {
        still.push(waiter);
        for (const id of waiter.itemIds) wantedEarlier.add(id);
      }
    }
    this.#waiting = still;
  }

  #wantedByWaiters(): ReadonlySet<string> {
    return new Set(this.#waiting.flatMap((waiter) => waiter.itemIds));
  }

  #free(ids: readonly string[], wantedEarlier: ReadonlySet<string>): boolean {
    return ids.every((id) => !this.#held.has(id) && !wantedEarlier.has(id));
  }
}
