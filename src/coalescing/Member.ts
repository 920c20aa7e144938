import type { CommitResult, PreparedCommit } from '../core/InboxStore.js';
import { MAX_CONFLICTS_IN_ROW, reportedConflict } from '../core/retryTransient.js';
import type { TransactItem } from '../core/TransactionBuilder.js';
import type { CoalescerSettings } from './CoalescerSettings.js';

/**
 * One message's commit waiting for, or in, a flush of a {@link CommitCoalescer}.
 *
 * @example
 * ```ts
 * const member: Member = { prepared, signal, resolve, reject, conflicts: 0 };
 * ```
 */
export interface Member {
  readonly prepared: PreparedCommit;
  readonly signal: AbortSignal;
  readonly resolve: (result: CommitResult) => void;
  readonly reject: (error: unknown) => void;
  /** Conflicts in a row its transactions met (requeued together, not failed, up to a bound). */
  conflicts: number;
}

/**
 * Whether a member cancelled by `error` is sent again with the others it shared a transaction
 * with, its handler not run again: only for a conflict DynamoDB reported, while the batch's
 * conflict budget lasts, and only if none of its own writes has a condition, which may rest on
 * what its handler read (a version check). Any other member fails with the error, and a
 * conflict then has its record tried again from its handler, with fresh reads.
 *
 * @example
 * ```ts
 * if (sendAgainAfterConflict(member, verdict.error, settings)) conflicted.push(member);
 * ```
 */
export function sendAgainAfterConflict(
  member: Member,
  error: unknown,
  settings: Pick<CoalescerSettings, 'runtime' | 'conflictsUntilMillis'>,
): boolean {
  if (!reportedConflict(error) || ++member.conflicts >= MAX_CONFLICTS_IN_ROW) return false;
  const { runtime, conflictsUntilMillis } = settings;
  if (conflictsUntilMillis !== undefined && runtime.now() >= conflictsUntilMillis) return false;
  return member.prepared.request.operations.every(unconditional);
}

/** A write with no condition of its own (`ConditionCheck` is nothing but one). */
function unconditional(item: TransactItem): boolean {
  if (item.ConditionCheck !== undefined) return false;
  const write = item.Put ?? item.Update ?? item.Delete;
  return write?.ConditionExpression === undefined;
}
