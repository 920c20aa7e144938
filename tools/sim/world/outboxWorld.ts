import type { DynamoDBStreamEvent } from 'aws-lambda';
import { PaymentCaptured } from '../../../functions/ledger/paymentCaptured.js';
import {
  businessTableVariable,
  InboxEnvironment,
  OutboxMessageIdField,
} from '../../../src/constants/index.js';
import {
  createBatchProcessor,
  inboxConfigFromEnvironment,
  type MessageHandler,
  MessageSource,
} from '../../../src/index.js';
import { AwsOutboxSender, createOutboxRelay } from '../../../src/relay/index.js';
import { SimDocumentClient } from '../../../src/testing/dynamo/SimDocumentClient.js';
import { SimDynamoDB } from '../../../src/testing/dynamo/SimDynamoDB.js';
import type { Kernel } from '../kernel/Kernel.js';
import { hash32, type Prng } from '../kernel/Prng.js';
import { EventSourceMapping } from '../lambda/EventSourceMapping.js';
import { type FunctionFactory, SimLambda } from '../lambda/SimLambda.js';
import { StreamEventSourceMapping } from '../lambda/StreamEventSourceMapping.js';
import { type Caller, type Network, RequestChannel } from '../network/Network.js';
import { SimQueue } from '../sqs/SimQueue.js';
import { simSqsClient } from '../sqs/SimSqsClient.js';
import { SimStream } from '../streams/SimStream.js';
import { type ConflictRules, senderName } from './ConflictRules.js';
import { traceLogger, WorldTables } from './consumerFunction.js';
import type { WorldConfig, WorldOutbox } from './WorldConfig.js';

/** The downstream consumer's tables, in a DynamoDB of its own (another service's account). */
export const DownstreamTables = {
  Inbox: 'inbox',
  /** One item per applied credit, by inbox key: `applied` counts its applications. */
  Credits: 'credits',
  /** Per account, the keys of its credits in the order they were applied. */
  Accounts: 'creditOrder',
} as const;

/** The downstream consumer's name (its inbox entries' consumer). */
const DOWNSTREAM_CONSUMER = 'credits';

/**
 * The relay's event source mapping, as the `OutboxRelay` construct sets it: bisect, 10
 * retries, records up to 6 hours old, partial batch responses.
 */
const RELAY_MAPPING_POLICY = {
  maximumRetryAttempts: 10,
  maximumRecordAgeSeconds: 6 * 3_600,
  bisectBatchOnFunctionError: true,
  reportBatchItemFailures: true,
} as const;

/**
 * The second hop of an outbox world, as the reference stack deploys it: the ledger's outbox
 * table's stream, the relay (the real `createOutboxRelay`) on its event source mapping, the
 * downstream queue it sends to (refusing some messages for good), and the downstream consumer
 * (the real batch processor, `sources: ['outbox']`) applying each credit once.
 *
 * @example
 * ```ts
 * const second = buildOutboxWorld({ kernel, random, config, outbox, dynamo, network, changeMillis });
 * ```
 */
export interface OutboxWorld {
  readonly outbox: WorldOutbox;
  readonly stream: SimStream;
  readonly mapping: StreamEventSourceMapping;
  readonly relay: SimLambda<DynamoDBStreamEvent>;
  readonly creditedQueue: SimQueue;
  readonly relayDeadLetterQueue: SimQueue;
  readonly downstreamDeadLetterQueue: SimQueue;
  readonly downstreamDynamo: SimDynamoDB;
  readonly downstream: SimLambda;
  /** Whether the destination refuses a message for good (decided by its outbox id). */
  refuses(outboxId: string): boolean;
  /** Wakes the stream's pollers: the ledger's tables changed. */
  notify(): void;
  /** Every outbox change relayed or given up, nothing in flight, the downstream queue drained. */
  quiet(): boolean;
}

/** What the second hop is built on: the first hop's kernel, DynamoDB, network and clock. */
export interface OutboxWorldParts {
  readonly kernel: Kernel;
  readonly random: Prng;
  readonly config: WorldConfig;
  readonly outbox: WorldOutbox;
  readonly dynamo: SimDynamoDB;
  readonly network: Network;
  /** When each change of `dynamo` was made (simulated milliseconds), by position. */
  readonly changeMillis: readonly number[];
  /** DynamoDB's conflict rules, when the world models them (the downstream's DynamoDB too). */
  readonly rules: ConflictRules;
}

/**
 * Builds and starts the second hop of an outbox world.
 *
 * @example
 * ```ts
 * const second = buildOutboxWorld(parts);
 * const quiet = () => first() && second.quiet();
 * ```
 */
export function buildOutboxWorld(parts: OutboxWorldParts): OutboxWorld {
  const { kernel, random, config, outbox, dynamo, network } = parts;
  dynamo.createTable(keyedBy(WorldTables.Outbox, 'pk'));
  const queue = (name: string, fifo: boolean, redrive?: SimQueue) =>
    new SimQueue({
      name: fifo ? `${name}.fifo` : name,
      fifo,
      visibilityTimeoutMillis: config.visibilityTimeoutMillis,
      random: random.derive(name),
      ...(redrive
        ? { redrive: { deadLetterQueue: redrive, maxReceiveCount: config.maxReceiveCount } }
        : {}),
    });
  const relayDeadLetterQueue = queue('ledger-relay-dlq', false);
  const downstreamDeadLetterQueue = queue('credits-dlq', outbox.fifo);
  const creditedQueue = queue('credits', outbox.fifo, downstreamDeadLetterQueue);
  const refuses = (outboxId: string) => hash32(outboxId) / 2 ** 32 < outbox.refuseRate;
  const stream = new SimStream(
    () => dynamo.changes,
    WorldTables.Outbox,
    outbox.shards,
    parts.changeMillis,
  );
  const relayFunction: FunctionFactory<DynamoDBStreamEvent> = ({ actor, runtime, caller }) =>
    createOutboxRelay({
      deadLetter: { queueUrl: relayDeadLetterQueue.url },
      sender: new AwsOutboxSender({
        sqsClient: simSqsClient(
          [creditedQueue, relayDeadLetterQueue],
          network,
          caller,
          () => kernel.nowMillis,
          (input) => {
            const id = input.MessageAttributes?.[OutboxMessageIdField.Attribute]?.StringValue;
            const refused = input.QueueUrl === creditedQueue.url && id !== undefined && refuses(id);
            return refused ? refusal() : undefined;
          },
        ),
      }),
      performance: { concurrency: outbox.relayConcurrency },
      observability: { logger: traceLogger(kernel, actor) },
      runtime: { now: runtime.now },
    }).process;
  const relay = new SimLambda(kernel, random.derive('relay'), config, relayFunction, 'relay');
  const mapping = new StreamEventSourceMapping(kernel, random.derive('stream'), {
    stream,
    lambda: relay,
    batchSize: outbox.relayBatchSize,
    policy: RELAY_MAPPING_POLICY,
  });
  const downstreamDynamo = downstreamTables(new SimDynamoDB({ now: () => kernel.nowMillis }));
  const downstream = new SimLambda(
    kernel,
    random.derive('downstream'),
    config,
    downstreamFunction({
      kernel,
      network,
      config,
      downstreamDynamo,
      downstreamDeadLetterQueue,
      creditedQueue,
      rules: parts.rules,
    }),
    'credits',
  );
  mapping.start();
  new EventSourceMapping(kernel, random.derive('downstream-esm'), {
    queue: creditedQueue,
    lambda: downstream,
    batchSize: outbox.downstreamBatchSize,
    pollers: 1,
    faults: config.faults,
  }).start();
  return {
    outbox,
    stream,
    mapping,
    relay,
    creditedQueue,
    relayDeadLetterQueue,
    downstreamDeadLetterQueue,
    downstreamDynamo,
    downstream,
    refuses,
    notify: () => mapping.notify(),
    quiet: () =>
      mapping.caughtUp && !relay.busy && creditedQueue.messages.length === 0 && !downstream.busy,
  };
}

/** How SQS refuses a send for good: a client error no retry changes. */
function refusal(): Error {
  return Object.assign(new Error('The message is refused by the queue (simulated)'), {
    name: 'InvalidParameterValue',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
  });
}

function keyedBy(TableName: string, key: string) {
  return {
    TableName,
    KeySchema: [{ AttributeName: key, KeyType: 'HASH' as const }],
    AttributeDefinitions: [{ AttributeName: key, AttributeType: 'S' as const }],
  };
}

function downstreamTables(dynamo: SimDynamoDB): SimDynamoDB {
  dynamo.createTable(keyedBy(DownstreamTables.Inbox, 'pk'));
  dynamo.createTable(keyedBy(DownstreamTables.Credits, 'key'));
  dynamo.createTable(keyedBy(DownstreamTables.Accounts, 'accountId'));
  return dynamo;
}

/**
 * The downstream consumer: the real batch processor on the relayed messages, keyed by their
 * outbox id (the `outbox` source), counting each credit's applications and appending its key
 * to its account's list in the inbox transaction, with no condition of its own: its
 * exactly-once rests on the inbox alone.
 */
function downstreamFunction(world: {
  readonly kernel: Kernel;
  readonly network: Network;
  readonly config: WorldConfig;
  readonly downstreamDynamo: SimDynamoDB;
  readonly downstreamDeadLetterQueue: SimQueue;
  /** The queue the downstream consumes (the relay's `credited` destination). */
  readonly creditedQueue: SimQueue;
  readonly rules: ConflictRules;
}): FunctionFactory {
  const { kernel, network, config, downstreamDynamo } = world;
  return ({ actor, runtime, caller }) => {
    const inbox = inboxConfigFromEnvironment({
      env: {
        [InboxEnvironment.TableName]: DownstreamTables.Inbox,
        [InboxEnvironment.Consumer]: DOWNSTREAM_CONSUMER,
        [InboxEnvironment.TtlSeconds]: String(23 * 86_400),
        [InboxEnvironment.DeadLetterQueueUrl]: world.downstreamDeadLetterQueue.url,
        [InboxEnvironment.MaxReceiveCount]: String(config.maxReceiveCount),
        [InboxEnvironment.Sources]: MessageSource.Outbox,
        [businessTableVariable(DownstreamTables.Credits)]: DownstreamTables.Credits,
        [businessTableVariable(DownstreamTables.Accounts)]: DownstreamTables.Accounts,
      },
      dynamoDBClient: downstreamClient(downstreamDynamo, network, caller, world.rules),
      sqsClient: simSqsClient(
        [world.downstreamDeadLetterQueue, world.creditedQueue],
        network,
        caller,
        () => kernel.nowMillis,
      ),
    });
    return createBatchProcessor(applyCredit, {
      ...inbox.options,
      schema: PaymentCaptured,
      runtime,
      reliability: { transactionAttempts: config.transactionAttempts },
      performance: {
        concurrency: config.recordConcurrency,
        precheck: config.precheck,
        coalesce: config.coalesce ?? false,
      },
      observability: { logger: traceLogger(kernel, actor) },
    }).process;
  };
}

const applyCredit: MessageHandler<PaymentCaptured> = async ({ key, body }, tx) => {
  tx.update({
    TableName: DownstreamTables.Credits,
    Key: { key },
    UpdateExpression: 'ADD applied :one SET eventId = :eventId, accountId = :accountId',
    ExpressionAttributeValues: {
      ':one': 1,
      ':eventId': body.eventId,
      ':accountId': body.accountId,
    },
  });
  tx.update({
    TableName: DownstreamTables.Accounts,
    Key: { accountId: body.accountId },
    UpdateExpression: 'SET credited = list_append(if_not_exists(credited, :none), :key)',
    ExpressionAttributeValues: { ':none': [], ':key': [key] },
  });
};

/** The downstream's DynamoDB client: its requests through the network, with its faults. */
function downstreamClient(
  dynamo: SimDynamoDB,
  network: Network,
  caller: Caller,
  rules: ConflictRules,
) {
  return new SimDocumentClient({
    dynamo,
    transport: (operation) => {
      const atServer = rules.request(operation, senderName('credits', caller.invocationId));
      return network.call(caller, 'dynamodb', operation.name, atServer.apply, {
        ...atServer.options,
        ...(operation.name === 'TransactWriteItems'
          ? {
              conflict: () => dynamo.injectedConflict(operation.input),
            }
          : {}),
        throttle: () => dynamo.throttled(operation.name),
        tag: { channel: RequestChannel.Store, subjects: [] },
      });
    },
  }).documentClient;
}
