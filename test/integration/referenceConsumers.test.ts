import { randomUUID } from 'node:crypto';
import { DeleteMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testAws } from '../harness/aws.js';
import { sqsEvent, sqsRecord } from '../support/sqsRecords.js';

// The reference functions' real Lambda handlers, configured through the environment the
// InboxConsumer construct gives them, against this project's emulator.
const aws = testAws();
const names = {
  inbox: aws.uniqueName('ref-inbox'),
  accounts: aws.uniqueName('ref-accounts'),
  entries: aws.uniqueName('ref-entries'),
  stock: aws.uniqueName('ref-stock'),
  orders: aws.uniqueName('ref-orders'),
};
type Handler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
let ledger: Handler;
let inventory: Handler;
let ledgerDlq: string;
let inventoryDlq: string;

const context = {
  functionName: 'local',
  functionVersion: '$LATEST',
  awsRequestId: 'local',
  memoryLimitInMB: '512',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:local',
  getRemainingTimeInMillis: () => 30_000,
} as unknown as Context;

async function loadHandler(path: string, consumer: string, dlqUrl: string): Promise<Handler> {
  Object.assign(process.env, {
    INBOX_CONSUMER: consumer,
    INBOX_DEAD_LETTER_QUEUE_URL: dlqUrl,
    POWERTOOLS_SERVICE_NAME: consumer,
  });
  return ((await import(path)) as { handler: Handler }).handler;
}

beforeAll(async () => {
  await Promise.all([
    aws.createInboxTable(names.inbox),
    aws.createTable(names.accounts, [['accountId', 'HASH']]),
    aws.createTable(names.entries, [['paymentId', 'HASH']]),
    aws.createTable(names.stock, [['sku', 'HASH']]),
    aws.createTable(names.orders, [['orderId', 'HASH']]),
  ]);
  ledgerDlq = (await aws.createQueue(`${aws.uniqueName('ref-ledger-dlq')}.fifo`)).url;
  inventoryDlq = (await aws.createQueue(aws.uniqueName('ref-inventory-dlq'))).url;
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_DYNAMODB: aws.endpoints.dynamodb,
    AWS_ENDPOINT_URL_SQS: aws.endpoints.sqs,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    INBOX_TABLE_NAME: names.inbox,
    INBOX_TTL_SECONDS: String(23 * 86_400),
    INBOX_MAX_RECEIVE_COUNT: '5',
    INBOX_SOURCES: 'sqs',
    INBOX_BUSINESS_TABLE_accounts: names.accounts,
    INBOX_BUSINESS_TABLE_ledgerEntries: names.entries,
    INBOX_BUSINESS_TABLE_stock: names.stock,
    INBOX_BUSINESS_TABLE_orders: names.orders,
    POWERTOOLS_METRICS_NAMESPACE: 'SqsInboxTest',
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  });
  ledger = await loadHandler('../../functions/ledger/handler.js', 'ledger', ledgerDlq);
  inventory = await loadHandler('../../functions/inventory/handler.js', 'inventory', inventoryDlq);
});
afterAll(() => aws.cleanup());

const item = async (table: string, key: Record<string, string>) =>
  (
    await aws.documentClient.send(
      new GetCommand({ TableName: table, Key: key, ConsistentRead: true }),
    )
  ).Item;

async function deadLetters(queueUrl: string) {
  const Messages = await aws.receive(queueUrl);
  for (const { ReceiptHandle } of Messages)
    await aws.sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle }));
  return Messages.map((message) => ({
    body: message.Body,
    error: message.MessageAttributes?.['inbox.error']?.StringValue,
  }));
}

const payment = (accountId: string, overrides: Record<string, unknown> = {}) => ({
  eventId: `evt-${randomUUID()}`,
  accountId,
  paymentId: `pay-${randomUUID()}`,
  amountCents: 1999,
  currency: 'EUR',
  ...overrides,
});
const fifo = (body: { accountId: string; [field: string]: unknown }) =>
  sqsRecord(body, { fifo: { groupId: body.accountId } });

describe('ledger consumer', () => {
  it('credits a payment once, writes one ledger entry, and acknowledges its duplicate', async () => {
    const event = payment(`acc-${randomUUID()}`);

    expect(await ledger(sqsEvent(fifo(event)), context)).toEqual({ batchItemFailures: [] });
    expect(await ledger(sqsEvent(fifo(event)), context)).toEqual({ batchItemFailures: [] });

    expect(await item(names.accounts, { accountId: event.accountId })).toMatchObject({
      balanceCents: 1999,
      currency: 'EUR',
    });
    expect(await item(names.entries, { paymentId: event.paymentId })).toMatchObject({
      eventId: event.eventId,
      amountCents: 1999,
    });
  });

  it('dead-letters a payment in another currency than its account, and an invalid one, with their reasons', async () => {
    const accountId = `acc-${randomUUID()}`;
    await ledger(sqsEvent(fifo(payment(accountId))), context);

    const response = await ledger(
      sqsEvent(
        fifo(payment(accountId, { currency: 'USD' })),
        fifo(payment(accountId, { amountCents: -5 })),
      ),
      context,
    );

    expect(response).toEqual({ batchItemFailures: [] });
    expect((await deadLetters(ledgerDlq)).map((message) => message.error).sort()).toEqual([
      'PermanentError',
      'SchemaValidationError',
    ]);
    expect(await item(names.accounts, { accountId })).toMatchObject({ balanceCents: 1999 });
  });

  it('retries a different event for a payment already recorded, applying nothing', async () => {
    const first = payment(`acc-${randomUUID()}`);
    await ledger(sqsEvent(fifo(first)), context);
    const conflicting = fifo({ ...first, eventId: `evt-${randomUUID()}` });

    const response = await ledger(sqsEvent(conflicting), context);

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: conflicting.messageId }] });
    expect(await item(names.accounts, { accountId: first.accountId })).toMatchObject({
      balanceCents: 1999,
    });
  });
});

describe('inventory consumer', () => {
  const order = (sku: string, quantity: number) => ({
    eventId: `evt-${randomUUID()}`,
    orderId: `ord-${randomUUID()}`,
    lines: [{ sku, quantity }],
  });
  const seed = (sku: string, available: number) =>
    aws.documentClient.send(new PutCommand({ TableName: names.stock, Item: { sku, available } }));

  it('reserves every line of an order once, and acknowledges its duplicate', async () => {
    const sku = `sku-${randomUUID()}`;
    await seed(sku, 10);
    const placed = {
      ...order(sku, 3),
      lines: [
        { sku, quantity: 2 },
        { sku, quantity: 1 },
      ],
    };

    await inventory(sqsEvent(sqsRecord(placed), sqsRecord(placed)), context);

    expect(await item(names.orders, { orderId: placed.orderId })).toMatchObject({
      status: 'RESERVED',
    });
    expect(await item(names.stock, { sku })).toMatchObject({ available: 7, reserved: 3 });
  });

  it('records an order that exceeds stock as rejected, a business outcome, and acknowledges its duplicate', async () => {
    const sku = `sku-${randomUUID()}`;
    await seed(sku, 2);
    const short = order(sku, 5);

    expect(await inventory(sqsEvent(sqsRecord(short)), context)).toEqual({ batchItemFailures: [] });
    expect(await inventory(sqsEvent(sqsRecord(short)), context)).toEqual({ batchItemFailures: [] });

    expect(await item(names.orders, { orderId: short.orderId })).toMatchObject({
      status: 'REJECTED',
      shortSkus: [sku],
    });
    expect(await item(names.stock, { sku })).toEqual({ sku, available: 2 });
  });

  it('never oversells when orders race for the last units: reserved + available stays the seeded stock', async () => {
    const sku = `sku-${randomUUID()}`;
    await seed(sku, 5);
    const orders = Array.from({ length: 6 }, () => order(sku, 2));

    const responses = await Promise.all(
      orders.map((placed) => inventory(sqsEvent(sqsRecord(placed)), context)),
    );

    const stock = await item(names.stock, { sku });
    const reserved = Number(stock?.reserved ?? 0);
    expect(Number(stock?.available)).toBeGreaterThanOrEqual(0);
    expect(Number(stock?.available) + reserved).toBe(5);
    const decided = await Promise.all(
      orders.map((placed) => item(names.orders, { orderId: placed.orderId })),
    );
    const failed = responses.flatMap((response) => response.batchItemFailures).length;
    expect(decided.filter((o) => o?.status === 'RESERVED').length * 2).toBe(reserved);
    expect(decided.filter(Boolean).length + failed).toBe(orders.length);
  });
});
