import { describe, expect, it } from '@jest/globals';
import { copyOf, InboxTest, redeliveryOf, sqsRecord } from 'sqs-inbox/testing';
import { createLedger } from './ledger.js';

function ledgerOnTheKit() {
  const inbox = new InboxTest({
    consumer: 'ledger',
    tables: [{ tableName: 'accounts', partitionKey: 'accountId' }],
    outbox: true,
  });
  const texts: string[] = [];
  const ledger = createLedger(
    // The kit's environment names no outbox destination: give the one the ledger publishes to.
    {
      ...inbox.inboxConfig(),
      destination: () => 'https://sqs.eu-west-1.amazonaws.com/123456789012/booked',
    },
    { dynamo: inbox.dynamo.documentClient, sendSms: async ({ text }) => void texts.push(text) },
  );
  const balance = () => inbox.dynamo.item('accounts', { accountId: 'acc-1' })?.balanceCents;
  return { inbox, ledger, texts, balance };
}

const transfer = sqsRecord({ eventId: 't-1', accountId: 'acc-1', amountCents: 500 });

describe('ledger (Jest)', () => {
  it('books a transfer once when a copy of it arrives', async () => {
    const { inbox, ledger, texts, balance } = ledgerOnTheKit();
    await inbox.run(ledger, [transfer]);
    const run = await inbox.run(ledger, [copyOf(transfer)]);
    expect(run.records[0]?.status).toBe('duplicate');
    expect(balance()).toBe(500);
    expect(texts).toEqual(['500 cents booked']);
  });

  it('replays the notify step after a crash instead of texting again', async () => {
    const { inbox, ledger, texts, balance } = ledgerOnTheKit();
    await inbox.run(ledger, [transfer], { crash: { afterStep: 'notify' } });
    await inbox.clock.advanceMillis(5 * 60_000);
    const run = await inbox.run(ledger, [redeliveryOf(transfer)]);
    expect(run.records[0]).toMatchObject({ status: 'processed', stepsReplayed: ['notify'] });
    expect(texts).toEqual(['500 cents booked']);
    expect(balance()).toBe(500);
  });
});
