import { copyOf, eventBridgeRecord, InboxTest, snsRecord } from 'sqs-inbox/testing';
import { describe, expect, it } from 'vitest';
import { loadExample } from './loadExample.js';

const inbox = new InboxTest({
  consumer: 'reservations',
  tables: [{ tableName: 'stock', partitionKey: 'sku' }],
  // What the construct sets for an SNS topic and an EventBridge rule (examples/sources/app.ts).
  sources: ['sns', 'eventbridge'],
});
const reservations = await loadExample(
  inbox,
  () => import('../../../examples/sources/reservations.js'),
);
const reserved = (sku: string) => inbox.dynamo.item('stock', { sku })?.reserved;
const OrderPlaced = { source: 'shop.orders', detailType: 'OrderPlaced' } as const;

describe('the reservations consumer (examples/sources/reservations.ts)', () => {
  it('reserves an order from SNS once, a retried notification being a duplicate', async () => {
    const notification = snsRecord(
      { orderId: 'o-1', sku: 'sku-1', quantity: 2 },
      { snsMessageId: 'sns-1' },
    );
    await inbox.run(reservations, [notification]);
    const run = await inbox.run(reservations, [copyOf(notification)]);
    expect(run.records.map((record) => record.status)).toEqual(['duplicate']);
    expect(reserved('sku-1')).toBe(2);
  });

  it('reserves an order from EventBridge once per event id, beside the SNS ones', async () => {
    const event = eventBridgeRecord(
      { orderId: 'o-2', sku: 'sku-2', quantity: 3 },
      { ...OrderPlaced, id: 'evt-2' },
    );
    const next = eventBridgeRecord(
      { orderId: 'o-3', sku: 'sku-2', quantity: 1 },
      { ...OrderPlaced, id: 'evt-3' },
    );
    const run = await inbox.run(reservations, [event, copyOf(event), next]);
    expect(run.records.map((record) => record.status)).toEqual([
      'processed',
      'duplicate',
      'processed',
    ]);
    expect(reserved('sku-2')).toBe(4);
  });
});
