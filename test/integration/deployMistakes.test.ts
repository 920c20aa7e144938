import { describe, expect, inject, it } from 'vitest';
import {
  InboxTableSchemaError,
  TransactionLimit,
  TransactionLimitError,
} from '../../src/errors.js';
import { createBatchProcessor, DynamoDBInboxStore, RecordStatus } from '../../src/index.js';
import { PaymentCaptured, payment, useLedger } from '../support/ledgerFixture.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';

const { aws, ledger } = useLedger();

// MiniStack accepts writes whose key does not fit the table's key schema (a TransactWriteItems
// Put without the key, an Update with another key); it refuses such a read. DynamoDB and
// DynamoDB Local refuse both, so the cases without a read run on DynamoDB Local only.
const refusesWrongKeys = !inject('aws').backend.startsWith('DynamoDB: MiniStack');

describe('an inbox table with the wrong key schema (a deploy mistake)', () => {
  const withSortKey = [
    ['pk', 'HASH'],
    ['sk', 'RANGE'],
  ] as const;
  it.each([
    { keys: [['id', 'HASH']] as const, precheck: 'before' as const },
    { keys: withSortKey, precheck: 'before' as const },
    ...(refusesWrongKeys
      ? [
          { keys: [['id', 'HASH']] as const, precheck: 'off' as const },
          { keys: withSortKey, precheck: 'off' as const },
        ]
      : []),
  ])(
    'fails loudly and leaves the message to SQS’s retries, never to the DLQ (keys $keys, precheck $precheck)',
    async ({ keys, precheck }) => {
      const wrong = await aws.createTable(aws.uniqueName('wrong-inbox'), keys);
      const dlq = await aws.createQueue(aws.uniqueName('wrong-inbox-dlq'));
      const logger = recordingLogger();
      const processor = createBatchProcessor(ledger.applyPayment, {
        store: new DynamoDBInboxStore({ tableName: wrong, client: aws.dynamodb }),
        consumer: 'ledger',
        schema: PaymentCaptured,
        key: ({ body }) => body.eventId,
        performance: { precheck: precheck },
        deadLetter: { queueUrl: dlq.url, client: aws.sqs },
        observability: { logger: logger },
      });
      const event = payment({ accountId: `acc-wrong-inbox-${Math.random()}` });

      const [outcome] = await processor.processRecords(sqsEvent(sqsRecord(event)));

      expect(outcome?.status).toBe(RecordStatus.Failed);
      expect(outcome?.error).toBeInstanceOf(InboxTableSchemaError);
      expect(String(outcome?.error)).toMatch(
        new RegExp(`The inbox table ${wrong} does not have the key schema sqs-inbox needs`),
      );
      expect(await ledger.balanceOf(event.accountId)).toBe(0);
      expect(logger.lines.some((line) => line.level === 'warn' || line.level === 'error')).toBe(
        true,
      );
    },
  );

  it.skipIf(!refusesWrongKeys)(
    'still treats a business operation whose key fits no schema as that message’s permanent error',
    async () => {
      const processor = createBatchProcessor(
        async (_message, tx) => {
          tx.update({
            TableName: ledger.tables.accounts,
            Key: { wrongKey: 'x' },
            UpdateExpression: 'SET n = :n',
            ExpressionAttributeValues: { ':n': 1 },
          });
        },
        {
          store: ledger.store,
          consumer: 'ledger',
          key: ({ messageId }) => messageId,
          observability: { logger: recordingLogger() },
        },
      );

      const [outcome] = await processor.processRecords(sqsEvent(sqsRecord({ n: 1 })));

      expect(outcome?.error).toBeInstanceOf(TransactionLimitError);
    },
  );
});

describe('a value lib-dynamodb cannot convert (a Date in an item)', () => {
  it('is a permanent error naming the fix, without quoting the value', async () => {
    const processor = createBatchProcessor(
      async ({ body }, tx) => {
        tx.put({
          TableName: ledger.tables.entries,
          Item: { paymentId: body.paymentId, capturedAt: new Date('2026-11-23T12:00:00Z') },
        });
      },
      {
        store: ledger.store,
        consumer: 'ledger-dates',
        schema: PaymentCaptured,
        key: ({ body }) => body.eventId,
        observability: { logger: recordingLogger() },
      },
    );

    const [outcome] = await processor.processRecords(sqsEvent(sqsRecord(payment())));

    expect(outcome?.error).toBeInstanceOf(TransactionLimitError);
    expect(outcome?.error).toMatchObject({ limit: TransactionLimit.InvalidOperation });
    expect(String(outcome?.error)).toMatch(/could not convert a value.*a Date/);
    expect(String(outcome?.error)).not.toMatch(/2026/);
  });
});
