import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { AwsOutboxSender } from '../aws/AwsOutboxSender.js';
import { OutboxDeadLetterPublisher } from '../aws/OutboxDeadLetterPublisher.js';
import { mapConcurrently } from '../batch/mapConcurrently.js';
import { checkOptionsObject, type MovedOptions } from '../core/checkOptionsObject.js';
import { createConsoleLogger } from '../core/consoleLogger.js';
import { guardLogger } from '../core/guardSinks.js';
import { guardTracer } from '../core/guardTracer.js';
import { checkFunction, checkMethods, integerIn, isQueueUrl } from '../core/optionChecks.js';
import type { ObservabilitySettings, ReliabilitySettings } from '../core/ProcessorSettings.js';
import { resolveMetrics } from '../core/resolveMetrics.js';
import { InvalidConfigurationError, MalformedEventError, RecordDeadlineError } from '../errors.js';
import type { OutboxDeadLetterSink } from '../outbox/OutboxDeadLetter.js';
import type { OutboxSender } from '../outbox/OutboxSender.js';
import type { InboxRuntime } from '../runtime/InboxRuntime.js';
import { type RelayDependencies, type RelayOutcome, relayRecord } from './relayRecord.js';

/**
 * Options of {@link createOutboxRelay}, grouped as the processor's are. Behind the construct,
 * `outboxRelayFromEnvironment()` gives the dead-letter queue.
 *
 * @example
 * ```ts
 * const options: OutboxRelayOptions = {
 *   deadLetter: { queueUrl: process.env.RELAY_DLQ_URL ?? '' },
 *   performance: { concurrency: 20 },
 * };
 * ```
 * @public
 */
export interface OutboxRelayOptions {
  /** Where messages a destination refuses for good go, in full, with the reason. */
  readonly deadLetter: OutboxRelayDeadLetterSettings;
  /**
   * Sends each message. Pass `new AwsOutboxSender({ sqsClient, snsClient, eventBridgeClient })`
   * to choose the clients.
   * @defaultValue an `AwsOutboxSender` with clients built lazily
   */
  readonly sender?: OutboxSender;
  /**
   * The batch's deadline: `deadlineMarginMillis` as the processor's.
   * @defaultValue the processor's default
   */
  readonly reliability?: Pick<ReliabilitySettings, 'deadlineMarginMillis'>;
  /**
   * Logs, metrics and traces; with a `tracer`, a PRODUCER span per message sent, linked to the
   * publishing record's span. Each as the processor's.
   * @defaultValue the processor's defaults
   */
  readonly observability?: Pick<ObservabilitySettings, 'logger' | 'metrics' | 'tracer'>;
  /**
   * How much of a batch is relayed at once: `concurrency`, outbox items (groups, messages)
   * relayed at once, 1 to 100; one item's records always in order.
   * @defaultValue `concurrency` `10`
   */
  readonly performance?: {
    /**
     * Outbox items (groups, messages) relayed at once, 1 to 100; one item's records always in order.
     * @defaultValue `10`
     */
    readonly concurrency?: number;
  };
  /**
   * The clock the deadline is measured with.
   * @defaultValue the system's (`Date.now`)
   */
  readonly runtime?: Pick<Partial<InboxRuntime>, 'now'>;
}

/**
 * The `deadLetter` group of {@link OutboxRelayOptions}.
 *
 * @example
 * ```ts
 * const deadLetter: OutboxRelayDeadLetterSettings = { queueUrl: relayDlqUrl };
 * ```
 * @public
 */
export interface OutboxRelayDeadLetterSettings {
  /** A standard SQS queue: refused messages are sent there in full, with the reason. */
  readonly queueUrl: string;
  /**
   * The client that sends to it.
   * @defaultValue the default sender's SQS client, built lazily
   */
  readonly client?: SQSClient;
  /**
   * Where dead letters go instead of the queue (a test's recorder, another transport).
   * @defaultValue the queue
   */
  readonly sink?: OutboxDeadLetterSink;
}

/**
 * The outbox relay: a Lambda handler for the outbox table's stream.
 *
 * @example
 * ```ts
 * const relay = createOutboxRelay({ deadLetter: { queueUrl: relayDlqUrl } });
 * export const handler = relay.process;
 * ```
 * @public
 */
export interface OutboxRelayProcessor {
  /** Relays a DynamoDB stream event and answers with the partial batch response. */
  process(event: unknown, context?: Context): Promise<DynamoDBBatchResponse>;
  /** Relays a DynamoDB stream event and returns each record's outcome, in the event's order. */
  relayRecords(event: unknown, context?: Context): Promise<RelayOutcome[]>;
}

const RELAY_OPTIONS = [
  'deadLetter',
  'sender',
  'reliability',
  'observability',
  'performance',
  'runtime',
];
const GROUPS = {
  deadLetter: ['queueUrl', 'client', 'sink'],
  reliability: ['deadlineMarginMillis'],
  observability: ['logger', 'metrics', 'tracer'],
  performance: ['concurrency'],
  runtime: ['now'],
} as const;
/** The flat options of 0.1.0, by where each went. */
const MOVED_OPTIONS: MovedOptions = {
  deadLetterQueueUrl: 'deadLetter.queueUrl',
  deadLetters: 'deadLetter.sink',
  sqsClient: 'sender: new AwsOutboxSender({ sqsClient })',
  snsClient: 'sender: new AwsOutboxSender({ snsClient })',
  eventBridgeClient: 'sender: new AwsOutboxSender({ eventBridgeClient })',
  concurrency: 'performance.concurrency',
  deadlineMarginMillis: 'reliability.deadlineMarginMillis',
  logger: 'observability.logger',
  metrics: 'observability.metrics',
  now: 'runtime.now',
};

/**
 * Creates the relay that sends what `tx.publish` committed. Records of one outbox item (one
 * message, or one group of one destination) are relayed one after the other, in stream order,
 * which is commit order; different items at once, up to `concurrency`. A record that cannot be
 * sent now is reported failed (`batchItemFailures`), and Lambda retries from it; a message its
 * destination refuses for good is dead-lettered with the reason. Delivery is at least once,
 * each send carrying the message's outbox id for the downstream inbox.
 *
 * @example
 * ```ts
 * export const handler = createOutboxRelay({ deadLetter: { queueUrl: process.env.DLQ_URL ?? '' } }).process;
 * ```
 * @public
 */
export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelayProcessor {
  checkShapes(options);
  const concurrency = integerIn(
    'performance.concurrency',
    options.performance?.concurrency,
    10,
    CONCURRENCY_RANGE,
  );
  const marginMillis = integerIn(
    'reliability.deadlineMarginMillis',
    options.reliability?.deadlineMarginMillis,
    1_000,
    DEADLINE_MARGIN_RANGE,
  );
  const { flushMetrics, ...deps } = dependencies(options);
  const relayRecords = async (event: unknown, context?: Context) => {
    const records = readRecords(event);
    const outcomes = await relayEvent(records, context, { deps, concurrency, marginMillis });
    flushMetrics(); // one metrics document per batch
    return outcomes;
  };
  const process = async (event: unknown, context?: Context): Promise<DynamoDBBatchResponse> => {
    const outcomes = await relayRecords(event, context);
    const failures = outcomes.filter(({ status }) => status === 'failed');
    return {
      batchItemFailures: failures.map(({ sequenceNumber }) => ({ itemIdentifier: sequenceNumber })),
    };
  };
  return { process, relayRecords };
}

const CONCURRENCY_RANGE = { min: 1, max: 100 } as const;
const DEADLINE_MARGIN_RANGE = { min: 0, max: 900_000 } as const;

function checkShapes(options: OutboxRelayOptions): void {
  checkOptionsObject(options, RELAY_OPTIONS, '{ deadLetter: { queueUrl } }', {
    moved: MOVED_OPTIONS,
  });
  for (const [name, keys] of Object.entries(GROUPS)) {
    const group = (options as unknown as Record<string, unknown>)[name];
    if (group !== undefined)
      checkOptionsObject(group, keys, `{ ${keys[0]} }`, { path: `${name}.` });
  }
  const deadLetter = options.deadLetter as Partial<OutboxRelayDeadLetterSettings> | undefined;
  if (typeof deadLetter?.queueUrl !== 'string' || !isQueueUrl(deadLetter.queueUrl)) {
    throw new InvalidConfigurationError(
      'deadLetter.queueUrl',
      deadLetter?.queueUrl,
      "the SQS queue URL of the relay's dead-letter queue (a standard queue)",
    );
  }
  checkMethods('deadLetter.client', deadLetter.client, ['send']);
  checkMethods('deadLetter.sink', deadLetter.sink, ['send']);
  checkMethods('sender', options.sender, ['send']);
  checkMethods('observability.logger', options.observability?.logger, [
    'debug',
    'info',
    'warn',
    'error',
  ]);
  if (options.observability?.metrics !== false) {
    checkMethods('observability.metrics', options.observability?.metrics, ['addMetric']);
  }
  checkMethods('observability.tracer', options.observability?.tracer, ['startSpan']);
  checkFunction('runtime.now', options.runtime?.now);
}

function dependencies(
  options: OutboxRelayOptions,
): RelayDependencies & { readonly flushMetrics: () => void } {
  const sender = options.sender ?? new AwsOutboxSender();
  const { queueUrl, client, sink } = options.deadLetter;
  const clients = sender instanceof AwsOutboxSender ? sender : new AwsOutboxSender();
  const now = options.runtime?.now;
  const clock = now === undefined ? Date.now : () => now();
  // The constructs set the namespace and service: the relay's counts reach its dashboard.
  const metrics = resolveMetrics(options.observability?.metrics, clock);
  return {
    sender,
    deadLetters: sink ?? new OutboxDeadLetterPublisher(queueUrl, () => client ?? clients.sqsClient),
    logger: guardLogger(options.observability?.logger ?? createConsoleLogger()),
    ...metrics,
    tracer: options.observability?.tracer && guardTracer(options.observability.tracer),
    now: clock,
  };
}

function readRecords(event: unknown): DynamoDBRecord[] {
  const records = (event as { Records?: unknown } | null)?.Records;
  if (!Array.isArray(records)) {
    throw new MalformedEventError(
      'Records',
      records,
      'an array of stream records',
      'a DynamoDB stream',
    );
  }
  return records as DynamoDBRecord[];
}

interface RelaySettings {
  readonly deps: RelayDependencies;
  readonly concurrency: number;
  readonly marginMillis: number;
}

/** Relays the records, one chain per outbox item, and returns the outcomes in event order. */
async function relayEvent(
  records: DynamoDBRecord[],
  context: Context | undefined,
  settings: RelaySettings,
): Promise<RelayOutcome[]> {
  const outcomes = new Map<DynamoDBRecord, RelayOutcome>();
  const chains = new Map<string, DynamoDBRecord[]>();
  for (const record of records) {
    const item = JSON.stringify(record.dynamodb?.Keys ?? null);
    chains.set(item, [...(chains.get(item) ?? []), record]);
  }
  const deadlineMillis = deadlineOf(context, settings.marginMillis);
  const startMillis = settings.deps.now();
  await mapConcurrently([...chains.values()], settings.concurrency, async (chain) => {
    for (const record of chain) {
      const late = settings.deps.now() - startMillis >= deadlineMillis;
      const outcome = late
        ? deadlineOutcome(record, deadlineMillis)
        : await relayRecord(record, settings.deps);
      outcomes.set(record, outcome);
      // Later records of this item wait: Lambda retries from the failed one, in order.
      if (outcome.status === 'failed') return;
    }
  });
  return records.flatMap((record) => outcomes.get(record) ?? []);
}

/** Milliseconds into the invocation after which no record starts; infinite without a context. */
function deadlineOf(context: Context | undefined, marginMillis: number): number {
  if (typeof context?.getRemainingTimeInMillis !== 'function') return Number.POSITIVE_INFINITY;
  return context.getRemainingTimeInMillis() - marginMillis;
}

function deadlineOutcome(record: DynamoDBRecord, deadlineMillis: number): RelayOutcome {
  const sequenceNumber = record.dynamodb?.SequenceNumber ?? '';
  const error = new RecordDeadlineError(deadlineMillis);
  return { sequenceNumber, status: 'failed', sent: 0, deadLettered: 0, error };
}
