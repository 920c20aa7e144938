import { InboxTest, redeliveryOf, sqsRecord } from 'sqs-inbox/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadExample } from './loadExample.js';

const inbox = new InboxTest({
  consumer: 'checkout',
  tables: [{ tableName: 'orders', partitionKey: 'orderId' }],
});
const checkout = await loadExample(inbox, () => import('../../../examples/steps/checkout.js'));
const chargeId = (orderId: string) => inbox.dynamo.item('orders', { orderId })?.chargeId;

/** The PSP's charges, by the Idempotency-Key of each call (no emulator has a PSP: a stub of fetch). */
const charges: string[] = [];
beforeAll(() => {
  vi.stubGlobal('fetch', async (_url: string, init: RequestInit) => {
    charges.push(new Headers(init.headers).get('idempotency-key') ?? '');
    return Response.json({ id: `ch_${charges.length}` });
  });
});
afterAll(() => vi.unstubAllGlobals());

describe('the checkout (examples/steps/checkout.ts), its PSP a stub of fetch', () => {
  it('charges an order once and records the charge with the order', async () => {
    const order = sqsRecord({ orderId: 'o-1', amountCents: 4200 });
    const run = await inbox.run(checkout, [order]);
    expect(run.records[0]).toMatchObject({ status: 'processed', stepsRun: ['charge'] });
    expect(chargeId('o-1')).toBe(`ch_${charges.length}`);
  });

  it('replays the charge after a crash instead of charging again', async () => {
    const order = sqsRecord({ orderId: 'o-2', amountCents: 1000 });
    const before = charges.length;
    await inbox.run(checkout, [order], { crash: { afterStep: 'charge' } });
    await inbox.clock.advanceMillis(5 * 60_000);
    const run = await inbox.run(checkout, [redeliveryOf(order)]);
    expect(run.records[0]).toMatchObject({ status: 'processed', stepsReplayed: ['charge'] });
    expect(charges.length - before).toBe(1);
    expect(chargeId('o-2')).toBe(`ch_${before + 1}`);
  });

  it('charges again with the same Idempotency-Key when the crash lost the journal write', async () => {
    const order = sqsRecord({ orderId: 'o-3', amountCents: 1000 });
    const before = charges.length;
    await inbox.run(checkout, [order], { crash: { afterStep: 'charge', journaled: false } });
    await inbox.clock.advanceMillis(5 * 60_000);
    await inbox.run(checkout, [redeliveryOf(order)]);
    const keys = charges.slice(before);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/\S/);
    expect(keys[1]).toBe(keys[0]);
  });
});
