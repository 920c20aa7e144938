import { entryWrite } from '../../src/aws/entryWrites.js';
import { mergeableItemIds } from '../../src/aws/numericAdds.js';
import type { CommitRequest, PreparedCommit } from '../../src/core/InboxStore.js';
import type { TransactItem } from '../../src/core/TransactionBuilder.js';

export const INBOX_TABLE = 'inbox';

/**
 * A payment's prepared commit as `DynamoDBInboxStore.prepareCommit` makes it: its entry, a
 * credit of the account (an ADD, conditional when asked) and its ledger entry, with item ids
 * named after the items and the store's own marking of what may merge.
 */
export function preparedPayment(
  key: string,
  accountId: string,
  amountCents: number,
  options: { readonly condition?: string } = {},
): PreparedCommit {
  const credit: TransactItem = {
    Update: {
      TableName: 'accounts',
      Key: { accountId },
      UpdateExpression: 'ADD balanceCents :amount',
      ExpressionAttributeValues: { ':amount': amountCents },
      ...(options.condition === undefined ? {} : { ConditionExpression: options.condition }),
    },
  };
  const ledger: TransactItem = { Put: { TableName: 'ledger', Item: { paymentId: key } } };
  const request: CommitRequest = {
    entry: {
      pk: `unit#${key}`,
      consumer: 'unit',
      key,
      messageId: `m-${key}`,
      status: 'COMPLETED',
      payloadHash: 'h',
      processedAt: '2026-01-01T00:00:00.000Z',
      expiresAt: 2_000_000_000,
      formatVersion: 1,
    },
    operations: [credit, ledger],
    nowEpochSeconds: 1_700_000_000,
  };
  const items = [entryWrite(INBOX_TABLE, request), credit, ledger];
  const itemIds = [`entry:${key}`, `account:${accountId}`, `ledger:${key}`];
  return { request, items, itemIds, bytes: 300, mergeableIds: mergeableItemIds(items, itemIds) };
}
