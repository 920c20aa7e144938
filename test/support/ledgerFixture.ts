import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { z } from 'zod';
import { inboxPk } from '../../src/constants/index.js';
import {
  createBatchProcessor,
  DynamoDBInboxStore,
  type InboxOptions,
  type MessageHandler,
  type TransactionBuilder,
} from '../../src/index.js';
import type { InboxEntry } from '../../src/types.js';
import { recordCommands } from '../../tools/sdk/clientSpy.js';
import { type TestAws, testAws } from '../harness/aws.js';
import { recordingLogger } from './sqsRecords.js';
import { withOptions } from './withOptions.js';

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
 * stock table for condition tests. `useLedger()` names them at once, creates them before the
 * file's tests and removes them after, so a test file starts with one line.
 */
/**
 * A processor of the test ledger's payments, keyed by event id, logging to a recording logger:
 * `options` adds or overrides what a test is about.
 */
export function ledgerProcessor(
  handler: MessageHandler<PaymentCaptured>,
  options: Pick<InboxOptions<typeof PaymentCaptured>, 'store' | 'consumer'> &
    Partial<InboxOptions<typeof PaymentCaptured>>,
) {
  return createBatchProcessor(
    handler,
    withOptions<InboxOptions<typeof PaymentCaptured>>(
      {
        ...options,
        schema: PaymentCaptured,
        key: ({ body }) => body.eventId,
        observability: { logger: recordingLogger() },
      },
      options,
    ),
  );
}

export function useLedger(aws: TestAws = testAws()) {
  const ledger = defineLedger(aws);
  beforeAll(() => ledger.createTables());
  afterAll(() => aws.cleanup());
  return { aws, ledger };
}

function defineLedger(aws: TestAws) {
  const tables = {
    inbox: aws.uniqueName('inbox'),
    accounts: aws.uniqueName('accounts'),
    entries: aws.uniqueName('ledger'),
    stock: aws.uniqueName('stock'),
  };
  const { accounts, entries, stock } = tables;
  const store = new DynamoDBInboxStore({ tableName: tables.inbox, client: aws.dynamodb });
  /** Credits the payment's account in the message's transaction. */
  const credit = (body: PaymentCaptured, tx: TransactionBuilder): void => {
    tx.update({
      TableName: accounts,
      Key: { accountId: body.accountId },
      UpdateExpression: 'ADD balanceCents :amount',
      ExpressionAttributeValues: { ':amount': body.amountCents },
    });
  };
  const applyPayment: MessageHandler<PaymentCaptured> = async ({ body }, tx) => {
    credit(body, tx);
    tx.put({
      TableName: entries,
      Item: { paymentId: body.paymentId, accountId: body.accountId, amountCents: body.amountCents },
    });
  };

  return {
    store,
    tables,
    async createTables(): Promise<void> {
      await Promise.all([
        aws.createInboxTable(tables.inbox),
        aws.createTable(accounts, [['accountId', 'HASH']]),
        aws.createTable(entries, [['paymentId', 'HASH']]),
        aws.createTable(stock, [['sku', 'HASH']]),
      ]);
    },
    applyPayment,
    credit,
    /**
     * A store on a client of its own (a fresh one per call), its commands recorded: a test can
     * count what it sent and inject faults into it without touching the shared client.
     */
    ownStore() {
      const client = new DynamoDBClient({
        endpoint: aws.endpoints.dynamodb,
        region: 'us-east-1',
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      });
      const sent = recordCommands(client);
      return { client, sent, store: new DynamoDBInboxStore({ tableName: tables.inbox, client }) };
    },
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
          TableName: tables.inbox,
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

export type Ledger = ReturnType<typeof defineLedger>;
