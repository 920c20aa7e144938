import type { InboxEntry } from './inboxEntry.js';
import type { TransactItem } from './TransactionBuilder.js';

/**
 * What the processor asks the store to commit: the message's inbox entry and the handler's
 * business operations, as one atomic transaction.
 *
 * @example
 * ```ts
 * await store.commit({ entry, operations: tx.operations, nowEpochSeconds: 1_700_000_000 });
 * ```
 */
export interface CommitRequest {
  readonly entry: InboxEntry;
  readonly operations: readonly TransactItem[];
  /** Entries whose `expiresAt` is before this count as absent. */
  readonly nowEpochSeconds: number;
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
 * Persistence of the inbox. {@link DynamoDBInboxStore} is the implementation; the interface
 * keeps the processing core free of SDK types so it can be unit-tested in isolation.
 *
 * @example
 * ```ts
 * const store: InboxStore = new DynamoDBInboxStore({ tableName: 'inbox' });
 * ```
 */
export interface InboxStore {
  /** Reads an entry with a strongly consistent read, expired or not; undefined when absent. */
  find(pk: string): Promise<InboxEntry | undefined>;
  /**
   * Commits the entry and the operations atomically. Throws `BusinessConditionFailedError`
   * when a business condition fails, `TransientStoreError` on conflicts, throttling, 5xx and
   * timeouts, `TransactionLimitError` when the transaction breaks a DynamoDB rule (checked
   * before sending where it can be, so that nothing is sent that DynamoDB would reject).
   */
  commit(request: CommitRequest): Promise<CommitResult>;
  /**
   * Told by each processor how many records it runs at once, before its first request, so a
   * store that builds its own client can size the connection pool to match. Optional.
   */
  expectConcurrency?(records: number): void;
}
