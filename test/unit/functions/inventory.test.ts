import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { copyOf, eventBridgeRecord, InboxTest, redeliveryOf } from 'sqs-inbox/testing';
import { describe, expect, it } from 'vitest';
import { inventoryConsumer, OrderPlacedEvent } from '../../../functions/inventory/orderPlaced.js';
import { createConsumerProcessor } from '../../../functions/shared/createInboxHandler.js';

/** The inventory as the reference stack deploys it, on the kit: orders from the shop's bus. */
async function inventoryOnTheKit(stock: Record<string, number>) {
  const inbox = new InboxTest({
    consumer: 'inventory',
    tables: [
      { tableName: 'stock', partitionKey: 'sku' },
      { tableName: 'orders', partitionKey: 'orderId' },
    ],
    sources: ['eventbridge'],
  });
  for (const [sku, available] of Object.entries(stock))
    await inbox.dynamo.documentClient.send(
      new PutCommand({ TableName: 'stock', Item: { sku, available } }),
    );
  const settings = {
    inbox: inbox.inboxConfig(),
    client: inbox.dynamo.documentClient,
  };
  const inventory = createConsumerProcessor(inventoryConsumer, settings);
  const item = (table: string, key: Record<string, string>) => inbox.dynamo.item(table, key);
  return { inbox, inventory, item };
}

const orderPlaced = (orderId: string, lines: Array<{ sku: string; quantity: number }>) =>
  eventBridgeRecord({ eventId: `evt-${orderId}`, orderId, lines }, OrderPlacedEvent);

describe('the reference inventory (functions/inventory) on sqs-inbox/testing', () => {
  it('reserves every line of an order once, lines of one SKU together, a copy being a duplicate', async () => {
    const { inbox, inventory, item } = await inventoryOnTheKit({ 'sku-1': 10, 'sku-2': 4 });
    const order = orderPlaced('ord-1', [
      { sku: 'sku-1', quantity: 2 },
      { sku: 'sku-2', quantity: 4 },
      { sku: 'sku-1', quantity: 1 },
    ]);
    await inbox.run(inventory, [order]);
    const run = await inbox.run(inventory, [copyOf(order)]);
    expect(run.records.map((outcome) => outcome.status)).toEqual(['duplicate']);
    expect(item('stock', { sku: 'sku-1' })).toEqual({ sku: 'sku-1', available: 7, reserved: 3 });
    expect(item('stock', { sku: 'sku-2' })).toEqual({ sku: 'sku-2', available: 0, reserved: 4 });
    expect(item('orders', { orderId: 'ord-1' })).toMatchObject({ status: 'RESERVED' });
  });

  it('records an order beyond the stock as rejected with its short SKUs, reserving nothing', async () => {
    const { inbox, inventory, item } = await inventoryOnTheKit({ 'sku-1': 10, 'sku-2': 1 });
    const run = await inbox.run(inventory, [
      orderPlaced('ord-1', [
        { sku: 'sku-1', quantity: 2 },
        { sku: 'sku-2', quantity: 2 },
        { sku: 'sku-3', quantity: 1 },
      ]),
    ]);
    expect(run.records[0]?.status).toBe('processed');
    expect(item('orders', { orderId: 'ord-1' })).toMatchObject({
      status: 'REJECTED',
      shortSkus: ['sku-2', 'sku-3'],
    });
    expect(item('stock', { sku: 'sku-1' })).toEqual({ sku: 'sku-1', available: 10 });
  });

  it('never oversells: of two orders racing for the last units, one is reserved, the other rejected on its retry', async () => {
    const { inbox, inventory, item } = await inventoryOnTheKit({ 'sku-1': 3 });
    const orders = [
      orderPlaced('ord-1', [{ sku: 'sku-1', quantity: 2 }]),
      orderPlaced('ord-2', [{ sku: 'sku-1', quantity: 2 }]),
    ];
    // Both read 3 available; the second commit's condition finds 1 and fails, for SQS to retry.
    const run = await inbox.run(inventory, orders);
    expect(run.failedMessageIds).toHaveLength(1);
    const retried = orders.filter((order) => run.failedMessageIds.includes(order.messageId));
    await inbox.run(inventory, retried.map(redeliveryOf));
    expect(item('stock', { sku: 'sku-1' })).toEqual({ sku: 'sku-1', available: 1, reserved: 2 });
    const statuses = ['ord-1', 'ord-2'].map((orderId) => item('orders', { orderId })?.status);
    expect(statuses.sort()).toEqual(['REJECTED', 'RESERVED']);
  });
});
