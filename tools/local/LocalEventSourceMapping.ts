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
const DEFAULT_POLLERS = 3;
const MAX_POLLERS = 5;

/**
 * Lambda's SQS event source mapping, locally: sqs-consumer polls the queue in batches of the
 * mapping's size, the batch goes through the consumer's inbox processor as an SQS event, and
 * only the records not in `batchItemFailures` are deleted. Failed ones reappear after the
 * visibility timeout, the queue's redrive policy moves them to the DLQ, and a FIFO queue keeps
 * each group's order by not handing out a group's next message while one is in flight.
 */
export function startLocalMapping<TSchema extends StandardSchemaV1>(
  mapping: LocalMapping,
  definition: ConsumerDefinition<TSchema>,
  clients: { dynamodb: DynamoDBClient; sqs: SQSClient },
): { counter: OutcomeCounter; stop: () => void } {
  const counter = new OutcomeCounter();
  const processor = createLocalProcessor(mapping, definition, clients, { metrics: counter });
  const handleMessageBatch = async (messages: Message[]) => {
    const response = await processor.process({
      Records: messages.map((m) => toRecord(m, mapping.queueArn)),
    });
    const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
    return messages.filter((message) => !failed.has(message.MessageId ?? ''));
  };
  // Lambda runs several batches of one mapping at once, up to its maximum concurrency.
  const pollers = Array.from(
    { length: Math.min(mapping.maxConcurrency ?? DEFAULT_POLLERS, MAX_POLLERS) },
    () =>
      Consumer.create({
        queueUrl: mapping.queueUrl,
        sqs: clients.sqs,
        batchSize: Math.min(mapping.batchSize, 10),
        waitTimeSeconds: 1,
        pollingWaitTimeMs: 100,
        attributeNames: ['All'],
        messageAttributeNames: ['All'],
        messageSystemAttributeNames: ['All'],
        suppressFifoWarning: true,
        handleMessageBatch,
      }),
  );
  let stopping = false;
  for (const poller of pollers) {
    poller.on('error', (error) => {
      if (!stopping) console.error(`[${mapping.consumer}] ${error.message}`);
    });
    poller.start();
  }
  const stop = () => {
    stopping = true;
    for (const poller of pollers) poller.stop({ abort: true });
  };
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
