import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSRecord } from 'aws-lambda';
import { modelLatency, newTally, type Tally } from './latencyModel.js';
import type { Variant } from './variants.js';
import { type BenchTables, createTables, type Payment } from './workload.js';

/** One measured run of a variant at a batch size. */
export interface CaseResult {
  readonly variant: string;
  readonly batchSize: number;
  readonly seconds: number;
  readonly messages: number;
  readonly newMessages: number;
  /** Records reported failed and delivered again (SQS would), in later batches. */
  readonly redelivered: number;
  readonly tally: Tally;
  readonly balanceCorrect: boolean;
}

/** Everything a run needs besides the variant. */
export interface CaseSettings {
  readonly endpoint: string;
  readonly records: readonly SQSRecord[];
  readonly distinct: readonly Payment[];
  readonly accounts: number;
  readonly batchSize: number;
  /** Batches in flight at once: concurrent Lambda invocations. */
  readonly lambdas: number;
  /** Multiplies the modelled latency (0: none). */
  readonly latencyScale: number;
}

const REDELIVERY_ROUNDS = 5;

/**
 * Runs the workload through a variant on fresh tables: `lambdas` invocations take batches off
 * one queue; records a batch reports failed are delivered again in later batches, as SQS does,
 * until none fails. The clock runs from the first batch to the last answer.
 *
 * @example
 * ```ts
 * const result = await runCase(VARIANTS.inbox, settings);
 * ```
 */
export async function runCase(variant: Variant, settings: CaseSettings): Promise<CaseResult> {
  const clientConfig: DynamoDBClientConfig = {
    endpoint: settings.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  };
  const setupClient = new DynamoDBClient(clientConfig);
  const tables = await createTables(setupClient);
  const tally = newTally();
  const client = new DynamoDBClient(clientConfig);
  const instrument = (target: Pick<DynamoDBClient, 'middlewareStack'>) =>
    modelLatency(target as DynamoDBClient, settings.latencyScale, tally);
  instrument(client);
  const handler = variant.build({ tables, client, clientConfig, instrument });
  const started = performance.now();
  let pending = [...settings.records];
  let redelivered = 0;
  for (let round = 0; pending.length > 0 && round < REDELIVERY_ROUNDS; round++) {
    pending = await deliver(pending, handler, settings);
    redelivered += pending.length;
  }
  if (pending.length > 0)
    throw new Error(`${variant.name}: ${pending.length} records never settled`);
  const seconds = (performance.now() - started) / 1000;
  const balanceCorrect =
    (await totalBalance(setupClient, tables, settings.accounts)) ===
    settings.distinct.reduce((sum, payment) => sum + payment.amountCents, 0);
  client.destroy();
  setupClient.destroy();
  return {
    variant: variant.name,
    batchSize: settings.batchSize,
    seconds,
    messages: settings.records.length,
    newMessages: settings.distinct.length,
    redelivered,
    tally,
    balanceCorrect,
  };
}

/** One pass over the records in batches, `lambdas` at a time; the records reported failed. */
async function deliver(
  records: readonly SQSRecord[],
  handler: ReturnType<Variant['build']>,
  settings: CaseSettings,
): Promise<SQSRecord[]> {
  const batches: SQSRecord[][] = [];
  for (let at = 0; at < records.length; at += settings.batchSize) {
    batches.push(records.slice(at, at + settings.batchSize));
  }
  const failed: SQSRecord[] = [];
  let next = 0;
  const invocation = async () => {
    while (next < batches.length) {
      const batch = batches[next++] ?? [];
      const response = await handler({ Records: batch }, lambdaContext());
      const ids = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
      failed.push(...batch.filter((record) => ids.has(record.messageId)));
    }
  };
  await Promise.all(Array.from({ length: settings.lambdas }, invocation));
  return failed;
}

function lambdaContext(): Context {
  const deadline = Date.now() + 60_000;
  return {
    functionName: 'bench',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:bench',
    memoryLimitInMB: '1024',
    awsRequestId: crypto.randomUUID(),
    logGroupName: '/aws/lambda/bench',
    logStreamName: 'bench',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => deadline - Date.now(),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

async function totalBalance(
  client: DynamoDBClient,
  tables: BenchTables,
  accounts: number,
): Promise<number> {
  const documents = DynamoDBDocumentClient.from(client);
  let total = 0;
  for (let i = 0; i < accounts; i++) {
    const { Item } = await documents.send(
      new GetCommand({
        TableName: tables.accounts,
        Key: { accountId: `acc-${i}` },
        ConsistentRead: true,
      }),
    );
    total += Number(Item?.balanceCents ?? 0);
  }
  return total;
}
