import { type CancellationReason, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { judgeMembers } from '../../../src/aws/judgeCancellation.js';
import { buildSharedTransaction } from '../../../src/aws/sharedTransaction.js';
import type { PreparedCommit } from '../../../src/core/InboxStore.js';
import { TransactionLimitError, TransientReason } from '../../../src/errors.js';
import { BusinessConditionFailedError, TransientStoreError } from '../../../src/index.js';
import { INBOX_TABLE, preparedPayment } from '../../support/preparedCommits.js';

const context = { tableName: INBOX_TABLE, find: async () => undefined };

/** A cancellation with `reasons` at the given indexes of the transaction, `None` elsewhere. */
function cancelled(length: number, reasons: Record<number, CancellationReason>) {
  return new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: Array.from({ length }, (_, at) => reasons[at] ?? { Code: 'None' }),
  });
}

/** Three payments, two of them to one hot account: its merged update is at index 1. */
function hotTransaction() {
  const members = [
    preparedPayment('p1', 'hot', 10),
    preparedPayment('p2', 'cold', 5),
    preparedPayment('p3', 'hot', 20),
  ];
  return { members, ...buildSharedTransaction(members) };
}

const judge = (
  members: readonly PreparedCommit[],
  layout: ReturnType<typeof buildSharedTransaction>['layout'],
  length: number,
  reasons: Record<number, CancellationReason>,
) => judgeMembers(cancelled(length, reasons), members, context, layout);

describe('judgeMembers with a merged update', () => {
  it('gives a TransactionConflict on the merged update to each member that shares it, and leaves the others innocent', async () => {
    const { members, items, layout } = hotTransaction();

    const verdicts = await judge(members, layout, items.length, {
      1: { Code: 'TransactionConflict' },
    });

    const [first, cold, third] = verdicts;
    for (const sharing of [first, third]) {
      expect(sharing).toMatchObject({ error: expect.any(TransientStoreError) });
      expect((sharing as { error: TransientStoreError }).error.reason).toBe(
        TransientReason.TransactionConflict,
      );
    }
    expect(cold).toEqual({ innocent: true });
  });

  it('finds a member’s own reasons past the merged update: a duplicate’s entry, the others innocent', async () => {
    const { members, items, layout } = hotTransaction();
    const existing = { ...members[2]?.request.entry, messageId: 'm-earlier' };

    const verdicts = await judge(members, layout, items.length, {
      6: { Code: 'ConditionalCheckFailed', Item: marshall(existing) },
    });

    expect(verdicts).toEqual([
      { innocent: true },
      { innocent: true },
      {
        result: { committed: false, existing: expect.objectContaining({ messageId: 'm-earlier' }) },
      },
    ]);
  });

  it('judges a member’s own failed condition on an item after the merged one as its business condition', async () => {
    const { members, items, layout } = hotTransaction();

    const verdicts = await judge(members, layout, items.length, {
      7: { Code: 'ConditionalCheckFailed' },
    });

    expect(verdicts[2]).toMatchObject({ error: expect.any(BusinessConditionFailedError) });
    expect(verdicts.slice(0, 2)).toEqual([{ innocent: true }, { innocent: true }]);
  });

  it('refuses the whole transaction when the merged update failed otherwise (whose amount is unknown), so each member is committed alone', async () => {
    const { members, items, layout } = hotTransaction();

    const judging = judge(members, layout, items.length, {
      1: {
        Code: 'ValidationError',
        Message: 'An operand in the update expression has an incorrect data type',
      },
    });

    await expect(judging).rejects.toBeInstanceOf(TransactionLimitError);
  });

  it('judges a member’s ValidationError on an item of its own as its own, as without merging', async () => {
    const { members, items, layout } = hotTransaction();

    const verdicts = await judge(members, layout, items.length, {
      4: { Code: 'ValidationError' },
    });

    expect(verdicts[1]).toMatchObject({ error: expect.any(TransactionLimitError) });
    expect([verdicts[0], verdicts[2]]).toEqual([{ innocent: true }, { innocent: true }]);
  });
});
