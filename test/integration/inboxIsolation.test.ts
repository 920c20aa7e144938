import { describe, expect, it } from 'vitest';
import { inboxPk } from '../../src/constants/index.js';
import { TransactionLimit, TransactionLimitError } from '../../src/errors.js';
import {
  createBatchProcessor,
  type MessageHandler,
  RecordStatus,
  type TransactionBuilder,
} from '../../src/index.js';
import { PaymentCaptured, payment, useLedger } from '../support/ledgerFixture.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';

const { ledger } = useLedger();

function consumer(name: string, handler: MessageHandler<PaymentCaptured>) {
  return createBatchProcessor(handler, {
    store: ledger.store,
    consumer: name,
    schema: PaymentCaptured,
    key: ({ body }) => body.eventId,
    observability: { logger: recordingLogger() },
  });
}

const inboxArn = () => `arn:aws:dynamodb:us-east-1:000000000000:table/${ledger.tables.inbox}`;

describe('one consumer cannot touch the inbox entries of another', () => {
  it.each([
    {
      attack:
        'a Put of the other consumer’s entry (its first delivery would be acknowledged as a duplicate)',
      write: (tx: TransactionBuilder, event: PaymentCaptured) =>
        tx.put({
          TableName: ledger.tables.inbox,
          Item: { pk: inboxPk('billing', event.eventId), status: 'COMPLETED', expiresAt: 4e9 },
        }),
    },
    {
      attack: 'an Update that expires the other consumer’s entry (a copy would be applied twice)',
      write: (tx: TransactionBuilder, event: PaymentCaptured) =>
        tx.update({
          TableName: inboxArn(),
          Key: { pk: inboxPk('billing', event.eventId) },
          UpdateExpression: 'SET expiresAt = :zero',
          ExpressionAttributeValues: { ':zero': 0 },
        }),
    },
    {
      attack: 'a Delete of the other consumer’s entry',
      write: (tx: TransactionBuilder, event: PaymentCaptured) =>
        tx.delete({
          TableName: ledger.tables.inbox,
          Key: { pk: inboxPk('billing', event.eventId) },
        }),
    },
  ])('refuses $attack, permanently', async ({ write }) => {
    const event = payment({ accountId: `acc-isolation-${Math.random()}` });
    const attacker = consumer('ledger', async ({ body }, tx) => {
      write(tx, body);
    });
    const billing = consumer('billing', ledger.applyPayment);

    const [refused] = await attacker.processRecords(sqsEvent(sqsRecord(event)));
    const [first] = await billing.processRecords(sqsEvent(sqsRecord(event)));

    expect(refused?.status).toBe(RecordStatus.Failed);
    expect(refused?.error).toBeInstanceOf(TransactionLimitError);
    expect(refused?.error).toMatchObject({ limit: TransactionLimit.InboxTable });
    expect(String(refused?.error)).toMatch(
      /targets the inbox table, which only the library writes.*Keep business data in its own table/,
    );
    expect(first?.status).toBe(RecordStatus.Processed);
    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
    // Its own entry holds its failure, nothing of the other consumer's.
    expect(await ledger.inboxEntry('ledger', event.eventId)).toMatchObject({
      status: 'FAILED',
      lastError: { name: 'TransactionLimitError' },
    });
  });
});
