import { ConflictBackoff } from '../contention/ConflictBackoff.js';
import type { CommitRequest, CommitResult, MemberVerdict } from '../core/InboxStore.js';
import { type InboxEntry, isCommitted } from '../core/inboxEntry.js';
import { reportedConflict } from '../core/retryTransient.js';
import { TransientStoreError } from '../errors.js';
import type { CoalescerSettings, CoalescingStore } from './CoalescerSettings.js';
import { commitWithToken } from './commitWithToken.js';
import { countSharedCommit } from './countSharedCommit.js';
import { type Member, sendAgainAfterConflict } from './Member.js';
import { nextMaxMembers } from './nextMaxMembers.js';
import { planTransactions } from './planTransactions.js';

export type { CoalescingStore } from './CoalescerSettings.js';

/**
 * Commits the messages of one batch several to a `TransactWriteItems`, each message's items
 * all in one transaction. Commits join a queue; one flush at a time takes the whole queue
 * (after the batch's pre-check read answered, so that its known duplicates are settled without
 * a write), packs it into transactions of distinct items within DynamoDB's limits, and sends
 * them at once; what arrives meanwhile joins the next flush. No timer: a lone commit is sent as
 * soon as the event loop has let the others of its turn join it. Members whose updates of one
 * item are unconditional `ADD`s of integers share a transaction, where the store writes that
 * item once with their amounts added (see `planTransactions`).
 *
 * With `sameItemOnly` (a processor without `coalesce`) only such members share a transaction,
 * and a flush waits for no earlier flush. A commit alone goes at once, unless a transaction of
 * the batch on one of its items is in flight, or an earlier commit waits for one: then it waits
 * its turn, so the batch never conflicts with itself and no commit is overtaken on its items.
 * A shared transaction waits for the batch's read (settling the copies it finds without a
 * write) and takes every commit that reached its item meanwhile: a hot item takes one
 * transaction per round trip for all the commits that queued on it.
 *
 * Each member settles as a commit of its own would: committed, the entry that refused it, or
 * its own error. A member cancelled only by another's reason is queued again, so one failing
 * member never holds back or fails the others; one cancelled by a conflict is sent again with
 * the others after one conflict wait if none of its writes has a condition (see
 * `sendAgainAfterConflict`). A member still queued when its batch reaches its deadline gives
 * up at once. A transaction that may have applied (a timeout, a 5xx) is sent again with its
 * `ClientRequestToken`, which DynamoDB applies at most once; one refused for a reason no
 * member's own explains is split, each member committed alone. Without `sameItemOnly`, after a
 * cancelled transaction the next ones take half as many members (twice as many again after one
 * commits), so that contention costs fewer members a round trip.
 *
 * @example
 * ```ts
 * const coalescer = new CommitCoalescer(store, { runtime, logger, consumer: 'ledger', attempts: 3 });
 * const result = await coalescer.commit(request, signal);
 * ```
 */
export class CommitCoalescer {
  readonly #store: CoalescingStore;
  readonly #settings: CoalescerSettings;
  #pending: Member[] = [];
  /** The items of the transactions in flight. */
  readonly #held = new Set<string>();
  /** The entries this batch committed, by key: a copy queued behind its original settles by it. */
  readonly #committed = new Map<string, InboxEntry>();
  /** The signals a listener watches already. */
  readonly #watched = new WeakSet<AbortSignal>();
  /** Whether a drain is due when the batch's read answers. */
  #awaitingRead = false;
  #draining = false;
  /** Members per transaction: halved after a cancellation, doubled back after a commit. */
  #maxMembers = Number.POSITIVE_INFINITY;

  constructor(store: CoalescingStore, settings: CoalescerSettings) {
    this.#store = store;
    this.#settings = settings;
  }

  /**
   * Commits a message's request with others' and settles as `store.commit` would. A member
   * whose batch passed its deadline before its flush is not sent: it rejects with the reason.
   * A request that breaks DynamoDB's rules rejects with the error `commit` would throw, unsent.
   */
  async commit(request: CommitRequest, signal: AbortSignal): Promise<CommitResult> {
    const prepared = await this.#store.prepareCommit(request);
    return new Promise<CommitResult>((resolve, reject) => {
      this.#watch(signal);
      this.#pending.push({ prepared, signal, resolve, reject, conflicts: 0 });
      this.#startDraining();
    });
  }

  /**
   * At the deadline the members still queued give up at once (with steps, their leases are
   * then released), not at the next flush; those in flight settle with their transaction. One
   * listener per signal (the batch's), however many members wait.
   */
  #watch(signal: AbortSignal): void {
    if (this.#watched.has(signal)) return;
    this.#watched.add(signal);
    signal.addEventListener('abort', () => this.#withdraw(signal), { once: true });
  }

  #withdraw(signal: AbortSignal): void {
    const leaving = this.#pending.filter((member) => member.signal === signal);
    this.#pending = this.#pending.filter((member) => member.signal !== signal);
    for (const member of leaving) member.reject(signal.reason);
  }

  #startDraining(): void {
    if (this.#draining) return;
    this.#draining = true;
    void this.#drain();
  }

  /**
   * Flushes until the queue is empty; the flag drops in the same turn as the last check. With
   * `sameItemOnly`, one flush: what it leaves waits for items in flight, whose release drains
   * again, so that a commit never waits for another it shares nothing with.
   */
  async #drain(): Promise<void> {
    const { runtime, precheck, sameItemOnly } = this.#settings;
    try {
      await runtime.sleep(0);
      // Coalescing settles the read's known duplicates without a write; alone, a commit is
      // sent as it would be without sharing, and meets the entry that refuses it.
      if (sameItemOnly !== true) await precheck?.whenAnswered();
      while (this.#pending.length > 0) {
        const members = this.#pending;
        this.#pending = [];
        const sent = this.#flush(members).catch((error: unknown) => {
          for (const member of members) member.reject(error);
        });
        if (sameItemOnly === true) return;
        await sent;
      }
    } finally {
      this.#draining = false;
    }
  }

  /** Sends the transactions the queue allows now; resolves once they all answered. */
  async #flush(members: readonly Member[]): Promise<void> {
    const live = members.filter((member) => this.#stillWanted(member));
    const { transactions } = planTransactions(live, {
      maxMembers: this.#maxMembers,
      held: this.#held,
      sameItemOnly: this.#settings.sameItemOnly,
    });
    const ready = transactions.filter((transaction) => this.#mayGoNow(transaction));
    const sent = new Set(ready.flat());
    this.#pending.unshift(...live.filter((member) => !sent.has(member)));
    await Promise.all(ready.map((transaction) => this.#sendHolding(transaction)));
  }

  /**
   * Whether a transaction may be sent before the batch's read answered: without `coalesce`, one
   * that several commits share waits for it, gathering the commits that reach its item
   * meanwhile, so that a copy the read finds committed is settled without a write instead of
   * cancelling the others' transaction. A commit alone goes at once.
   */
  #mayGoNow(transaction: readonly Member[]): boolean {
    const { precheck, sameItemOnly } = this.#settings;
    if (sameItemOnly !== true || transaction.length === 1) return true;
    if (precheck === undefined || precheck.answered) return true;
    if (!this.#awaitingRead) {
      this.#awaitingRead = true;
      void precheck.whenAnswered().then(() => this.#startDraining());
    }
    return false;
  }

  /**
   * Sends a transaction holding its items, so that no later flush sends another on them while
   * it is in flight, and drains again when it lets them go.
   */
  async #sendHolding(members: readonly Member[]): Promise<void> {
    const itemIds = members.flatMap((member) => member.prepared.itemIds);
    for (const id of itemIds) this.#held.add(id);
    try {
      await this.#send(members);
    } catch (error) {
      for (const member of members) member.reject(error);
    } finally {
      for (const id of itemIds) this.#held.delete(id);
      if (this.#pending.length > 0) this.#startDraining();
    }
  }

  /**
   * Settles at once a member whose batch passed its deadline (not sent), or whose entry the
   * pre-check read knows committed (the refusal the commit would meet, without the write).
   */
  #stillWanted(member: Member): boolean {
    const { request } = member.prepared;
    if (member.signal.aborted) {
      member.reject(member.signal.reason);
      return false;
    }
    const { pk } = request.entry;
    const known =
      request.lease === undefined ? (this.#committed.get(pk) ?? this.#knownEntry(pk)) : undefined;
    if (known !== undefined && isCommitted(known, request.nowEpochSeconds)) {
      member.resolve({ committed: false, existing: known });
      return false;
    }
    return true;
  }

  #knownEntry(pk: string) {
    try {
      return this.#settings.precheck?.now(pk);
    } catch {
      return undefined; // the commit itself says what is wrong with the table
    }
  }

  async #send(members: readonly Member[]): Promise<void> {
    const [only] = members;
    if (members.length === 1 && only !== undefined) {
      await this.#timed(() => this.#store.commitPrepared(only.prepared)).then((result) => {
        if (result.committed) this.#adapt(1, [{ result }]);
        this.#settle(only, result);
      }, only.reject);
      return;
    }
    let verdicts: MemberVerdict[];
    try {
      verdicts = await commitWithToken(
        this.#store,
        members.map((member) => member.prepared),
        this.#settings,
        (send) => this.#timed(send),
      );
    } catch (error) {
      if (error instanceof TransientStoreError) {
        for (const member of members) member.reject(error);
        return;
      }
      this.#settings.logger.debug('a shared commit was refused as a whole; committing alone', {
        consumer: this.#settings.consumer,
        members: members.length,
        errorName: error instanceof Error ? error.name : typeof error,
      });
      await this.#sendEachAlone(members);
      return;
    }
    this.#countShared(members, verdicts);
    this.#adapt(members.length, verdicts);
    const conflicted: Member[] = [];
    for (const [index, member] of members.entries()) {
      const verdict = verdicts[index];
      if (verdict === undefined || 'innocent' in verdict) this.#pending.push(member);
      else if ('result' in verdict) this.#settle(member, verdict.result);
      else if (sendAgainAfterConflict(member, verdict.error, this.#settings))
        conflicted.push(member);
      else member.reject(verdict.error);
    }
    this.#requeueTogether(conflicted);
  }

  /**
   * Resolves a member with its result; a committed entry is remembered, so that a copy of the
   * message in the same batch (same key), which waited for it as for any item in flight, is
   * settled as the duplicate DynamoDB would call it, without a second transaction.
   */
  #settle(member: Member, result: CommitResult): void {
    const { entry } = member.prepared.request;
    if (result.committed) this.#committed.set(entry.pk, entry);
    member.resolve(result);
  }

  /**
   * Members cancelled by a conflict on their items (another invocation's transaction held a hot
   * item they share) are queued again together after one conflict wait, so that they meet again
   * in one flush and stay merged, instead of each retrying alone on its own schedule.
   */
  #requeueTogether(members: readonly Member[]): void {
    if (members.length === 0) return;
    const { runtime, conflictBackoff } = this.#settings;
    const conflicts = Math.max(...members.map((member) => member.conflicts));
    const waitMillis = (conflictBackoff ?? new ConflictBackoff()).delayMillis(
      conflicts,
      runtime.random(),
    );
    void runtime.sleep(waitMillis).then(() => {
      this.#pending.push(...members);
      this.#startDraining();
    });
  }

  /** Counts a shared transaction; a metrics sink that throws never fails its members. */
  #countShared(members: readonly Member[], verdicts: readonly MemberVerdict[]): void {
    const prepared = members.map((member) => member.prepared);
    try {
      countSharedCommit(this.#settings.metrics, prepared, verdicts);
    } catch (error) {
      this.#settings.logger.warn('the metrics sink threw; shared commits left uncounted', {
        consumer: this.#settings.consumer,
        errorName: error instanceof Error ? error.name : typeof error,
      });
    }
  }

  #adapt(members: number, verdicts: readonly MemberVerdict[]): void {
    const sameItemOnly = this.#settings.sameItemOnly === true;
    this.#maxMembers = nextMaxMembers(this.#maxMembers, members, verdicts, sameItemOnly);
  }

  /**
   * Commits each member in a transaction of its own; those that share an item take turns, so
   * that the split never sends two transactions on one item at once.
   */
  async #sendEachAlone(members: readonly Member[]): Promise<void> {
    let rest = members;
    while (rest.length > 0) {
      const { transactions, deferred } = planTransactions(rest, { maxMembers: 1 });
      await Promise.all(transactions.map((transaction) => this.#send(transaction)));
      rest = deferred;
    }
  }

  /** A request whose round trip, committed or cancelled for a conflict, teaches the conflict backoff. */
  async #timed<T>(request: () => Promise<T>): Promise<T> {
    const { runtime, conflictBackoff } = this.#settings;
    const sentMillis = runtime.now();
    const observe = () => conflictBackoff?.observe(runtime.now() - sentMillis);
    try {
      const answer = await request();
      observe();
      return answer;
    } catch (error) {
      // Only DynamoDB's own answer is one round trip: a timeout or a 5xx says nothing of it.
      if (reportedConflict(error)) observe();
      throw error;
    }
  }
}
