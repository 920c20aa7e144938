import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { DynamoDBClient, DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import {
  createBatchProcessor,
  DynamoDBInboxStore,
  type InboxLogger,
  Precheck,
  type TransactionBuilder,
} from '../src/index.js';
import type { PerformanceSettings } from '../src/types.js';
import type { BenchTables, Payment } from './workload.js';

/** A Lambda handler of one SQS batch, as a variant builds it for one run. */
export type BatchHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/**
 * What a variant gets to build its handler: the run's tables, a DynamoDB client with the
 * latency model, and `instrument`, to put the model on a client the variant's store builds.
 */
export interface VariantSetup {
  readonly tables: BenchTables;
  readonly client: DynamoDBClient;
  readonly clientConfig: DynamoDBClientConfig;
  readonly instrument: (client: Pick<DynamoDBClient, 'middlewareStack'>) => void;
}

/** A way of consuming the batches: its name in the table and how it builds its handler. */
export interface Variant {
  readonly name: string;
  readonly label: string;
  /** Whether it deduplicates: the balances must then be exact. */
  readonly deduplicates: boolean;
  readonly build: (setup: VariantSetup) => BatchHandler;
}

const silent: InboxLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** A condition that holds for every account (none has the attribute): it only stops merging. */
const ALWAYS_HOLDS = {
  ConditionExpression: 'attribute_not_exists(#frozen)',
  ExpressionAttributeNames: { '#frozen': 'frozen' },
} as const;

/**
 * The business writes of a payment: credit the account, record the payment.
 *
 * @example
 * ```ts
 * const { credit, record } = businessWrites(tables, payment);
 * tx.update(credit);
 * tx.put(record);
 * ```
 */
export function businessWrites(tables: BenchTables, body: Payment) {
  return {
    credit: {
      TableName: tables.accounts,
      Key: { accountId: body.accountId },
      UpdateExpression: 'ADD balanceCents :amount',
      ExpressionAttributeValues: { ':amount': body.amountCents },
    },
    record: {
      TableName: tables.ledger,
      Item: { paymentId: body.paymentId, accountId: body.accountId, amountCents: body.amountCents },
    },
  };
}

/**
 * The same writes, in one transaction with no deduplication: the floor of the business work.
 * A record whose transaction fails (a conflict, when modelled) is reported failed on its own.
 */
const bare: Variant = {
  name: 'bare',
  label: 'bare handler (business writes in one transaction, no dedup)',
  deduplicates: false,
  build: ({ client, tables }) => {
    const documents = DynamoDBDocumentClient.from(client);
    return async (event) => {
      const outcomes = await Promise.allSettled(
        event.Records.map((record) => {
          const { credit, record: entry } = businessWrites(tables, JSON.parse(record.body));
          return documents.send(
            new TransactWriteCommand({ TransactItems: [{ Update: credit }, { Put: entry }] }),
          );
        }),
      );
      const failed = event.Records.filter((_, at) => outcomes[at]?.status === 'rejected');
      return { batchItemFailures: failed.map((record) => ({ itemIdentifier: record.messageId })) };
    };
  },
};

/** How a variant of sqs-inbox differs from the default: a step, or credits that never merge. */
interface InboxShape {
  readonly withStep?: boolean;
  /**
   * A condition on each credit (one that always holds), as a debit with a balance check has:
   * a conditional update is never merged, so a hot account takes one message per transaction.
   */
  readonly conditionalCredits?: boolean;
}

/** sqs-inbox as a user gets it: its store builds its own client; only `overrides` differ. */
function inbox(
  name: string,
  label: string,
  performance: PerformanceSettings = {},
  shape: InboxShape = {},
): Variant {
  return {
    name,
    label,
    deduplicates: true,
    build: ({ tables, clientConfig, instrument }) => {
      const store = new DynamoDBInboxStore({ tableName: tables.inbox, clientConfig });
      const processor = createBatchProcessor(
        async ({ body, step }, tx: TransactionBuilder) => {
          if (shape.withStep) await step('notify', ({ idempotencyKey }) => ({ idempotencyKey }));
          const { credit, record } = businessWrites(tables, body as Payment);
          tx.update(shape.conditionalCredits ? { ...credit, ...ALWAYS_HOLDS } : credit);
          tx.put(record);
        },
        {
          store,
          consumer: 'bench',
          key: ({ body }) => (body as Payment).eventId,
          performance,
          observability: { logger: silent },
        },
      );
      instrument(store.client);
      return (event, context) => processor.process(event, context);
    },
  };
}

/**
 * Powertools idempotency with its batch processor, as its documentation pairs them: each
 * record made idempotent on the event id in its body, the business writes its own.
 */
function powertools(name: string, label: string, transactional: boolean): Variant {
  return {
    name,
    label,
    deduplicates: true,
    build: ({ client, tables }) => {
      const documents = DynamoDBDocumentClient.from(client);
      const persistenceStore = new DynamoDBPersistenceLayer({
        tableName: tables.idempotency,
        awsSdkV3Client: client,
      });
      const config = new IdempotencyConfig({ eventKeyJmesPath: 'powertools_json(body).eventId' });
      const recordHandler = async (record: SQSRecord) => {
        const { credit, record: entry } = businessWrites(tables, JSON.parse(record.body));
        if (transactional) {
          await documents.send(
            new TransactWriteCommand({ TransactItems: [{ Update: credit }, { Put: entry }] }),
          );
        } else {
          await documents.send(new UpdateCommand(credit));
          await documents.send(new PutCommand(entry));
        }
        return true;
      };
      const idempotent = makeIdempotent(recordHandler, { persistenceStore, config });
      return async (event, context) => {
        config.registerLambdaContext(context);
        // One processor per invocation, as one per Lambda instance is: a BatchProcessor keeps the
        // failures of the batch it is processing, so invocations in flight at once sharing one
        // would report each other's failures, or lose them.
        const processor = new BatchProcessor(EventType.SQS);
        return processPartialResponse(event, idempotent, processor, { context });
      };
    },
  };
}

/**
 * Every variant the benchmark knows, by name. The default run compares the first four.
 *
 * @example
 * ```ts
 * const handler = VARIANTS.inbox.build(setup);
 * ```
 */
export const VARIANTS = {
  bare,
  inbox: inbox('inbox', 'sqs-inbox, default (precheck concurrent)'),
  coalesced: inbox('coalesced', 'sqs-inbox, coalesce: true', { coalesce: true }),
  powertools: powertools('powertools', 'Powertools idempotency + batch (plain writes)', false),
  'powertools-tx': powertools(
    'powertools-tx',
    'Powertools idempotency + batch (writes in a transaction)',
    true,
  ),
  before: inbox('before', "sqs-inbox, precheck: 'before'", { precheck: Precheck.Before }),
  off: inbox('off', "sqs-inbox, precheck: 'off'", { precheck: Precheck.Off }),
  step: inbox('step', 'sqs-inbox, one step (lease claim + journal)', {}, { withStep: true }),
  conditional: inbox(
    'conditional',
    'sqs-inbox, default, credits conditional (never merged)',
    {},
    { conditionalCredits: true },
  ),
} as const satisfies Record<string, Variant>;

/** The name of a variant. */
export type VariantName = keyof typeof VARIANTS;
