import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkInvariants } from '../../scripts/local/checkInvariants.js';
import { planDemoTraffic } from '../../scripts/local/demoTraffic.js';
import { testAws } from '../harness/aws.js';

const aws = testAws();
const tables = {
  accounts: aws.uniqueName('inv-accounts'),
  entries: aws.uniqueName('inv-entries'),
  stock: aws.uniqueName('inv-stock'),
  orders: aws.uniqueName('inv-orders'),
};
let dlqs: { ledger: string; inventory: string };

beforeAll(async () => {
  await Promise.all([
    aws.createTable(tables.accounts, [['accountId', 'HASH']]),
    aws.createTable(tables.entries, [['paymentId', 'HASH']]),
    aws.createTable(tables.stock, [['sku', 'HASH']]),
    aws.createTable(tables.orders, [['orderId', 'HASH']]),
  ]);
  dlqs = {
    ledger: (await aws.createQueue(aws.uniqueName('inv-ledger-dlq'))).url,
    inventory: (await aws.createQueue(aws.uniqueName('inv-inventory-dlq'))).url,
  };
});
afterAll(() => aws.cleanup());

describe('the npm start invariant report', () => {
  it('fails each invariant that the tables and DLQs contradict (a double-applied payment, oversold stock, a lost malformed message)', async () => {
    const plan = planDemoTraffic(10, 0, 1);
    const [payment] = plan.payments;
    const put = (table: string, item: Record<string, unknown>) =>
      aws.documentClient.send(new PutCommand({ TableName: table, Item: item }));
    await put(tables.accounts, {
      accountId: payment?.accountId,
      balanceCents: 2 * (payment?.amountCents ?? 0),
    });
    await put(tables.stock, { sku: 'sku-apple', available: -1, reserved: 0 });

    const results = await checkInvariants(
      plan,
      { ...tables, deadLetterQueues: dlqs },
      { dynamodb: aws.dynamodb, sqs: aws.sqs },
    );

    const failing = results.filter((result) => !result.holds).map((result) => result.name);
    expect(failing).toEqual(
      expect.arrayContaining([
        'each balance = sum of its distinct payments',
        'exactly one ledger entry per payment',
        'no SKU below zero',
        'reserved + available = seeded stock',
        'every malformed message in a DLQ with its reason',
      ]),
    );
  });
});
