import type { ConflictBackoff } from '../contention/ConflictBackoff.js';
import type { InboxStore } from '../core/InboxStore.js';
import type { InboxLogger, InboxMetrics } from '../core/types.js';
import type { BatchPrecheck } from '../precheck/BatchPrecheck.js';
import type { InboxRuntime } from '../runtime/InboxRuntime.js';

/**
 * What a {@link CommitCoalescer} works with: the runtime (its sleep, randomness), the logger,
 * the consumer's name for log lines, the attempts of a transaction whose outcome is unknown,
 * and the batch's pre-check read.
 *
 * @example
 * ```ts
 * const settings: CoalescerSettings = { runtime, logger, consumer: 'ledger', attempts: 3 };
 * ```
 */
export interface CoalescerSettings {
  readonly runtime: Pick<InboxRuntime, 'sleep' | 'random' | 'now'>;
  readonly logger: InboxLogger;
  /** Learns the round trip of the transactions sent, for the wait after a conflict. */
  readonly conflictBackoff?: ConflictBackoff | undefined;
  readonly metrics?: InboxMetrics | undefined;
  readonly consumer: string;
  readonly attempts: number;
  readonly precheck?: BatchPrecheck | undefined;
  /**
   * Until when members cancelled by a conflict are sent again together, in epoch milliseconds
   * (unbounded under a deadline, whose signal stops them); after it they fail with the conflict.
   */
  readonly conflictsUntilMillis?: number | undefined;
  /**
   * Share a transaction only between commits that update one item mergeably (a hot account's
   * credits), each other commit alone and at once: what a processor does without `coalesce`.
   */
  readonly sameItemOnly?: boolean | undefined;
}

/**
 * A store that can share a transaction between messages.
 *
 * @example
 * ```ts
 * const store: CoalescingStore = new DynamoDBInboxStore({ tableName: 'inbox' });
 * ```
 */
export type CoalescingStore = InboxStore &
  Required<Pick<InboxStore, 'prepareCommit' | 'commitPrepared' | 'commitTogether'>>;
