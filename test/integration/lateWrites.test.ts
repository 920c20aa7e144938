import { setTimeout as sleep } from 'node:timers/promises';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { TransactionClosedError } from '../../src/errors.js';
import { createBatchProcessor, type MessageHandler, RecordStatus } from '../../src/index.js';
import { PaymentCaptured, payment, useLedger } from '../support/ledgerFixture.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';

const { aws, ledger } = useLedger();

function processorOf(handler: MessageHandler<PaymentCaptured>) {
  return createBatchProcessor(handler, {
    store: ledger.store,
    consumer: 'late-writes',
    schema: PaymentCaptured,
    key: ({ body }) => body.eventId,
    observability: { logger: recordingLogger() },
  });
}

describe('writes the handler did not await', () => {
  it('throw TransactionClosedError where they are made, naming the message, instead of vanishing silently', async () => {
    const event = payment({ accountId: `acc-late-${Date.now()}` });
    const late: unknown[] = [];
    const lines = [1, 2];
    const record = sqsRecord(event);
    const processor = processorOf(async ({ body }, tx) => {
      // The classic bug: forEach does not wait for its async callbacks.
      lines.forEach(async (line) => {
        await sleep(5);
        try {
          tx.put({
            TableName: ledger.tables.entries,
            Item: { paymentId: `${body.paymentId}-${line}` },
          });
        } catch (error) {
          late.push(error);
        }
      });
    });

    const [outcome] = await processor.processRecords(sqsEvent(record));
    await sleep(50);

    expect(outcome?.status).toBe(RecordStatus.Processed);
    expect(late).toHaveLength(2);
    for (const error of late) {
      expect(error).toBeInstanceOf(TransactionClosedError);
      expect(error).toMatchObject({ messageId: record.messageId });
    }
  });

  it('commit operations as they were when added: an item changed after the handler resolved is not committed changed', async () => {
    const event = payment({ accountId: `acc-copy-${Date.now()}` });
    const processor = processorOf(async ({ body }, tx) => {
      const item = {
        paymentId: body.paymentId,
        accountId: body.accountId,
        amountCents: body.amountCents,
      };
      tx.put({ TableName: ledger.tables.entries, Item: item });
      void Promise.resolve().then(() => {
        item.amountCents = 999_999;
      });
    });

    const [outcome] = await processor.processRecords(sqsEvent(sqsRecord(event)));

    expect(outcome?.status).toBe(RecordStatus.Processed);
    const { Item } = await aws.documentClient.send(
      new GetCommand({ TableName: ledger.tables.entries, Key: { paymentId: event.paymentId } }),
    );
    expect(Item?.amountCents).toBe(event.amountCents);
  });
});
