/**
 * Throughput benchmark: the same SQS batches through (a) a bare handler that applies the same
 * business writes without deduplication and (b) sqs-inbox, on the same emulator in the same
 * run, and (d) sqs-inbox with one step (its lease claim and journal write). Prints messages/s,
 * DynamoDB requests per message and the ratios. A script that prints figures, not a test:
 * nothing here asserts on time.
 *
 *   npm run bench -- --messages 2000 --duplicates 0.2
 */
import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { Command } from 'commander';
import pLimit from 'p-limit';
import {
  createBatchProcessor,
  DynamoDBInboxStore,
  InboxAttribute,
  type InboxLogger,
  type TransactionBuilder,
} from '../src/index.js';
import { numberIn, shareBelowOne } from '../tools/cli/optionParsers.js';
import { runCommand } from '../tools/cli/runCommand.js';
import { startEmulator } from '../tools/emulator/emulator.js';
import { recordCommands } from '../tools/sdk/clientSpy.js';

// The machines run Node 20 while Lambda runs 22: the SDK's reminder about that is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const {
  messages,
  duplicates: duplicateRate,
  accounts,
  batchSize,
  concurrency,
} = new Command('npm run bench --')
  .description(
    'Throughput of a bare handler and of sqs-inbox on the same emulator, in the same run: messages/s, DynamoDB requests per message, ratio.',
  )
  .option('--messages <n>', 'messages per measured run', numberIn('--messages', 1), 2000)
  .option(
    '--duplicates <rate>',
    'share of messages that are copies',
    shareBelowOne('--duplicates'),
    0.2,
  )
  .option('--accounts <n>', 'accounts the payments spread over', numberIn('--accounts', 1), 50)
  .option('--batch-size <n>', 'records per batch', numberIn('--batch-size', 1), 10)
  .option('--concurrency <n>', 'batches at once', numberIn('--concurrency', 1), 10)
  .parse()
  .opts<{
    messages: number;
    duplicates: number;
    accounts: number;
    batchSize: number;
    concurrency: number;
  }>();

interface Payment {
  eventId: string;
  accountId: string;
  paymentId: string;
  amountCents: number;
}

const silent: InboxLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** N records: distinct payments plus `duplicateRate` of them sent again as new SQS messages. */
function makeRecords(): { records: SQSRecord[]; distinct: Payment[] } {
  const duplicateCount = Math.round(messages * duplicateRate);
  const distinct: Payment[] = Array.from({ length: messages - duplicateCount }, (_, i) => ({
    eventId: `evt-${i}`,
    accountId: `acc-${i % accounts}`,
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
  // Deterministic interleave so duplicates arrive spread over the run.
  const order = bodies
    .map((_, i) => i)
    .sort((x, y) => ((x * 2654435761) % 4093) - ((y * 2654435761) % 4093));
  const records = order.map((i) => toRecord(bodies[i] as Payment));
  return { records, distinct };
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

function batches(records: SQSRecord[]): SQSEvent[] {
  const events: SQSEvent[] = [];
  for (let i = 0; i < records.length; i += batchSize)
    events.push({ Records: records.slice(i, i + batchSize) });
  return events;
}

async function createTables(client: DynamoDBClient, run: string) {
  const names = {
    inbox: `bench-inbox-${run}`,
    accounts: `bench-accounts-${run}`,
    ledger: `bench-ledger-${run}`,
  };
  const keyOf = {
    inbox: InboxAttribute.PartitionKey,
    accounts: 'accountId',
    ledger: 'paymentId',
  } as const;
  for (const [table, name] of Object.entries(names)) {
    const key = keyOf[table as keyof typeof keyOf];
    await client.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: key, AttributeType: 'S' }],
        KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
      }),
    );
  }
  return names;
}

function businessWrites(
  tables: { accounts: string; ledger: string },
  body: Payment,
  tx: Pick<TransactionBuilder, 'put' | 'update'>,
) {
  tx.update({
    TableName: tables.accounts,
    Key: { accountId: body.accountId },
    UpdateExpression: 'ADD balanceCents :amount',
    ExpressionAttributeValues: { ':amount': body.amountCents },
  });
  tx.put({
    TableName: tables.ledger,
    Item: { paymentId: body.paymentId, accountId: body.accountId, amountCents: body.amountCents },
  });
}

async function runBare(
  client: DynamoDBClient,
  events: SQSEvent[],
  tables: { accounts: string; ledger: string },
) {
  const documentClient = DynamoDBDocumentClient.from(client);
  for (const event of events) {
    const limit = pLimit(concurrency);
    await Promise.all(
      event.Records.map((record) =>
        limit(async () => {
          const items: NonNullable<
            ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']
          > = [];
          businessWrites(tables, JSON.parse(record.body) as Payment, {
            put: (input) => items.push({ Put: input }) as never,
            update: (input) => items.push({ Update: input }) as never,
          });
          await documentClient.send(new TransactWriteCommand({ TransactItems: items }));
        }),
      ),
    );
  }
}

async function runInbox(
  client: DynamoDBClient,
  events: SQSEvent[],
  tables: { inbox: string; accounts: string; ledger: string },
  precheck: boolean,
  withStep = false,
) {
  const store = new DynamoDBInboxStore({ tableName: tables.inbox, client });
  const processor = createBatchProcessor(
    async ({ body, step }, tx) => {
      // An effect outside DynamoDB would run here; the step's cost is its lease and journal.
      if (withStep) await step('notify', ({ idempotencyKey }) => ({ idempotencyKey }));
      businessWrites(tables, body as Payment, tx);
    },
    {
      store,
      consumer: 'bench',
      key: ({ body }) => (body as Payment).eventId,
      concurrency,
      precheck,
      logger: silent,
    },
  );
  // A copy that finds its twin's lease held (steps only) is reported failed, and SQS delivers
  // it again later: here, after the run, once its twin committed.
  const redelivered: SQSRecord[] = [];
  for (const event of events) {
    const response = await processor.process(event);
    const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
    redelivered.push(...event.Records.filter((record) => failed.has(record.messageId)));
  }
  const again = await processor.process({ Records: redelivered });
  if (again.batchItemFailures.length > 0 || (!withStep && redelivered.length > 0))
    throw new Error(`unexpected failures: ${JSON.stringify(again)}`);
  return redelivered.length;
}

async function totalBalance(client: DynamoDBClient, table: string): Promise<number> {
  const documentClient = DynamoDBDocumentClient.from(client);
  let total = 0;
  for (let i = 0; i < accounts; i++) {
    const { Item } = await documentClient.send(
      new GetCommand({ TableName: table, Key: { accountId: `acc-${i}` }, ConsistentRead: true }),
    );
    total += Number(Item?.balanceCents ?? 0);
  }
  return total;
}

async function measure(
  name: string,
  endpoint: string,
  run: (
    client: DynamoDBClient,
    tables: Awaited<ReturnType<typeof createTables>>,
  ) => Promise<number | undefined>,
) {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const tables = await createTables(client, randomUUID().slice(0, 8));
  const sent = recordCommands(client);
  const started = performance.now();
  const redelivered = (await run(client, tables)) ?? 0;
  const seconds = (performance.now() - started) / 1000;
  const requests = sent.length;
  const balance = await totalBalance(client, tables.accounts);
  client.destroy();
  return {
    name,
    seconds,
    messagesPerSecond: messages / seconds,
    requestsPerMessage: requests / messages,
    redelivered,
    balance,
  };
}

async function main(): Promise<number> {
  const emulator = await startEmulator(['dynamodb']);
  const { records, distinct } = makeRecords();
  const events = batches(records);
  const expected = distinct.reduce((sum, p) => sum + p.amountCents, 0);
  console.log(
    `sqs-inbox benchmark on ${emulator.name}: ${messages} messages (${Math.round(duplicateRate * 100)}% duplicates), batches of ${batchSize}, concurrency ${concurrency}`,
  );
  await measure('warm-up', emulator.endpoint, (client, tables) =>
    runInbox(client, events.slice(0, 5), tables, true),
  );
  const bare = await measure('(a) bare handler, no dedup', emulator.endpoint, (client, tables) =>
    runBare(client, events, tables).then(() => 0),
  );
  const inbox = await measure('(b) sqs-inbox', emulator.endpoint, (client, tables) =>
    runInbox(client, events, tables, true),
  );
  const noPrecheck = await measure(
    '(c) sqs-inbox, precheck off',
    emulator.endpoint,
    (client, tables) => runInbox(client, events, tables, false),
  );
  const oneStep = await measure('(d) sqs-inbox, one step', emulator.endpoint, (client, tables) =>
    runInbox(client, events, tables, true, true),
  );
  console.table(
    [bare, inbox, noPrecheck, oneStep].map((r) => ({
      run: r.name,
      'messages/s': Number(r.messagesPerSecond.toFixed(1)),
      'DynamoDB requests/message': Number(r.requestsPerMessage.toFixed(3)),
      seconds: Number(r.seconds.toFixed(2)),
      redelivered: r.redelivered,
      'balance correct': r.balance === expected ? 'yes' : `no (${r.balance} vs ${expected})`,
    })),
  );
  console.log(
    `ratio b/a (throughput): ${(inbox.messagesPerSecond / bare.messagesPerSecond).toFixed(3)}`,
  );
  console.log(
    `ratio c/a (throughput): ${(noPrecheck.messagesPerSecond / bare.messagesPerSecond).toFixed(3)}`,
  );
  console.log(
    `ratio d/b (throughput): ${(oneStep.messagesPerSecond / inbox.messagesPerSecond).toFixed(3)}`,
  );
  console.log(
    '(a) applies duplicates again, so its balance is expected to be wrong: that is what the inbox prevents.',
  );
  return 0;
}

await runCommand('npm run bench', main);
