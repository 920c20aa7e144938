import { describe, expect, it } from 'vitest';
import { checkTransaction } from '../../../src/aws/checkTransaction.js';
import { buildEntry } from '../../../src/core/inboxEntry.js';
import { TransactionLimit, TransactionLimitError } from '../../../src/errors.js';

const entry = buildEntry({
  consumer: 'ledger',
  key: 'evt-1',
  messageId: 'm-1',
  payloadHash: 'h',
  nowMillis: 1_700_000_000_000,
  ttlSeconds: 60,
});
const ARN = 'arn:aws:dynamodb:eu-west-1:123456789012:table/accounts';
const credit = (TableName: string) => ({
  Update: {
    TableName,
    Key: { accountId: 'acc-1' },
    UpdateExpression: 'ADD balanceCents :amount',
    ExpressionAttributeValues: { ':amount': 1 },
  },
});
const noSchema = async () => undefined;

describe('checkTransaction', () => {
  it('tells one item apart by table name, whether an operation names its table or its ARN', async () => {
    const byName = await checkTransaction(
      { entry, operations: [credit('accounts')] },
      { inbox: 'inbox' },
      [],
      noSchema,
      true,
    );
    const byArn = await checkTransaction(
      { entry, operations: [credit(ARN)] },
      { inbox: 'inbox' },
      [],
      noSchema,
      true,
    );

    expect(byArn.itemIds[1]).toBe(byName.itemIds[1]);
  });

  it('refuses two operations on one item named once by its table and once by its ARN', async () => {
    const checking = checkTransaction(
      { entry, operations: [credit('accounts'), credit(ARN)] },
      { inbox: 'inbox' },
      [],
      noSchema,
    );

    await expect(checking).rejects.toBeInstanceOf(TransactionLimitError);
    await expect(checking).rejects.toMatchObject({ limit: TransactionLimit.SameItem });
  });
});
