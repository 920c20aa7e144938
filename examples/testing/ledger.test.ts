import { copyOf, redeliveryOf, sqsRecord } from 'sqs-inbox/testing';
import { describe, expect, it } from 'vitest';
import { BOOKED, ledgerOnTheKit, transfer } from './ledgerOnTheKit.js';

describe('ledger', () => {
  it('books a transfer once when a copy of it arrives', async () => {
    const { inbox, ledger, texts, balance } = ledgerOnTheKit();
    const record = transfer('t-1', 500);
    await inbox.run(ledger, [record]);
    const run = await inbox.run(ledger, [copyOf(record)]);
    expect(run.records[0]?.status).toBe('duplicate');
    expect(balance()).toBe(500);
    expect(texts).toEqual(['500 cents booked']);
  });

  it('dead-letters an overdraft with its reason, booking nothing', async () => {
    const { inbox, ledger, texts, balance } = ledgerOnTheKit();
    const run = await inbox.run(ledger, [transfer('t-1', -100)]);
    expect(run.records[0]?.status).toBe('deadLettered');
    expect(inbox.deadLetters()[0]?.attributes).toMatchObject({
      'inbox.error': 'PermanentError',
      'inbox.errorMessage': 'transfer t-1 would overdraw acc-1',
    });
    expect(balance()).toBeUndefined();
    expect(texts).toEqual([]);
  });

  it('dead-letters a transfer its schema refuses', async () => {
    const { inbox, ledger } = ledgerOnTheKit();
    const run = await inbox.run(ledger, [
      sqsRecord({ eventId: 't-1', accountId: 'acc-1', amountCents: '5' }),
    ]);
    expect(run.records[0]?.status).toBe('deadLettered');
    expect(inbox.deadLetters()[0]?.attributes).toMatchObject({
      'inbox.error': 'SchemaValidationError',
      'inbox.errorMessage': expect.stringContaining('at amountCents'),
    });
  });

  it('replays the notify step after a crash instead of texting again', async () => {
    const { inbox, ledger, texts, balance } = ledgerOnTheKit();
    const record = transfer('t-1', 500);
    const crashed = await inbox.run(ledger, [record], { crash: { afterStep: 'notify' } });
    expect(crashed.crashed).toBe(true);
    // SQS delivers it again once the visibility timeout ends; the dead attempt's lease is over.
    await inbox.clock.advanceMillis(5 * 60_000);
    const run = await inbox.run(ledger, [redeliveryOf(record)]);
    expect(run.records[0]).toMatchObject({ status: 'processed', stepsReplayed: ['notify'] });
    expect(texts).toEqual(['500 cents booked']);
    expect(balance()).toBe(500);
  });

  it('publishes one TransferBooked through the outbox, in the commit', async () => {
    const { inbox, ledger } = ledgerOnTheKit();
    await inbox.run(ledger, [transfer('t-1', 500), transfer('t-1', 500)]);
    const [item, ...others] = inbox.outboxItems(); // one item per commit that published
    expect(others).toEqual([]);
    expect(item?.messages).toMatchObject([
      { destination: BOOKED, body: expect.stringContaining('"TransferBooked"') },
    ]);
  });
});
