import { ledgerConsumer } from '../../../functions/ledger/paymentCaptured.js';
import type { ConsumerDefinition } from '../../../functions/shared/ConsumerDefinition.js';
import { createBatchProcessor, DynamoDBInboxStore, type InboxLogger } from '../../../src/index.js';
import { COUNTERS_TABLE, counterConsumer } from '../../chaos/counterConsumer.js';
import { SimDocumentClient } from '../dynamo/SimDocumentClient.js';
import type { SimDynamoDB } from '../dynamo/SimDynamoDB.js';
import type { Kernel } from '../kernel/Kernel.js';
import type { FunctionFactory } from '../lambda/SimLambda.js';
import type { Network } from '../network/Network.js';
import type { SimQueue } from '../sqs/SimQueue.js';
import { simSqsClient } from '../sqs/SimSqsClient.js';
import { type WorldConfig, WorldConsumer } from './WorldConfig.js';

/** The tables of a world: the inbox and the consumers' business tables. */
export const WorldTables = {
  Inbox: 'inbox',
  Accounts: 'accounts',
  Entries: 'ledgerEntries',
  Counters: COUNTERS_TABLE,
} as const;

const DEFINITIONS: Record<WorldConsumer, ConsumerDefinition<never>> = {
  [WorldConsumer.Ledger]: ledgerConsumer as unknown as ConsumerDefinition<never>,
  [WorldConsumer.Counter]: counterConsumer as unknown as ConsumerDefinition<never>,
};

/**
 * The consumer's function as the construct deploys it — the real batch processor, store,
 * transaction builder, dead-letter publisher and the consumer's handler — built in a simulated
 * container whose DynamoDB and SQS clients send through the simulated network.
 *
 * @example
 * ```ts
 * const lambda = new SimLambda(kernel, random, config, consumerFunction({ kernel, dynamo, network, deadLetterQueue, config }));
 * ```
 */
export function consumerFunction(world: {
  readonly kernel: Kernel;
  readonly dynamo: SimDynamoDB;
  readonly network: Network;
  readonly deadLetterQueue: SimQueue;
  readonly config: WorldConfig;
}): FunctionFactory {
  const { kernel, dynamo, network, deadLetterQueue, config } = world;
  const definition = DEFINITIONS[config.consumer];
  return ({ actor, runtime, caller }) => {
    const client = new SimDocumentClient({
      dynamo,
      transport: (operation) =>
        network.call(caller, 'dynamodb', operation.name, operation.apply, {
          ...(operation.name === 'TransactWriteItems'
            ? { conflict: () => dynamo.cancelledBy(operation.input, 0, 'TransactionConflict') }
            : {}),
          throttle: () => dynamo.throttled(operation.name),
        }),
    });
    const table = (name: string) => name;
    const processor = createBatchProcessor(definition.handler(table, client.documentClient), {
      store: new DynamoDBInboxStore({
        tableName: WorldTables.Inbox,
        client: client.documentClient,
      }),
      consumer: config.consumer,
      schema: definition.schema,
      key: definition.key,
      deadLetterQueueUrl: deadLetterQueue.url,
      sqsClient: simSqsClient([deadLetterQueue], network, caller, () => kernel.nowMillis),
      maxReceiveCount: config.maxReceiveCount,
      ttlSeconds: config.ttlSeconds,
      transactionAttempts: config.transactionAttempts,
      concurrency: config.recordConcurrency,
      precheck: config.precheck,
      logger: traceLogger(kernel, actor),
      runtime,
    });
    return processor.process;
  };
}

/** Warnings and errors go into the trace (they explain a replay); the rest is dropped. */
function traceLogger(kernel: Kernel, actor: string): InboxLogger {
  const note =
    (level: string) =>
    (message: string, ...extra: Array<Record<string, unknown>>) => {
      const messageId = extra[0]?.messageId;
      kernel.trace.note(
        kernel.nowMillis,
        `${actor} ${level}: ${message}${messageId ? ` (${messageId})` : ''}`,
      );
    };
  return { debug: () => {}, info: () => {}, warn: note('warn'), error: note('error') };
}
