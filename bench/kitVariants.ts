import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSRecord } from 'aws-lambda';
import { LedgerTable, ledgerConsumer } from '../functions/ledger/paymentCaptured.js';
import { businessTableVariable, InboxEnvironment } from '../src/constants/index.js';
import {
  type BatchProcessor,
  createBatchProcessor,
  type InboxEnvironmentConfig,
  type InboxLogger,
  inboxConfigFromEnvironment,
  type RecordStatus,
} from '../src/index.js';
import {
  InboxTest,
  InMemoryDynamoDB,
  InMemoryQueues,
  lambdaContext,
} from '../src/testing/index.js';
import type { LedgerObservation } from './checkLedger.js';
import { type BenchTables, createTables } from './workload.js';

/** One run of the ledger on fresh tables: deliver batches, then read what they left. */
export interface LedgerRun {
  /** Delivers one batch as Lambda would; the status of each of its records. */
  readonly deliver: (batch: readonly SQSRecord[]) => Promise<readonly RecordStatus[]>;
  /** The ledger's tables as they stand, scanned through the run's own document client. */
  readonly read: () => Promise<Omit<LedgerObservation, 'statuses'>>;
  readonly close: () => void;
}

/** A DynamoDB the reference ledger can run on: its name in the table, and how to start a run. */
export interface KitVariant {
  readonly name: string;
  readonly label: string;
  /** Builds fresh tables and the ledger's processor over them; `endpoint` is the emulator's. */
  readonly start: (endpoint: string) => Promise<LedgerRun>;
}

const CONSUMER = 'ledger';
const TTL_SECONDS = 23 * 86_400;
const DEAD_LETTER_QUEUE = 'ledger-dlq.fifo';
const silent: InboxLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** Where Powertools' logger and metrics were: a logger that drops every line, and no metrics. */
const WITHOUT_POWERTOOLS = { observability: { logger: silent, metrics: false as const } };

/**
 * The reference ledger's processor as `functions/shared/createInboxHandler.ts` builds it from
 * the construct's environment — `ledgerConsumer`'s schema, key and handler over the inbox
 * options — with `observability` of its own in place of Powertools'.
 */
function ledgerProcessor(
  inbox: InboxEnvironmentConfig,
  client: DynamoDBDocumentClient,
  observability: typeof WITHOUT_POWERTOOLS | Record<string, never> = WITHOUT_POWERTOOLS,
): BatchProcessor {
  const destination = (name: string) => inbox.destinations[name];
  return createBatchProcessor(ledgerConsumer.handler(inbox.table, client, destination), {
    ...inbox.options,
    schema: ledgerConsumer.schema,
    key: ledgerConsumer.key,
    ...observability,
  });
}

/** The environment the InboxConsumer construct gives the ledger, naming a run's tables. */
function ledgerEnvironment(tables: BenchTables, deadLetterQueueUrl: string) {
  return {
    [InboxEnvironment.TableName]: tables.inbox,
    [InboxEnvironment.Consumer]: CONSUMER,
    [InboxEnvironment.TtlSeconds]: String(TTL_SECONDS),
    [InboxEnvironment.DeadLetterQueueUrl]: deadLetterQueueUrl,
    [InboxEnvironment.MaxReceiveCount]: '5',
    [businessTableVariable(LedgerTable.Accounts)]: tables.accounts,
    [businessTableVariable(LedgerTable.Entries)]: tables.ledger,
  };
}

/** A run whose processor answers `processRecords`, with a fresh Lambda context per batch. */
function processorRun(
  processor: BatchProcessor,
  documents: DynamoDBDocumentClient,
  tables: { readonly accounts: string; readonly entries: string },
  close: () => void,
): LedgerRun {
  return {
    deliver: async (batch) => {
      const outcomes = await processor.processRecords({ Records: batch }, lambdaContext());
      return outcomes.map((outcome) => outcome.status);
    },
    read: () => readLedger(documents, tables),
    close,
  };
}

/** The testing kit as its README shows it: `InboxTest`, its `documentClient`, `run`. */
const kit: KitVariant = {
  name: 'kit',
  label: 'sqs-inbox/testing: InboxTest, the in-memory documentClient',
  start: async () => {
    const inbox = new InboxTest({
      consumer: CONSUMER,
      tables: [
        { tableName: LedgerTable.Accounts, partitionKey: 'accountId' },
        { tableName: LedgerTable.Entries, partitionKey: 'paymentId' },
      ],
    });
    // The harness's own logger, tracer and runtime come in inboxConfig()'s options: kept.
    const processor = ledgerProcessor(inbox.inboxConfig(), inbox.dynamo.documentClient, {});
    const tables = { accounts: LedgerTable.Accounts, entries: LedgerTable.Entries };
    const context = (): Context => inbox.context();
    return {
      deliver: async (batch) => {
        const run = await inbox.run(processor, batch, { context: context() });
        return run.records.map((record) => record.status);
      },
      read: () => readLedger(inbox.dynamo.documentClient, tables),
      close: () => {},
    };
  },
};

/** The kit's in-memory DynamoDB behind the SDK's own client, as other libraries get it. */
const sdkClient: KitVariant = {
  name: 'kit-sdk',
  label: 'sqs-inbox/testing: InMemoryDynamoDB.client in DynamoDBDocumentClient.from',
  start: async () => {
    const dynamo = new InMemoryDynamoDB();
    const queues = new InMemoryQueues();
    const tables = await createTables(dynamo.client);
    const documents = DynamoDBDocumentClient.from(dynamo.client);
    const env = ledgerEnvironment(tables, queues.createQueue(DEAD_LETTER_QUEUE));
    const config = inboxConfigFromEnvironment({
      env,
      dynamoDBClient: documents,
      sqsClient: queues.client,
    });
    const processor = ledgerProcessor(config, documents);
    return processorRun(processor, documents, ledgerTables(tables), () => {});
  },
};

/** The emulator the project's tests run on, through a real SDK client over HTTP. */
const emulator: KitVariant = {
  name: 'emulator',
  label: 'the emulator, a DynamoDBClient at its endpoint',
  start: async (endpoint) => {
    const client = new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    const tables = await createTables(client);
    const documents = DynamoDBDocumentClient.from(client);
    // No dead letter is sent in a run that is right: the queue need not exist.
    const queueUrl = `https://sqs.us-east-1.amazonaws.com/000000000000/${DEAD_LETTER_QUEUE}`;
    const config = inboxConfigFromEnvironment({
      env: ledgerEnvironment(tables, queueUrl),
      dynamoDBClient: documents,
    });
    const processor = ledgerProcessor(config, documents);
    return processorRun(processor, documents, ledgerTables(tables), () => client.destroy());
  },
};

function ledgerTables(tables: BenchTables) {
  return { accounts: tables.accounts, entries: tables.ledger };
}

/** Every item of the ledger's two tables, page by page, each read consistent. */
async function readLedger(
  documents: DynamoDBDocumentClient,
  tables: { readonly accounts: string; readonly entries: string },
): Promise<Omit<LedgerObservation, 'statuses'>> {
  const scan = async (tableName: string) => {
    const items: Array<Record<string, unknown>> = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await documents.send(
        new ScanCommand({
          TableName: tableName,
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      items.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey !== undefined);
    return items;
  };
  return { accounts: await scan(tables.accounts), entries: await scan(tables.entries) };
}

/**
 * The DynamoDBs `npm run bench:kit` compares, the emulator last: the baseline of the ratios.
 *
 * @example
 * ```ts
 * const run = await KIT_VARIANTS[0].start(emulator.endpoint);
 * ```
 */
export const KIT_VARIANTS: readonly KitVariant[] = [kit, sdkClient, emulator];
