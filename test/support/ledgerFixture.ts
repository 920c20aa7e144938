import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import {
  DynamoDBInboxStore,
  type InboxEntry,
  inboxPk,
  type MessageHandler,
} from '../../src/index.js';
import type { TestAws } from '../harness/aws.js';

/** The payment event of the test ledger. */
export const PaymentCaptured = z.object({
  eventId: z.string().min(1),
  accountId: z.string().min(1),
  paymentId: z.string().min(1),
  amountCents: z.number().int().positive(),
});
export type PaymentCaptured = z.infer<typeof PaymentCaptured>;

/** A payment event with fresh ids. */
export function payment(overrides: Partial<PaymentCaptured> = {}): PaymentCaptured {
  return {
    eventId: `evt-${randomUUID()}`,
    accountId: 'acc-1',
    paymentId: `pay-${randomUUID()}`,
    amountCents: 1250,
    ...overrides,
  };
}

/**
 * A small ledger over real tables: an inbox, accounts (balance) and ledger entries, plus a
 * stock table for condition tests. Every table is removed by `aws.cleanup()`.
 */
export async function createLedger(aws: TestAws) {
  const [inboxTable, accounts, entries, stock] = await Promise.all([
    aws.createInboxTable(aws.uniqueName('inbox')),
    aws.createTable(aws.uniqueName('accounts'), [['accountId', 'HASH']]),
    aws.createTable(aws.uniqueName('ledger'), [['paymentId', 'HASH']]),
    aws.createTable(aws.uniqueName('stock'), [['sku', 'HASH']]),
  ]);
  const store = new DynamoDBInboxStore({ tableName: inboxTable, client: aws.dynamodb });

  const applyPayment: MessageHandler<PaymentCaptured> = async ({ body }, tx) => {
    tx.update({
      TableName: accounts,
      Key: { accountId: body.accountId },
      UpdateExpression: 'ADD balanceCents :amount',
      ExpressionAttributeValues: { ':amount': body.amountCents },
    });
    tx.put({
      TableName: entries,
      Item: { paymentId: body.paymentId, accountId: body.accountId, amountCents: body.amountCents },
    });
  };

  return {
    store,
    tables: { inbox: inboxTable, accounts, entries, stock },
    applyPayment,
    async balanceOf(accountId: string): Promise<number> {
      const { Item } = await aws.documentClient.send(
        new GetCommand({ TableName: accounts, Key: { accountId }, ConsistentRead: true }),
      );
      return Number(Item?.balanceCents ?? 0);
    },
    async ledgerEntry(paymentId: string) {
      const { Item } = await aws.documentClient.send(
        new GetCommand({ TableName: entries, Key: { paymentId }, ConsistentRead: true }),
      );
      return Item;
    },
    async inboxEntry(consumer: string, key: string): Promise<InboxEntry | undefined> {
      const { Item } = await aws.documentClient.send(
        new GetCommand({
          TableName: inboxTable,
          Key: { pk: inboxPk(consumer, key) },
          ConsistentRead: true,
        }),
      );
      return Item as InboxEntry | undefined;
    },
    async setStock(sku: string, available: number): Promise<void> {
      await aws.documentClient.send(new PutCommand({ TableName: stock, Item: { sku, available } }));
    },
    async stockOf(sku: string): Promise<number> {
      const { Item } = await aws.documentClient.send(
        new GetCommand({ TableName: stock, Key: { sku }, ConsistentRead: true }),
      );
      return Number(Item?.available);
    },
  };
}

export type Ledger = Awaited<ReturnType<typeof createLedger>>;
