import { randomUUID } from 'node:crypto';
import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { InboxAttribute } from '../src/constants/index.js';

/** A payment event: credits `amountCents` to an account and records the payment. */
export interface Payment {
  eventId: string;
  accountId: string;
  paymentId: string;
  amountCents: number;
}

/**
 * The shape of a run: how many messages, how many of them copies, over how many accounts, and
 * what share of the payments goes to one hot account.
 */
export interface WorkloadShape {
  readonly messages: number;
  readonly duplicateRate: number;
  readonly accounts: number;
  /**
   * The share of payments credited to {@link HOT_ACCOUNT} (a merchant), the rest spread over the
   * other accounts; 0 (the default) spreads every payment evenly over all accounts.
   */
  readonly hotShare?: number;
}

/** The account a hot share of the payments goes to. */
export const HOT_ACCOUNT = 'acc-0';

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
    accountId: accountOf(i, shape),
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

/**
 * The account of the i-th distinct payment: with a hot share, payment i is hot when the running
 * count of hot payments, ⌊(i + 1) × share⌋, steps up at i, so hot payments are spread evenly
 * through the run; a cold one goes to the other accounts in turn.
 */
function accountOf(i: number, shape: WorkloadShape): string {
  const share = shape.hotShare ?? 0;
  if (share === 0) return `acc-${i % shape.accounts}`;
  const hotBefore = Math.floor(i * share);
  const hot = Math.floor((i + 1) * share) > hotBefore;
  if (hot || shape.accounts === 1) return HOT_ACCOUNT;
  return `acc-${1 + ((i - hotBefore) % (shape.accounts - 1))}`;
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

/** Each bench table's key: a partition key alone, a string. */
const PARTITION_KEYS: Record<keyof BenchTables, string> = {
  inbox: InboxAttribute.PartitionKey,
  accounts: 'accountId',
  ledger: 'paymentId',
  idempotency: 'id',
};

/**
 * The key attributes of a run's tables, by table name: what tells which item a `Put` writes.
 *
 * @example
 * ```ts
 * keyAttributesOf(tables).get(tables.accounts); // => ['accountId']
 * ```
 */
export function keyAttributesOf(tables: BenchTables): ReadonlyMap<string, readonly string[]> {
  return new Map(
    (Object.entries(PARTITION_KEYS) as Array<[keyof BenchTables, string]>).map(([table, key]) => [
      tables[table],
      [key],
    ]),
  );
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
  const tables = Object.fromEntries(
    Object.keys(PARTITION_KEYS).map((table) => [table, `bench-${table}-${run}`]),
  ) as unknown as BenchTables;
  await Promise.all(
    (Object.entries(PARTITION_KEYS) as Array<[keyof BenchTables, string]>).map(([table, key]) =>
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
