import type { OutgoingMessage } from '../outbox/OutgoingMessage.js';
import type { InboxEntry } from './inboxEntry.js';
import type { TransactItem } from './TransactionBuilder.js';

/**
 * What the processor asks the store to commit: the message's inbox entry and the handler's
 * business operations, as one atomic transaction.
 *
 * @example
 * ```ts
 * await store.commit({ entry, operations: transaction.operations, nowEpochSeconds: 1_700_000_000 });
 * ```
 */
export interface CommitRequest {
  readonly entry: InboxEntry;
  readonly operations: readonly TransactItem[];
  /** Entries whose `expiresAt` is before this count as absent. */
  readonly nowEpochSeconds: number;
  /** The same moment in epoch milliseconds: a lease that ended before it is lapsed. */
  readonly nowMillis?: number;
  /** The lease of the attempt when its handler ran steps: the commit is fenced by it. */
  readonly lease?: LeaseToken;
  /** The messages the handler published: written to the outbox in the same transaction. */
  readonly outgoing?: readonly OutgoingMessage[];
  /**
   * The hashes an unfinished entry of this message may hold (the payload's, and the whole
   * body's of entries written before its source was declared); default the entry's own. A
   * step-less commit takes over an unfinished entry only when it holds one of them.
   */
  readonly payloadHashes?: readonly string[];
  /** The record span's W3C `traceparent`, stored on the outbox items for the relay. */
  readonly traceparent?: string;
}

/**
 * An attempt's hold on an entry: the owner token it wrote and the fencing counter its claim
 * set. Every later write of the attempt is conditioned on both.
 *
 * @example
 * ```ts
 * await store.heartbeat({ pk, lease: { owner: 'a1b2…', epoch: 3 }, leaseUntilMillis });
 * ```
 */
export interface LeaseToken {
  readonly owner: string;
  readonly epoch: number;
}

/**
 * A journaled step: its result's JSON text (absent when it returned nothing) and when it
 * finished (ISO-8601).
 *
 * @example
 * ```ts
 * const journaled: JournaledStep = { result: '{"chargeId":"ch_1"}', at: '2026-11-24T10:00:00.000Z' };
 * ```
 */
export interface JournaledStep {
  readonly result?: string;
  readonly at: string;
}

/**
 * What an attempt asks to claim: the entry it would write, the payload hashes a journal it
 * may resume must carry, its owner token, and its lease.
 *
 * @example
 * ```ts
 * await store.claim({ entry, payloadHashes: [hash], owner, nowMillis, leaseUntilMillis });
 * ```
 */
export interface ClaimRequest {
  /** `expiresAt` must cover the lease: the entry outlives its lease. */
  readonly entry: Pick<
    InboxEntry,
    'pk' | 'consumer' | 'key' | 'messageId' | 'payloadHash' | 'expiresAt'
  >;
  readonly payloadHashes: readonly string[];
  readonly owner: string;
  readonly nowMillis: number;
  readonly leaseUntilMillis: number;
}

/**
 * The claim's answer: the lease with the attempt count and the journal to resume from, or the
 * entry that refused it (committed, leased by another attempt, or for another payload).
 *
 * @example
 * ```ts
 * const claim = await store.claim(request);
 * if (claim.claimed) console.log(claim.attempts, Object.keys(claim.journal));
 * ```
 */
export type ClaimResult =
  | {
      readonly claimed: true;
      readonly lease: LeaseToken;
      readonly attempts: number;
      readonly journal: Readonly<Record<string, JournaledStep>>;
      /**
       * The `leaseUntil` the entry holds: the one this try wrote, or, when a retried claim
       * found its own lease (its first answer lost), the one an earlier try wrote.
       */
      readonly leaseUntilMillis?: number;
      /**
       * The claim took over an `IN_PROGRESS` entry whose lease another attempt held and let
       * lapse (it crashed or timed out): not a new entry, nor one released after a failure.
       */
      readonly takenOver?: boolean;
    }
  | { readonly claimed: false; readonly existing: InboxEntry };

/**
 * A failed attempt of a handler that ran no step, to record on its entry: the entry it would
 * create (a `FAILED` one) or update, the payload hashes that entry may hold, and the error.
 *
 * @example
 * ```ts
 * await store.recordFailure?.({ entry, payloadHashes: [payloadHash, bodyHash],
 *   lastError: { name: 'TypeError', at: '2026-11-27T10:00:00.000Z' }, nowMillis });
 * ```
 */
export interface FailureRecord {
  readonly entry: Pick<
    InboxEntry,
    'pk' | 'consumer' | 'key' | 'messageId' | 'payloadHash' | 'expiresAt'
  >;
  readonly payloadHashes: readonly string[];
  /** The class name of the attempt's error, and when it failed (ISO-8601). */
  readonly lastError: { readonly name: string; readonly at: string };
  /** An entry whose `expiresAt` is before this moment (in whole seconds) is not updated. */
  readonly nowMillis: number;
}

/**
 * The result of a commit: either everything was written, or the inbox already holds a live
 * entry for the key (`existing`) and nothing was written.
 *
 * @example
 * ```ts
 * const result = await store.commit(request);
 * if (!result.committed) console.log('duplicate of', result.existing.messageId);
 * ```
 */
export type CommitResult =
  | { readonly committed: true }
  | { readonly committed: false; readonly existing: InboxEntry };

/**
 * A commit checked and ready to share a `TransactWriteItems` with other messages' commits:
 * its request, the identity of each item it writes (no two members of one transaction may
 * share one, unless both merge into one update), and its estimated share of the 4 MB limit.
 *
 * @example
 * ```ts
 * const prepared = await store.prepareCommit(request);
 * console.log(prepared.itemIds.length, prepared.bytes);
 * ```
 */
export interface PreparedCommit {
  readonly request: CommitRequest;
  /** The `TransactItems` it writes: its entry, its operations, its outbox items. */
  readonly items: readonly TransactItem[];
  readonly itemIds: readonly string[];
  readonly bytes: number;
  /**
   * The ids among `itemIds` whose update may be merged with other members' updates of the same
   * item into one (an unconditional `ADD` of integers): such an item may be shared by members
   * of one transaction. Absent: none. The store's own detail, not for handlers.
   */
  readonly mergeableIds?: ReadonlySet<string>;
}

/**
 * What a shared transaction meant for one of its members: the result it would have had alone
 * (`result`), the error of its own it failed with (`error`), or nothing of its own (`innocent`:
 * another member cancelled the transaction, so it is to be committed again).
 *
 * @example
 * ```ts
 * if ('innocent' in verdict) queueAgain(member);
 * ```
 */
export type MemberVerdict =
  | { readonly result: CommitResult }
  | { readonly error: unknown }
  | { readonly innocent: true };

/**
 * Persistence of the inbox. {@link DynamoDBInboxStore} is the implementation; the interface
 * keeps the processing core free of SDK types so it can be unit-tested in isolation.
 *
 * @example
 * ```ts
 * const store: InboxStore = new DynamoDBInboxStore({ tableName: 'inbox' });
 * ```
 */
export interface InboxStore {
  /** The outbox table `tx.publish` writes to; undefined when the store has none. */
  readonly outboxTableName?: string | undefined;
  /** Reads an entry with a strongly consistent read, expired or not; undefined when absent. */
  find(pk: string): Promise<InboxEntry | undefined>;
  /**
   * Reads the entries of many keys with strongly consistent reads, for a batch's pre-check. A
   * key it could not read is left out as an absent one is: the answer may miss an entry, never
   * invent one. Optional: without it the pre-check calls `find` once per key, at once.
   */
  findMany?(pks: readonly string[]): Promise<ReadonlyMap<string, InboxEntry>>;
  /**
   * The socket pool of a client the store was given, which the processor's default
   * concurrency stays within; undefined when the store sizes its own client's pool (see
   * `expectConcurrency`). Optional.
   */
  socketLimit?(): number | undefined;
  /**
   * Commits the entry and the operations atomically. Throws `BusinessConditionFailedError`
   * when a business condition fails, `TransientStoreError` on conflicts, throttling, 5xx and
   * timeouts, `TransactionLimitError` when the transaction breaks a DynamoDB rule (checked
   * before sending where it can be, so that nothing is sent that DynamoDB would reject).
   */
  commit(request: CommitRequest): Promise<CommitResult>;
  /**
   * Checks a commit as `commit` does and resolves the identity of each item it writes, for
   * `commitPrepared` and `commitTogether`; throws what `commit` would throw before sending.
   * Optional: a store without the three cannot coalesce, and has a batch's commits sent as they
   * come, two that share an item at once too (DynamoDB then cancels one for a conflict).
   */
  prepareCommit?(request: CommitRequest): Promise<PreparedCommit>;
  /**
   * Commits alone, as `commit` would, a commit `prepareCommit` checked, sending the items it
   * prepared. Optional, with `prepareCommit`.
   */
  commitPrepared?(prepared: PreparedCommit): Promise<CommitResult>;
  /**
   * Commits several prepared commits, whose items are distinct (but for items all of whose
   * members' updates are mergeable, which it merges into one update each) and within DynamoDB's
   * limits, in one `TransactWriteItems` with the `ClientRequestToken` given, and says what it
   * meant for each, in order. Throws, for the whole, an error no member's own verdict explains:
   * a `TransientStoreError` (nothing known to be applied), or another error (nothing applied).
   */
  commitTogether?(
    members: readonly PreparedCommit[],
    clientRequestToken: string,
  ): Promise<MemberVerdict[]>;
  /**
   * Claims the entry for an attempt that runs steps: succeeds only if the entry is absent,
   * expired, or not completed with a lapsed lease and the same payload; records the owner, adds
   * one to the fencing counter and the attempts, and keeps the journal (cleared if expired).
   */
  claim(request: ClaimRequest): Promise<ClaimResult>;
  /** Journals a step, fenced by the lease; `LeaseLostError` if the attempt no longer owns it. */
  journal(request: {
    pk: string;
    lease: LeaseToken;
    stepName: string;
    step: JournaledStep;
  }): Promise<void>;
  /** Extends the lease, fenced by it; `LeaseLostError` if the attempt no longer owns it. */
  heartbeat(request: {
    pk: string;
    lease: LeaseToken;
    leaseUntilMillis: number;
    expiresAt: number;
  }): Promise<void>;
  /**
   * Releases the lease after a failure, fenced by it: the entry becomes `FAILED` with the
   * error's class name and time, its journal kept, and `journal` added to it (steps whose
   * results the attempt holds but whose own journal writes did not land). `LeaseLostError` if
   * it no longer owns it.
   */
  release(request: {
    pk: string;
    lease: LeaseToken;
    lastError: { name: string; at: string };
    journal?: Readonly<Record<string, JournaledStep>>;
  }): Promise<void>;
  /**
   * Records a failed attempt of a handler that ran no step, in one conditional write: creates
   * the entry `FAILED`, or updates a `FAILED` one of this payload that still lives, adding one
   * to its attempts and setting its last error. Answers `recorded: false` (no error) when the
   * entry is committed, leased, expired, another payload's or of a newer format: a record never
   * takes or changes what another attempt wrote. Optional: a store without it records nothing,
   * and failures of step-less handlers then leave no entry, as before.
   */
  recordFailure?(request: FailureRecord): Promise<{ readonly recorded: boolean }>;
  /**
   * Told by each processor how many records it runs at once, before its first request, so a
   * store that builds its own client can size the connection pool to match. Optional.
   */
  expectConcurrency?(records: number): void;
}
