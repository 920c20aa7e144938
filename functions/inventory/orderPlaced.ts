import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { MessageHandler, TransactionBuilder } from 'sqs-inbox';
import { z } from 'zod';
import type { ConsumerDefinition } from '../shared/ConsumerDefinition.js';

/** Where placed orders come from: the shop's events on its EventBridge bus. */
export const OrderPlacedEvent = { source: 'shop.orders', detailType: 'OrderPlaced' } as const;

/** An order to reserve stock for (the event's `detail`): 1 to 25 lines. */
export const OrderPlaced = z.object({
  eventId: z.string().min(1),
  orderId: z.string().min(1),
  lines: z
    .array(z.object({ sku: z.string().min(1), quantity: z.number().int().positive() }))
    .min(1)
    .max(25),
});
export type OrderPlaced = z.infer<typeof OrderPlaced>;

/** The inventory's tables: stock per SKU and one outcome per order. */
export interface InventoryTables {
  readonly stock: string;
  readonly orders: string;
}

/**
 * Reserves every line of the order if each SKU has enough stock — each decrement conditioned
 * on the stock it read still being there, so a lost race fails the transaction and the message
 * is retried — and otherwise records the order as rejected with its short SKUs: a business
 * outcome, acknowledged like a success.
 */
export function reserveOrder(
  tables: InventoryTables,
  client: DynamoDBDocumentClient,
): MessageHandler<OrderPlaced> {
  return async ({ body }, tx) => {
    const wanted = quantitiesBySku(body.lines);
    const available = await readAvailable(tables.stock, [...wanted.keys()], client);
    const short = [...wanted]
      .filter(([sku, quantity]) => (available.get(sku) ?? 0) < quantity)
      .map(([sku]) => sku);
    if (short.length > 0) {
      tx.put({
        TableName: tables.orders,
        Item: {
          orderId: body.orderId,
          eventId: body.eventId,
          status: 'REJECTED',
          shortSkus: short,
        },
        ConditionExpression: 'attribute_not_exists(orderId)',
      });
      return;
    }
    for (const [sku, quantity] of wanted) reserve(tx, tables.stock, sku, quantity);
    tx.put({
      TableName: tables.orders,
      Item: { orderId: body.orderId, eventId: body.eventId, status: 'RESERVED', lines: body.lines },
      ConditionExpression: 'attribute_not_exists(orderId)',
    });
  };
}

/** One update per SKU: DynamoDB allows one operation per item in a transaction. */
function quantitiesBySku(lines: OrderPlaced['lines']): Map<string, number> {
  const wanted = new Map<string, number>();
  for (const { sku, quantity } of lines) wanted.set(sku, (wanted.get(sku) ?? 0) + quantity);
  return wanted;
}

function reserve(tx: TransactionBuilder, stockTable: string, sku: string, quantity: number): void {
  tx.update({
    TableName: stockTable,
    Key: { sku },
    UpdateExpression:
      'SET available = available - :quantity, reserved = if_not_exists(reserved, :zero) + :quantity',
    ConditionExpression: 'available >= :quantity',
    ExpressionAttributeValues: { ':quantity': quantity, ':zero': 0 },
  });
}

async function readAvailable(
  stockTable: string,
  skus: string[],
  client: DynamoDBDocumentClient,
): Promise<Map<string, number>> {
  const available = new Map<string, number>();
  let keys: Array<Record<string, unknown>> = skus.map((sku) => ({ sku }));
  while (keys.length > 0) {
    const { Responses, UnprocessedKeys } = await client.send(
      new BatchGetCommand({ RequestItems: { [stockTable]: { Keys: keys, ConsistentRead: true } } }),
    );
    for (const item of Responses?.[stockTable] ?? [])
      available.set(String(item.sku), Number(item.available ?? 0));
    keys =
      (UnprocessedKeys?.[stockTable]?.Keys as Array<Record<string, unknown>> | undefined) ?? [];
  }
  return available;
}

/**
 * The inventory's business tables by their logical names: the keys of the construct's
 * `businessTables`, read back with `inboxConfigFromEnvironment().table(name)`.
 */
export const InventoryTable = { Stock: 'stock', Orders: 'orders' } as const;

/** The inventory consumer: keyed by `eventId`; business tables {@link InventoryTable}. */
export const inventoryConsumer: ConsumerDefinition<typeof OrderPlaced> = {
  schema: OrderPlaced,
  key: ({ body }) => body.eventId,
  handler: (table, client) =>
    reserveOrder(
      { stock: table(InventoryTable.Stock), orders: table(InventoryTable.Orders) },
      client,
    ),
};
