import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { OrderPlaced, reserveOrder } from '../../functions/inventory/orderPlaced.js';
import { applyPayment, PaymentCaptured } from '../../functions/ledger/paymentCaptured.js';
import { createBatchProcessor, DynamoDBInboxStore } from '../../src/index.js';
import { uniqueKey } from './dynamoTargets.js';
import { recordingLogger, sqsEvent, sqsRecord } from './sqsRecords.js';

interface ReferenceTables {
  readonly inbox: string;
  readonly accounts: string;
  readonly entries: string;
  readonly stock: string;
  readonly orders: string;
}

/**
 * Delivers one payment and one order twice each (distinct message ids) to the reference
 * ledger and inventory handlers through the real batch processor and inbox store over
 * `client`, then reads back what they wrote.
 */
export async function ledgerAndInventoryRun(
  client: DynamoDBDocumentClient,
  tables: ReferenceTables,
) {
  const store = new DynamoDBInboxStore({ tableName: tables.inbox, client });
  const options = {
    store,
    key: ({ body }: { body: { eventId: string } }) => body.eventId,
    observability: { logger: recordingLogger() },
  };
  const ledger = createBatchProcessor(applyPayment(tables, client), {
    ...options,
    consumer: 'ledger',
    schema: PaymentCaptured,
  });
  const inventory = createBatchProcessor(reserveOrder(tables, client), {
    ...options,
    consumer: 'inventory',
    schema: OrderPlaced,
  });
  const accountId = uniqueKey('acc');
  const sku = uniqueKey('sku');
  const payment = {
    eventId: uniqueKey('evt'),
    accountId,
    paymentId: uniqueKey('pay'),
    amountCents: 1250,
    currency: 'EUR',
  };
  const order = {
    eventId: uniqueKey('evt'),
    orderId: uniqueKey('ord'),
    lines: [{ sku, quantity: 2 }],
  };
  await client.send(new PutCommand({ TableName: tables.stock, Item: { sku, available: 5 } }));
  const outcomes = [
    ...(await ledger.processRecords(sqsEvent(sqsRecord(payment)))),
    ...(await ledger.processRecords(sqsEvent(sqsRecord(payment)))),
    ...(await inventory.processRecords(sqsEvent(sqsRecord(order)))),
    ...(await inventory.processRecords(sqsEvent(sqsRecord(order)))),
  ];
  const read = async (TableName: string, Key: Record<string, unknown>) =>
    (await client.send(new GetCommand({ TableName, Key, ConsistentRead: true }))).Item;
  const stock = await read(tables.stock, { sku });
  return {
    statuses: outcomes.map((outcome) => outcome.status),
    errors: outcomes.map((outcome) => outcome.error),
    balanceCents: (await read(tables.accounts, { accountId }))?.balanceCents,
    stock: { available: stock?.available, reserved: stock?.reserved },
    order: await read(tables.orders, { orderId: order.orderId }),
  };
}
