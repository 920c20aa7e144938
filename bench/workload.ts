import { randomUUID } from 'node:crypto';
import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { InboxAttribute } from '../src/index.js';

/** A payment event: credits `amountCents` to an account and records the payment. */
export interface Payment {
  eventId: string;
  accountId: string;
  paymentId: string;
  amountCents: number;
}

/** The shape of a run: how many messages, how many of them copies, over how many accounts. */
export interface WorkloadShape {
  readonly messages: number;
  readonly duplicateRate: number;
  readonly accounts: number;
}

/**
 * The records of a run: distinct payments plus `duplicateRate` of them sent again as new SQS
 * messages, in a fixed interleave so that copies arrive spread over the run (some in the batch
 * of their original). The same for every variant.
 *
 * @example
 * ```ts
 * const { records, distinct } = makeRecords({ messages: 2000, duplicateRate: 0.2, accounts: 50 });
 * ```
 */
export function makeRecords(shape: WorkloadShape): { records: SQSRecord[]; distinct: Payment[] } {
  const duplicateCount = Math.round(shape.messages * shape.duplicateRate);
  const distinct: Payment[] = Array.from({ length: shape.messages - duplicateCount }, (_, i) => ({
    eventId: `evt-${i}`,
    accountId: `acc-${i % shape.accounts}`,
    paymentId: `pay-${i}`,
    amountCents: 100 + (i % 900),
  }));
  const bodies = [
    ...distinct,
    ...Array.from(
      { length: duplicateCount },
      (_, i) => distinct[(i * 7919) % distinct.length] as Payment,
    ),
  ];
  const order = bodies
    .map((_, i) => i)
    .sort((x, y) => ((x * 2654435761) % 4093) - ((y * 2654435761) % 4093));
  return { records: order.map((i) => toRecord(bodies[i] as Payment)), distinct };
}

function toRecord(body: Payment): SQSRecord {
  const messageId = randomUUID();
  return {
    messageId,
    receiptHandle: messageId,
    body: JSON.stringify(body),
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: '0',
      SenderId: 'bench',
      ApproximateFirstReceiveTimestamp: '0',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:bench',
    awsRegion: 'us-east-1',
  };
}

/** The tables of one run: business tables, the inbox, and Powertools' idempotency table. */
export interface BenchTables {
  readonly inbox: string;
  readonly accounts: string;
  readonly ledger: string;
  readonly idempotency: string;
}

/**
 * Creates a fresh set of tables, so that no run sees another's items.
 *
 * @example
 * ```ts
 * const tables = await createTables(client);
 * ```
 */
export async function createTables(client: DynamoDBClient): Promise<BenchTables> {
  const run = randomUUID().slice(0, 8);
  const keys: Record<keyof BenchTables, string> = {
    inbox: InboxAttribute.PartitionKey,
    accounts: 'accountId',
    ledger: 'paymentId',
    idempotency: 'id',
  };
  const tables = Object.fromEntries(
    Object.keys(keys).map((table) => [table, `bench-${table}-${run}`]),
  ) as unknown as BenchTables;
  await Promise.all(
    (Object.entries(keys) as Array<[keyof BenchTables, string]>).map(([table, key]) =>
      client.send(
        new CreateTableCommand({
          TableName: tables[table],
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [{ AttributeName: key, AttributeType: 'S' }],
          KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
        }),
      ),
    ),
  );
  return tables;
}
