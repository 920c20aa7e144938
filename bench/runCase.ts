import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSRecord } from 'aws-lambda';
import { ConflictModel } from './conflictModel.js';
import { modelLatency, newTally, type Tally } from './latencyModel.js';
import type { Variant } from './variants.js';
import {
  type BenchTables,
  createTables,
  HOT_ACCOUNT,
  keyAttributesOf,
  type Payment,
} from './workload.js';

/** One measured run of a variant at a batch size. */
export interface CaseResult {
  readonly variant: string;
  readonly batchSize: number;
  readonly seconds: number;
  readonly messages: number;
  readonly newMessages: number;
  /** Records reported failed and delivered again (SQS would), in later batches. */
  readonly redelivered: number;
  /** Records still reported failed after the last delivery: SQS would move them to the DLQ. */
  readonly unresolved: number;
  /** Distinct payments to the hot account, and how many of them settled. */
  readonly hotPayments: number;
  readonly hotSettled: number;
  readonly tally: Tally;
  /**
   * Whether the balances add up to the payments that settled (a record acknowledged, the
   * original or a copy): each once, none of those never acknowledged. With every record
   * settled, that is every distinct payment.
   */
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
  /** Multiplies the modelled latency (0: none); Lambda's time is dilated by as much. */
  readonly latencyScale: number;
  /** Whether DynamoDB's transaction conflicts are modelled (records may then stay unresolved). */
  readonly conflicts: boolean;
}

/** Deliveries of a record before SQS moves it to the DLQ (`maxReceiveCount` 5). */
const DELIVERY_ROUNDS = 5;

/** The function timeout `InboxConsumer` gives a function unless told otherwise. */
const FUNCTION_TIMEOUT_MILLIS = 30_000;

/**
 * Runs the workload through a variant on fresh tables: `lambdas` invocations take batches off
 * one queue; records a batch reports failed are delivered again in later batches, as SQS does,
 * until none fails or each was delivered 5 times (then they are unresolved: with conflicts
 * modelled, reported; without, an error). The clock runs from the first batch to the last answer.
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
  const conflicts = settings.conflicts ? new ConflictModel(keyAttributesOf(tables)) : undefined;
  const client = new DynamoDBClient(clientConfig);
  const instrument = (target: Pick<DynamoDBClient, 'middlewareStack'>) =>
    modelLatency(target as DynamoDBClient, settings.latencyScale, tally, conflicts);
  instrument(client);
  const handler = variant.build({ tables, client, clientConfig, instrument });
  const started = performance.now();
  let pending = [...settings.records];
  let redelivered = 0;
  for (let round = 0; pending.length > 0 && round < DELIVERY_ROUNDS; round++) {
    if (round > 0) redelivered += pending.length;
    pending = await deliver(pending, handler, settings);
  }
  if (pending.length > 0 && !settings.conflicts)
    throw new Error(`${variant.name}: ${pending.length} records never settled`);
  const seconds = (performance.now() - started) / 1000;
  const settled = settledPayments(settings, pending);
  const expected = settings.distinct
    .filter((payment) => settled.has(payment.eventId))
    .reduce((sum, payment) => sum + payment.amountCents, 0);
  const balanceCorrect = (await totalBalance(setupClient, tables, settings.accounts)) === expected;
  const hot = settings.distinct.filter((payment) => payment.accountId === HOT_ACCOUNT);
  client.destroy();
  setupClient.destroy();
  return {
    variant: variant.name,
    batchSize: settings.batchSize,
    seconds,
    messages: settings.records.length,
    newMessages: settings.distinct.length,
    redelivered,
    unresolved: pending.length,
    hotPayments: hot.length,
    hotSettled: hot.filter((payment) => settled.has(payment.eventId)).length,
    tally,
    balanceCorrect,
  };
}

/** The event ids of the payments of which some record was acknowledged. */
function settledPayments(settings: CaseSettings, unresolved: readonly SQSRecord[]): Set<string> {
  const failed = new Set(unresolved.map((record) => record.messageId));
  return new Set(
    settings.records
      .filter((record) => !failed.has(record.messageId))
      .map((record) => (JSON.parse(record.body) as Payment).eventId),
  );
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
      failed.push(...(await failedRecords(batch, handler, settings.latencyScale)));
    }
  };
  await Promise.all(Array.from({ length: settings.lambdas }, invocation));
  return failed;
}

/**
 * The records of one batch reported failed; every record when the handler throws, as Lambda
 * then returns the whole batch to the queue (Powertools' batch processor throws when every
 * record of a batch failed).
 */
async function failedRecords(
  batch: SQSRecord[],
  handler: ReturnType<Variant['build']>,
  latencyScale: number,
): Promise<SQSRecord[]> {
  try {
    const response = await handler({ Records: batch }, lambdaContext(latencyScale));
    const ids = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
    return batch.filter((record) => ids.has(record.messageId));
  } catch {
    return batch;
  }
}

/**
 * A Lambda context whose remaining time is the construct's default function timeout, dilated
 * as the latency is scaled, so that a deadline means what it would in production.
 */
function lambdaContext(latencyScale: number): Context {
  const deadline = Date.now() + FUNCTION_TIMEOUT_MILLIS * Math.max(1, latencyScale);
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
