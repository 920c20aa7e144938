import { describe, expect, it } from 'vitest';
import { TransactionLimit, TransactionLimitError } from '../../src/errors.js';
import {
  createBatchProcessor,
  type MessageHandler,
  RecordStatus,
  redriveUnsafeMessageIdKey,
} from '../../src/index.js';
import { recordCommands } from '../../tools/sdk/clientSpy.js';
import { useLedger } from '../support/ledgerFixture.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';

const { aws, ledger } = useLedger();
const sent = recordCommands(aws.dynamodb);

const KILOBYTE = 1024;

async function runOne(handler: MessageHandler<unknown>) {
  const processor = createBatchProcessor(handler, {
    store: ledger.store,
    consumer: 'limits',
    key: redriveUnsafeMessageIdKey,
    observability: { logger: recordingLogger() },
  });
  const record = sqsRecord({ n: 1 });
  sent.length = 0;
  const [outcome] = await processor.processRecords(sqsEvent(record));
  return { outcome, record };
}

describe('transaction limits, checked before calling DynamoDB', () => {
  it.each([
    {
      limit: TransactionLimit.OperationCount,
      case: '100 business operations',
      handler: ((_message, tx) => {
        for (let i = 0; i < 100; i++)
          tx.put({ TableName: ledger.tables.entries, Item: { paymentId: `p-${i}` } });
      }) as MessageHandler<unknown>,
    },
    {
      limit: TransactionLimit.TransactionBytes,
      case: 'over 4 MB in all',
      handler: ((_message, tx) => {
        for (let i = 0; i < 11; i++) {
          tx.put({
            TableName: ledger.tables.entries,
            Item: { paymentId: `big-${i}`, blob: 'x'.repeat(390 * KILOBYTE) },
          });
        }
      }) as MessageHandler<unknown>,
    },
    {
      limit: TransactionLimit.ItemBytes,
      case: 'an item over 400 KB',
      handler: ((_message, tx) => {
        tx.put({
          TableName: ledger.tables.entries,
          Item: { paymentId: 'huge', blob: 'x'.repeat(401 * KILOBYTE) },
        });
      }) as MessageHandler<unknown>,
    },
    {
      limit: TransactionLimit.SameItem,
      case: 'a Put and an Update of the same item',
      handler: ((_message, tx) => {
        tx.put({ TableName: ledger.tables.accounts, Item: { accountId: 'same', balanceCents: 0 } });
        tx.update({
          TableName: ledger.tables.accounts,
          Key: { accountId: 'same' },
          UpdateExpression: 'SET openedAt = :t',
          ExpressionAttributeValues: { ':t': 1 },
        });
      }) as MessageHandler<unknown>,
    },
    {
      limit: TransactionLimit.InboxTable,
      case: 'a write to the message’s own inbox entry',
      handler: (({ key }, tx) => {
        tx.delete({ TableName: ledger.tables.inbox, Key: { pk: `limits#${key}` } });
      }) as MessageHandler<unknown>,
    },
  ])(
    'rejects $case as a permanent $limit error without a transaction',
    async ({ limit, handler }) => {
      const { outcome } = await runOne(handler);

      expect(outcome?.status).toBe(RecordStatus.Failed);
      expect(outcome?.error).toBeInstanceOf(TransactionLimitError);
      expect(outcome?.error).toMatchObject({ limit });
      expect(sent.some((command) => command.name === 'TransactWriteItemsCommand')).toBe(false);
    },
  );

  it('turns any other request DynamoDB refuses (a key of the wrong type) into a permanent error', async () => {
    const { outcome } = await runOne((_message, tx) => {
      tx.update({
        TableName: ledger.tables.accounts,
        Key: { accountId: 42 },
        UpdateExpression: 'SET n = :n',
        ExpressionAttributeValues: { ':n': 1 },
      });
    });

    expect(outcome?.status).toBe(RecordStatus.Failed);
    expect(outcome?.error).toBeInstanceOf(TransactionLimitError);
    expect(outcome?.error).toMatchObject({ limit: TransactionLimit.InvalidOperation });
    expect(outcome?.error).toHaveProperty(
      'message',
      expect.stringMatching(/DynamoDB (rejected|cancelled)/),
    );
  });

  it('accepts 99 business operations, the most that fit beside the inbox entry', async () => {
    const { outcome } = await runOne((_message, tx) => {
      for (let i = 0; i < 99; i++)
        tx.put({ TableName: ledger.tables.entries, Item: { paymentId: `ok-${i}` } });
    });

    expect(outcome?.status).toBe(RecordStatus.Processed);
  });

  it('translates DynamoDB’s own same-item rejection into the same permanent error', async () => {
    const entry = {
      pk: 'limits#direct',
      consumer: 'limits',
      key: 'direct',
      messageId: 'm',
      status: 'COMPLETED' as const,
      payloadHash: 'h',
      processedAt: new Date().toISOString(),
      expiresAt: Math.floor(Date.now() / 1000) + 60,
      formatVersion: 1,
    };
    const operations = [
      {
        ConditionCheck: {
          TableName: ledger.tables.stock,
          Key: { sku: 'x' },
          ConditionExpression: 'attribute_not_exists(sku)',
        },
      },
      { Delete: { TableName: ledger.tables.stock, Key: { sku: 'x' } } },
    ];

    const commit = ledger.store.commit({
      entry,
      operations,
      nowEpochSeconds: Math.floor(Date.now() / 1000),
    });

    await expect(commit).rejects.toBeInstanceOf(TransactionLimitError);
    await expect(commit).rejects.toMatchObject({ limit: TransactionLimit.SameItem });
  });
});
