import { describe, expect, it } from '@jest/globals';
import { copyOf, redeliveryOf } from 'sqs-inbox/testing';
import { ledgerOnTheKit, transfer } from './ledgerOnTheKit.js';

describe('ledger (Jest)', () => {
  it('books a transfer once when a copy of it arrives', async () => {
    const { inbox, ledger, texts, balance } = ledgerOnTheKit();
    const record = transfer('t-1', 500);
    await inbox.run(ledger, [record]);
    const run = await inbox.run(ledger, [copyOf(record)]);
    expect(run.records[0]?.status).toBe('duplicate');
    expect(balance()).toBe(500);
    expect(texts).toEqual(['500 cents booked']);
  });

  it('replays the notify step after a crash instead of texting again', async () => {
    const { inbox, ledger, texts, balance } = ledgerOnTheKit();
    const record = transfer('t-1', 500);
    await inbox.run(ledger, [record], { crash: { afterStep: 'notify' } });
    await inbox.clock.advanceMillis(5 * 60_000);
    const run = await inbox.run(ledger, [redeliveryOf(record)]);
    expect(run.records[0]).toMatchObject({ status: 'processed', stepsReplayed: ['notify'] });
    expect(texts).toEqual(['500 cents booked']);
    expect(balance()).toBe(500);
  });
});
