import type { CancellationReason } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { TransactionLimit, TransientReason } from '../constants/values.js';
import type {
  CommitRequest,
  CommitResult,
  MemberVerdict,
  PreparedCommit,
} from '../core/InboxStore.js';
import { type InboxEntry, isCommitted } from '../core/inboxEntry.js';
import type { TransactItem } from '../core/TransactionBuilder.js';
import {
  BusinessConditionFailedError,
  LeaseLostError,
  LeaseOperation,
  TransactionLimitError,
  TransientStoreError,
} from '../errors.js';
import { locate, rejectedTransaction } from './checkTransaction.js';
import { transientReasonOf } from './dynamoDBErrors.js';
import { toEntry } from './inboxItem.js';
import { consecutiveLayout, type TransactionLayout } from './sharedTransaction.js';

/** A `TransactWriteItems` DynamoDB cancelled, with one reason per item. */
export type CancelledTransaction = Error & { CancellationReasons?: CancellationReason[] };

/**
 * What judging a cancellation needs: the inbox table's name, and a consistent read of an
 * entry for when DynamoDB did not return the item that failed its condition.
 */
export interface JudgingContext {
  tableName: string;
  find(pk: string): Promise<InboxEntry | undefined>;
}

/**
 * One message's commit, cancelled: its entry's failed condition is a duplicate (or, with a
 * lease, a lost lease unless the entry is completed), a conflict or throttle a transient
 * error, a business condition a `BusinessConditionFailedError`, anything else a
 * `TransactionLimitError`. `reasons` start with the entry's; `written` are the items after it.
 *
 * @example
 * ```ts
 * return judgeCommit(error, error.CancellationReasons ?? [], request, written, context);
 * ```
 */
export async function judgeCommit(
  error: Error,
  reasons: readonly CancellationReason[],
  request: CommitRequest,
  written: readonly TransactItem[],
  context: JudgingContext,
): Promise<CommitResult> {
  const [entryReason, ...operationReasons] = reasons;
  if (entryReason?.Code === 'ConditionalCheckFailed') {
    const existing = entryReason.Item
      ? toEntry(unmarshall(entryReason.Item), context.tableName)
      : await context.find(request.entry.pk);
    if (
      request.lease !== undefined &&
      !(existing && isCommitted(existing, request.nowEpochSeconds))
    ) {
      // Not completed by this attempt's own earlier try: the lease is someone else's now.
      throw new LeaseLostError(LeaseOperation.Commit, undefined, error);
    }
    if (existing !== undefined) return { committed: false, existing };
    // The entry vanished between the failed condition and the read: let the caller retry.
    throw new TransientStoreError(TransientReason.TransactionConflict, error);
  }
  const transient = transientReasonOf(reasons);
  if (transient !== undefined) throw new TransientStoreError(transient, error);
  const failedIndex = operationReasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
  const operation = request.operations[failedIndex];
  if (operation !== undefined) {
    throw new BusinessConditionFailedError(locate(operation, failedIndex), error);
  }
  throw rejectedTransaction(error, reasons, written);
}

/**
 * Several messages' commit, cancelled: each member judged by its own slice of the reasons as
 * {@link judgeCommit} judges one alone, its slice read through the layout (a merged update's
 * reason is in the slice of every member that shares it, so its `TransactionConflict` is each
 * one's conflict); a member whose reasons are all `None` is innocent. Throws a
 * `TransientStoreError` when no member has a reason of its own, and a `TransactionLimitError`
 * for the whole when a merged update failed for another reason (a `ValidationError`): which
 * member's amount it refused is unknown, so each is to be committed alone.
 *
 * @example
 * ```ts
 * const verdicts = await judgeMembers(error, members, context, layout);
 * ```
 */
export async function judgeMembers(
  cancelled: CancelledTransaction,
  members: readonly PreparedCommit[],
  context: JudgingContext,
  layout: TransactionLayout = consecutiveLayout(members),
): Promise<MemberVerdict[]> {
  const reasons = cancelled.CancellationReasons ?? [];
  const refused = refusedMergedUpdate(cancelled, reasons, layout.merged);
  if (refused !== undefined) throw refused;
  const verdicts = await Promise.all(
    members.map(async (member, index): Promise<MemberVerdict> => {
      const own = (layout.positions[index] ?? []).map((at) => reasons[at] ?? {});
      if (own.every((reason) => reason.Code === undefined || reason.Code === 'None')) {
        return { innocent: true };
      }
      try {
        const written = member.items.slice(1);
        return { result: await judgeCommit(cancelled, own, member.request, written, context) };
      } catch (error) {
        return { error };
      }
    }),
  );
  if (verdicts.every((verdict) => 'innocent' in verdict)) {
    throw new TransientStoreError(TransientReason.TransactionConflict, cancelled);
  }
  return verdicts;
}

/** A merged update's reason that is neither `None` nor transient, said for the whole transaction. */
function refusedMergedUpdate(
  cancelled: CancelledTransaction,
  reasons: readonly CancellationReason[],
  merged: ReadonlySet<number>,
): TransactionLimitError | undefined {
  for (const at of merged) {
    const reason = reasons[at];
    if (reason?.Code === undefined || reason.Code === 'None') continue;
    if (transientReasonOf([reason]) !== undefined) continue;
    return new TransactionLimitError(
      TransactionLimit.InvalidOperation,
      `DynamoDB cancelled an update merged from several messages' updates of one item with ` +
        `${reason.Code}; each message is committed alone to find whose update it refuses.`,
      reason.Code,
      'a transaction DynamoDB accepts',
      cancelled,
    );
  }
  return undefined;
}
