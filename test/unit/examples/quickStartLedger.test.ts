import { copyOf, fifoRecord, InboxTest, sqsRecord } from 'sqs-inbox/testing';
import { describe, expect, it } from 'vitest';
import { loadExample } from './loadExample.js';

// One container for the file: the module reads its config once, at import.
const inbox = new InboxTest({
  consumer: 'ledger',
  tables: [{ tableName: 'accounts', partitionKey: 'accountId' }],
});
const ledger = await loadExample(inbox, () => import('../../../examples/quickStart/ledger.js'));
const balance = (accountId: string) => inbox.dynamo.item('accounts', { accountId })?.balanceCents;
const payment = (eventId: string, accountId: string, amountCents: number) =>
  fifoRecord({ eventId, accountId, amountCents }, { groupId: accountId });

describe('the quick start ledger (examples/quickStart/ledger.ts)', () => {
  it('credits each payment to its account once, a copy of one being a duplicate', async () => {
    const first = payment('e-1', 'acc-1', 500);
    await inbox.run(ledger, [first, payment('e-2', 'acc-1', 300)]);
    const run = await inbox.run(ledger, [copyOf(first)]);
    expect(run.records.map((record) => record.status)).toEqual(['duplicate']);
    expect(balance('acc-1')).toBe(800);
  });

  it('dead-letters a payment its schema refuses, crediting nothing', async () => {
    const run = await inbox.run(ledger, [
      sqsRecord({ eventId: 'e-3', accountId: 'acc-2', amountCents: -5 }),
    ]);
    expect(run.records[0]?.status).toBe('deadLettered');
    expect(inbox.deadLetters().at(-1)?.attributes['inbox.error']).toBe('SchemaValidationError');
    expect(balance('acc-2')).toBeUndefined();
  });
});
