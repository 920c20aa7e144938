import { LedgerDestination, ledgerConsumer } from '../../../functions/ledger/paymentCaptured.js';
import {
  NotifierTable,
  notifierConsumer,
} from '../../../functions/notifier/paymentNotification.js';
import type { ConsumerDefinition } from '../../../functions/shared/ConsumerDefinition.js';
import { ENTRY_UPDATE } from '../../../src/aws/entryWrites.js';
import {
  businessTableVariable,
  destinationVariable,
  InboxEnvironment,
} from '../../../src/constants/index.js';
import {
  createBatchProcessor,
  type InboxLogger,
  inboxConfigFromEnvironment,
  type MessageHandler,
  MessageSource,
} from '../../../src/index.js';
import {
  type DynamoOperation,
  SimDocumentClient,
} from '../../../src/testing/dynamo/SimDocumentClient.js';
import type { SimDynamoDB } from '../../../src/testing/dynamo/SimDynamoDB.js';
import { COUNTERS_TABLE, counterConsumer } from '../../chaos/counterConsumer.js';
import type { SimEffects } from '../effects/SimEffects.js';
import type { Kernel } from '../kernel/Kernel.js';
import type { FunctionFactory } from '../lambda/SimLambda.js';
import { type Network, RequestChannel } from '../network/Network.js';
import type { SimQueue } from '../sqs/SimQueue.js';
import { simSqsClient } from '../sqs/SimSqsClient.js';
import { type ConflictRules, senderName } from './ConflictRules.js';
import { type ChosenDelay, keepingChosenDelays } from './chosenDelays.js';
import { guardedCounterConsumer } from './guardedCounter.js';
import { asPreviousRelease } from './previousRelease.js';
import { quietOrNotified } from './quietNotification.js';
import { type WorldConfig, WorldConsumer, WorldSource } from './WorldConfig.js';
import { retryEnvironment } from './worldRetry.js';

/**
 * A value a consumer container gave its metrics sink: which container, the metric, the value.
 *
 * @example
 * ```ts
 * const takeovers = world.metrics.filter(({ name }) => name === 'InboxLeaseTakeovers');
 * ```
 */
export interface ObservedMetric {
  readonly actor: string;
  readonly name: string;
  readonly value: number;
}

/** The tables of a world: the inbox and the consumers' business tables. */
export const WorldTables = {
  Inbox: 'inbox',
  Accounts: 'accounts',
  Entries: 'ledgerEntries',
  Counters: COUNTERS_TABLE,
  Notifications: NotifierTable.Notifications,
  /** The ledger's outbox (worlds with `outbox`): its stream feeds the relay. */
  Outbox: 'outbox',
} as const;

/** The store's requests as 0.1.0 sent them, on the tables whose items carry a format version. */
const PREVIOUS_RELEASE = asPreviousRelease([WorldTables.Inbox, WorldTables.Outbox]);

/**
 * The batch deadline's margin the consumer runs with (the library's default, given so that the
 * oracle knows when each batch's deadline falls).
 */
export const BATCH_DEADLINE_MARGIN_MILLIS = 1_000;

/** Where the notifier's receipts go and who its emails are from. */
const NOTIFIER_SETTINGS = { receiptsBucket: 'receipts', sender: 'receipts@shop.example' };

type Services = Parameters<typeof notifierConsumer>[0];

/**
 * The consumer's definition: the notifier's with the services of the record it runs for, the
 * guarded counter in a world with `unknownCounterRate`.
 */
function definitionOf(
  config: WorldConfig,
  services: () => Pick<Services, 'ses' | 's3'>,
): ConsumerDefinition<never> {
  const counter =
    config.unknownCounterRate === undefined ? counterConsumer : guardedCounterConsumer;
  const definition =
    config.consumer === WorldConsumer.Ledger
      ? ledgerConsumer
      : config.consumer === WorldConsumer.Counter
        ? counter
        : notifierConsumer({ ...NOTIFIER_SETTINGS, ...services() });
  return definition as unknown as ConsumerDefinition<never>;
}

/**
 * The consumer's function as the construct deploys it — the real batch processor, store,
 * transaction builder, dead-letter publisher and the consumer's handler — built in a simulated
 * container whose DynamoDB and SQS clients send through the simulated network.
 *
 * @example
 * ```ts
 * const lambda = new SimLambda(kernel, random, config, consumerFunction({ kernel, dynamo, network, queue, deadLetterQueue, config }));
 * ```
 */
export function consumerFunction(world: {
  readonly kernel: Kernel;
  readonly dynamo: SimDynamoDB;
  readonly network: Network;
  /** The queue the function consumes: its SQS client changes the visibility of its records. */
  readonly queue: SimQueue;
  readonly deadLetterQueue: SimQueue;
  readonly config: WorldConfig;
  /** Where the ledger's outbox destination `credited` is (worlds with `outbox`). */
  readonly creditedUrl?: string;
  /** The services the notifier's steps reach (SES, S3). */
  readonly effects: SimEffects;
  /** DynamoDB's conflict rules, when the world models them. */
  readonly rules: ConflictRules;
  /** Whether a new container runs the previous release (its store's writes unversioned). */
  readonly previousRelease?: (actor: string) => boolean;
  /**
   * Called after each request is applied at DynamoDB, with the invocation that sent it (to
   * time its changes and its inbox reads).
   */
  readonly applied: (
    operation: DynamoOperation,
    invocationId: number | undefined,
    error?: unknown,
    sentMillis?: number,
  ) => void;
  /** Where each container's metrics go, as its sink is given them. */
  readonly metrics: ObservedMetric[];
  /** Where the delays the processor gives failed records go (worlds with `retry`). */
  readonly retryDelays: ChosenDelay[];
}): FunctionFactory {
  const { kernel, dynamo, network, deadLetterQueue, config, applied, effects, creditedUrl } = world;
  const { rules, queue } = world;
  return ({ actor, runtime, caller }) => {
    const servicesOf = (messageId: string) => () =>
      effects.clients(network, caller, messageId, () => kernel.nowMillis);
    const definition = definitionOf(config, servicesOf('none'));
    // The previous release's store writes what 0.1.0 wrote; the handler's writes are its own.
    const previous = world.previousRelease?.(actor) === true;
    // The library's requests name their record by the inbox entry they carry; the handler's
    // by the record it runs for (it gets a client of its own).
    const clientFor = (messageId?: string) =>
      new SimDocumentClient({
        dynamo,
        ...(previous && messageId === undefined ? { rewrite: PREVIOUS_RELEASE } : {}),
        transport: (operation) => {
          const atServer = rules.request(operation, senderName('lambda', caller.invocationId));
          return network.call(
            caller,
            'dynamodb',
            operation.name,
            applyThen(operation, atServer.apply, applied, caller.invocationId, kernel.nowMillis),
            {
              ...atServer.options,
              ...(operation.name === 'TransactWriteItems'
                ? {
                    conflict: () => dynamo.injectedConflict(operation.input),
                  }
                : {}),
              throttle: () => dynamo.throttled(operation.name),
              ...(config.journalThrottling !== undefined && isJournalWrite(operation.input)
                ? { throttleRate: config.journalThrottling }
                : {}),
              tag:
                messageId === undefined
                  ? { channel: RequestChannel.Store, subjects: inboxRecordsOf(operation.input) }
                  : { channel: RequestChannel.Handler, subjects: [messageId] },
            },
          );
        },
      });
    // As the reference function does it: the options the construct's environment fixes, read
    // back by the library, then the consumer's schema and key.
    const inbox = inboxConfigFromEnvironment({
      env: deployedEnvironment(config, deadLetterQueue.url, creditedUrl),
      dynamoDBClient: clientFor().documentClient,
      sqsClient: simSqsClient([deadLetterQueue, queue], network, caller, () => kernel.nowMillis),
    });
    const handler: MessageHandler<never> = (message, tx) => {
      const own = definitionOf(config, servicesOf(message.messageId)).handler(
        inbox.table,
        clientFor(message.messageId).documentClient,
        creditedUrl === undefined ? undefined : inbox.destination,
      );
      // A world with quiet payments runs the step-less path beside the notifier's steps.
      const notifier = config.consumer === WorldConsumer.Notifier && config.steplessRate;
      return notifier
        ? quietOrNotified(own as never, inbox.table(WorldTables.Notifications))(message, tx)
        : own(message, tx);
    };
    const processor = createBatchProcessor(handler, {
      ...inbox.options,
      schema: definition.schema,
      key: definition.key,
      runtime,
      reliability: {
        ...(config.leaseMillis === undefined ? {} : { leaseMillis: config.leaseMillis }),
        transactionAttempts: config.transactionAttempts,
        deadlineMarginMillis: BATCH_DEADLINE_MARGIN_MILLIS,
      },
      performance: {
        concurrency: config.recordConcurrency,
        precheck: config.precheck,
        coalesce: config.coalesce ?? false,
      },
      observability: {
        logger: keepingChosenDelays(traceLogger(kernel, actor), {
          kernel,
          actor,
          caller,
          delays: world.retryDelays,
        }),
        metrics: { addMetric: (name, _unit, value) => world.metrics.push({ actor, name, value }) },
      },
    });
    return processor.process;
  };
}

/** The variables the `InboxConsumer` construct gives the function, for this world. */
function deployedEnvironment(
  config: WorldConfig,
  deadLetterQueueUrl: string,
  creditedUrl: string | undefined,
): Record<string, string> {
  const tables = [
    WorldTables.Accounts,
    WorldTables.Entries,
    WorldTables.Counters,
    WorldTables.Notifications,
  ];
  return {
    [InboxEnvironment.TableName]: WorldTables.Inbox,
    [InboxEnvironment.Consumer]: config.consumer,
    [InboxEnvironment.TtlSeconds]: String(config.ttlSeconds),
    [InboxEnvironment.DeadLetterQueueUrl]: deadLetterQueueUrl,
    [InboxEnvironment.MaxReceiveCount]: String(config.maxReceiveCount),
    [InboxEnvironment.Sources]:
      config.source === WorldSource.Sns ? MessageSource.Sns : MessageSource.Sqs,
    ...Object.fromEntries(tables.map((table) => [businessTableVariable(table), table])),
    ...retryEnvironment(config.retry),
    ...(creditedUrl === undefined
      ? {}
      : {
          [InboxEnvironment.OutboxTableName]: WorldTables.Outbox,
          [InboxEnvironment.OutboxRetentionSeconds]: String(7 * 86_400),
          [destinationVariable(LedgerDestination.Credited)]: creditedUrl,
        }),
  };
}

/** `operation`, applied (by `apply`), then told with who sent it and when (world millis). */
function applyThen(
  operation: DynamoOperation,
  apply: () => unknown,
  after: (
    operation: DynamoOperation,
    invocationId: number | undefined,
    error?: unknown,
    sentMillis?: number,
  ) => void,
  invocationId: number | undefined,
  sentMillis: number,
): () => unknown {
  return () => {
    let failed: unknown;
    try {
      return apply();
    } catch (error) {
      failed = error;
      throw error;
    } finally {
      after(operation, invocationId, failed, sentMillis);
    }
  };
}

/**
 * The records an inbox request is for: a commit by the messageId its entry holds, a read by
 * the key it reads (`pk` is `consumer#key`).
 */
function inboxRecordsOf(input: Readonly<Record<string, unknown>>): string[] {
  const requests = Array.isArray(input.TransactItems)
    ? (input.TransactItems as Array<Record<string, WireRequest>>).flatMap((item) =>
        Object.values(item),
      )
    : [input as WireRequest];
  return requests.flatMap((request) => {
    if (request.TableName !== WorldTables.Inbox) return [];
    const messageId = request.Item?.messageId?.S;
    if (messageId !== undefined) return [messageId];
    const pk = request.Key?.pk?.S;
    return pk === undefined ? [] : [pk.slice(pk.indexOf('#') + 1)];
  });
}

/** A journal write of a step (the only UpdateItem that sets one step of an entry's journal). */
function isJournalWrite(input: Readonly<Record<string, unknown>>): boolean {
  return input.UpdateExpression === ENTRY_UPDATE.journal;
}

interface WireRequest {
  readonly TableName?: string;
  readonly Key?: Record<string, { readonly S?: string }>;
  readonly Item?: Record<string, { readonly S?: string }>;
}

/**
 * Warnings and errors go into the trace (they explain a replay); the rest is dropped.
 *
 * @example
 * ```ts
 * createOutboxRelay({ deadLetterQueueUrl, logger: traceLogger(kernel, 'relay-1') });
 * ```
 */
export function traceLogger(kernel: Kernel, actor: string): InboxLogger {
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
