import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { AwsOutboxSender } from '../aws/AwsOutboxSender.js';
import { OutboxDeadLetterPublisher } from '../aws/OutboxDeadLetterPublisher.js';
import { mapConcurrently } from '../batch/mapConcurrently.js';
import { checkOptionsObject } from '../core/checkOptionsObject.js';
import { createConsoleLogger } from '../core/consoleLogger.js';
import { guardLogger, guardMetrics } from '../core/guardSinks.js';
import { isQueueUrl } from '../core/resolveOptions.js';
import type { InboxLogger, InboxMetrics } from '../core/types.js';
import { InvalidConfigurationError, MalformedEventError, RecordDeadlineError } from '../errors.js';
import type { OutboxDeadLetterSink } from './OutboxDeadLetter.js';
import type { OutboxSender } from './OutboxSender.js';
import { type RelayDependencies, type RelayOutcome, relayRecord } from './relayRecord.js';

/**
 * Options of {@link createOutboxRelay}. Behind the construct, `outboxRelayFromEnvironment()`
 * gives the dead-letter queue.
 *
 * @example
 * ```ts
 * const options: OutboxRelayOptions = { deadLetterQueueUrl: process.env.RELAY_DLQ_URL ?? '' };
 * ```
 * @public
 */
export interface OutboxRelayOptions {
  /** Where messages a destination refuses go, in full, with the reason: a standard SQS queue. */
  readonly deadLetterQueueUrl: string;
  /** Sends each message; default an `AwsOutboxSender` over the clients below. */
  readonly sender?: OutboxSender;
  /** Where dead letters go; default `deadLetterQueueUrl` through `sqsClient`. */
  readonly deadLetters?: OutboxDeadLetterSink;
  readonly sqsClient?: SQSClient;
  readonly snsClient?: SNSClient;
  readonly eventBridgeClient?: EventBridgeClient;
  /** Outbox items (groups, messages) relayed at once; one item's records always in order. Default 10. */
  readonly concurrency?: number;
  /** Time kept before the Lambda timeout: records not started by then are reported failed. Default 1,000 ms. */
  readonly deadlineMarginMillis?: number;
  readonly logger?: InboxLogger;
  readonly metrics?: InboxMetrics;
  /** Clock in epoch milliseconds; default `Date.now`. */
  readonly now?: () => number;
}

/**
 * The outbox relay: a Lambda handler for the outbox table's stream.
 *
 * @example
 * ```ts
 * const relay = createOutboxRelay({ deadLetterQueueUrl });
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
  'deadLetterQueueUrl',
  'sender',
  'deadLetters',
  'sqsClient',
  'snsClient',
  'eventBridgeClient',
  'concurrency',
  'deadlineMarginMillis',
  'logger',
  'metrics',
  'now',
];

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
 * export const handler = createOutboxRelay({ deadLetterQueueUrl: process.env.DLQ_URL ?? '' }).process;
 * ```
 * @public
 */
export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelayProcessor {
  checkOptionsObject(options, RELAY_OPTIONS, '{ deadLetterQueueUrl }');
  if (!isQueueUrl(options.deadLetterQueueUrl)) {
    throw new InvalidConfigurationError(
      'deadLetterQueueUrl',
      options.deadLetterQueueUrl,
      'an SQS queue URL',
    );
  }
  const concurrency = options.concurrency ?? 10;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 100) {
    throw new InvalidConfigurationError('concurrency', concurrency, 'an integer from 1 to 100');
  }
  const marginMillis = options.deadlineMarginMillis ?? 1_000;
  if (!Number.isFinite(marginMillis) || marginMillis < 0) {
    throw new InvalidConfigurationError(
      'deadlineMarginMillis',
      marginMillis,
      'a number of milliseconds ≥ 0',
    );
  }
  const deps = dependencies(options);
  const relayRecords = (event: unknown, context?: Context) =>
    relayEvent(readRecords(event), context, { deps, concurrency, marginMillis });
  const process = async (event: unknown, context?: Context): Promise<DynamoDBBatchResponse> => {
    const outcomes = await relayRecords(event, context);
    const failures = outcomes.filter(({ status }) => status === 'failed');
    return {
      batchItemFailures: failures.map(({ sequenceNumber }) => ({ itemIdentifier: sequenceNumber })),
    };
  };
  return { process, relayRecords };
}

function dependencies(options: OutboxRelayOptions): RelayDependencies {
  const aws = new AwsOutboxSender({
    ...(options.sqsClient ? { sqsClient: options.sqsClient } : {}),
    ...(options.snsClient ? { snsClient: options.snsClient } : {}),
    ...(options.eventBridgeClient ? { eventBridgeClient: options.eventBridgeClient } : {}),
  });
  return {
    sender: options.sender ?? aws,
    deadLetters:
      options.deadLetters ??
      new OutboxDeadLetterPublisher(options.deadLetterQueueUrl, () => aws.sqsClient),
    logger: guardLogger(options.logger ?? createConsoleLogger()),
    metrics: options.metrics && guardMetrics(options.metrics),
    now: options.now ?? Date.now,
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
