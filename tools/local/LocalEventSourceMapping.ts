import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { SQSRecord } from 'aws-lambda';
import { Consumer } from 'sqs-consumer';
import {
  type BatchProcessor,
  createBatchProcessor,
  type InboxLogger,
  type InboxMetrics,
  inboxConfigFromEnvironment,
  type MessageHandler,
  Precheck,
} from 'sqs-inbox';
import type { Body, ConsumerDefinition } from '../../functions/shared/ConsumerDefinition.js';
import type { LocalMapping } from './provisionFromTemplate.js';

/** Per consumer: what the library counted (processed, duplicates, failures…). */
export class OutcomeCounter implements InboxMetrics {
  readonly totals = new Map<string, number>();
  addMetric(name: string, unit: 'Count' | 'Milliseconds', value: number): void {
    if (unit === 'Count') this.totals.set(name, (this.totals.get(name) ?? 0) + value);
  }
  count(name: string): number {
    return this.totals.get(name) ?? 0;
  }
}

const quiet: InboxLogger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Lambda's SQS event source mapping for a consumer of the reference service, locally: the
 * consumer's inbox processor ({@link createLocalProcessor}) behind {@link startQueueMapping}.
 *
 * @example
 * ```ts
 * const { counter, stop } = startLocalMapping(mapping, ledgerConsumer, clients);
 * ```
 */
export function startLocalMapping<TSchema extends StandardSchemaV1>(
  mapping: LocalMapping,
  definition: ConsumerDefinition<TSchema>,
  clients: { dynamodb: DynamoDBClient; sqs: SQSClient },
): { counter: OutcomeCounter; stop: () => void } {
  const counter = new OutcomeCounter();
  const processor = createLocalProcessor(mapping, definition, clients, { metrics: counter });
  const { stop } = startQueueMapping(processor, mapping, clients.sqs);
  return { counter, stop };
}

/** What a local processor reports to, and how its business handler may be wrapped. */
export interface LocalProcessorOptions<TBody> {
  readonly metrics: InboxMetrics;
  readonly logger?: InboxLogger;
  readonly wrapHandler?: (handler: MessageHandler<TBody>) => MessageHandler<TBody>;
  /** The library's pre-check read (default concurrent, as in the functions). */
  readonly precheck?: Precheck;
  /** The processor's `performance.coalesce` option. */
  readonly coalesce?: boolean;
  /** The steps' lease length (default: the invocation's remaining time, or 60 s without one). */
  readonly leaseMillis?: number;
}

/**
 * The inbox batch processor a deployed function of `mapping` would run: the consumer's
 * definition with the function's environment (inbox table, consumer, TTL, DLQ, business tables).
 *
 * @example
 * ```ts
 * const processor = createLocalProcessor(mapping, ledgerConsumer, clients, { metrics: counter });
 * const { batchItemFailures } = await processor.process(event);
 * ```
 */
export function createLocalProcessor<TSchema extends StandardSchemaV1>(
  mapping: LocalMapping,
  definition: ConsumerDefinition<TSchema>,
  clients: { dynamodb: DynamoDBClient; sqs: SQSClient },
  options: LocalProcessorOptions<Body<TSchema>>,
): BatchProcessor {
  const documentClient = DynamoDBDocumentClient.from(clients.dynamodb);
  const inbox = inboxConfigFromEnvironment({
    env: mapping.environment,
    dynamoDBClient: documentClient,
    sqsClient: clients.sqs,
  });
  const handler = definition.handler(
    inbox.table,
    documentClient,
    (name) => inbox.destinations[name],
  );
  return createBatchProcessor(options.wrapHandler ? options.wrapHandler(handler) : handler, {
    ...inbox.options,
    schema: definition.schema,
    key: definition.key,
    ...(options.leaseMillis === undefined
      ? {}
      : { reliability: { leaseMillis: options.leaseMillis } }),
    observability: { metrics: options.metrics, logger: options.logger ?? quiet },
    performance: {
      precheck: options.precheck ?? Precheck.Concurrent,
      coalesce: options.coalesce ?? false,
    },
  });
}

/** The queue side of a mapping: where it polls, in batches of how many, how many at once. */
export type QueueSource = Pick<
  LocalMapping,
  'consumer' | 'queueUrl' | 'queueArn' | 'batchSize' | 'maxConcurrency'
>;

/** What a caller may watch: each message as it is received, and as it is deleted. */
export interface MappingObserver {
  readonly received?: (message: Message) => void;
  readonly deleted?: (message: Message) => void;
}

/** A running mapping: `stop` aborts at once; `drain` stops polling and waits for the batches. */
export interface RunningMapping {
  readonly stop: () => void;
  readonly drain: () => Promise<void>;
}

const DEFAULT_POLLERS = 3;
const MAX_POLLERS = 5;
/** How long `drain` waits for a batch in flight (its processing and its delete). */
const DRAIN_WAIT_MILLIS = 60_000;

/**
 * Lambda's SQS event source mapping, locally: sqs-consumer polls the queue in batches of the
 * mapping's size, each batch goes through `processor` as an SQS event, and only the records not
 * in `batchItemFailures` are deleted. A failed record reappears when its visibility ends — the
 * queue's timeout, or what the processor set (`retry`) —, the queue's redrive policy moves it to
 * the DLQ, and a FIFO queue keeps each group's order by not handing out a group's next message
 * while one is in flight. Batches run at once up to the mapping's maximum concurrency (3 when
 * unset, at most 5), as Lambda runs several invocations of one mapping.
 *
 * @example
 * ```ts
 * const mapping = startQueueMapping(processor, source, sqs, { deleted: (m) => done.add(m.MessageId) });
 * await mapping.drain();
 * ```
 */
export function startQueueMapping(
  processor: Pick<BatchProcessor, 'process'>,
  source: QueueSource,
  sqs: SQSClient,
  observer: MappingObserver = {},
): RunningMapping {
  const pollers = Array.from(
    { length: Math.min(source.maxConcurrency ?? DEFAULT_POLLERS, MAX_POLLERS) },
    () =>
      Consumer.create({
        queueUrl: source.queueUrl,
        sqs,
        batchSize: Math.min(source.batchSize, 10),
        waitTimeSeconds: 1,
        pollingWaitTimeMs: 100,
        pollingCompleteWaitTimeMs: DRAIN_WAIT_MILLIS,
        attributeNames: ['All'],
        messageAttributeNames: ['All'],
        messageSystemAttributeNames: ['All'],
        suppressFifoWarning: true,
        handleMessageBatch: (messages) => succeeded(processor, source.queueArn, messages),
      }),
  );
  let stopping = false;
  for (const poller of pollers) {
    poller.on('error', (error) => {
      if (!stopping) console.error(`[${source.consumer}] ${error.message}`);
    });
    if (observer.received) poller.on('message_received', observer.received);
    if (observer.deleted) poller.on('message_processed', observer.deleted);
    poller.start();
  }
  return {
    stop: () => {
      stopping = true;
      for (const poller of pollers) poller.stop({ abort: true });
    },
    drain: async () => {
      if (stopping) return;
      stopping = true;
      await Promise.all(pollers.map(stopAfterLastBatch));
    },
  };
}

/** Runs one batch through the processor; the messages to delete (those not reported failed). */
async function succeeded(
  processor: Pick<BatchProcessor, 'process'>,
  queueArn: string,
  messages: Message[],
): Promise<Message[]> {
  const response = await processor.process({
    Records: messages.map((m) => toRecord(m, queueArn)),
  });
  const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
  return messages.filter((message) => !failed.has(message.MessageId ?? ''));
}

/** Stops a poller without aborting; resolves when its batch in flight, if any, is done. */
function stopAfterLastBatch(poller: Consumer): Promise<void> {
  return new Promise<void>((resolve) => {
    // Registered first: a poller with nothing in flight reports `stopped` inside `stop()`.
    poller.once('stopped', () => resolve());
    poller.stop();
  });
}

/**
 * An SQS message (from ReceiveMessage) as Lambda hands it to a function.
 *
 * @example
 * ```ts
 * const event = { Records: messages.map((m) => toRecord(m, mapping.queueArn)) };
 * ```
 */
export function toRecord(message: Message, queueArn: string): SQSRecord {
  const messageAttributes = Object.fromEntries(
    Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
      name,
      {
        dataType: value.DataType ?? 'String',
        stringValue: value.StringValue,
        binaryValue: value.BinaryValue
          ? Buffer.from(value.BinaryValue).toString('base64')
          : undefined,
        stringListValues: [],
        binaryListValues: [],
      },
    ]),
  );
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: message.Attributes as unknown as SQSRecord['attributes'],
    messageAttributes,
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: queueArn.split(':')[3] ?? 'us-east-1',
  };
}
