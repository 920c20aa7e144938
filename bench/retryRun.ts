import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { InboxMetric } from '../src/constants/index.js';
import { createBatchProcessor, DynamoDBInboxStore, type InboxLogger } from '../src/index.js';
import type { RetrySettings } from '../src/types.js';
import { onShutdown } from '../tools/cli/shutdown.js';
import { OutcomeCounter, startQueueMapping } from '../tools/local/LocalEventSourceMapping.js';
import { type LocalClients, localClients } from '../tools/local/localClients.js';
import { retryRunProblems, type SentMessage, secondsToCommit } from './checkRetryRun.js';
import { countRequests } from './countRequests.js';
import {
  createRetryResources,
  observeRetryRun,
  type RetryResources,
  removeRetryResources,
  untilQueueEmpty,
} from './retryResources.js';
import { TransientDownstream } from './transientDownstream.js';
import { businessWrites } from './variants.js';
import type { BenchTables, Payment } from './workload.js';

/** The scenario: how many messages, how long the downstream is down, the queue's timeout. */
export interface RetryScenario {
  readonly messages: number;
  readonly downSeconds: number;
  readonly visibilitySeconds: number;
}

/** A policy under test: sqs-inbox without the `retry` option, or with a backoff. */
export interface RetryVariant {
  readonly name: 'off' | 'on';
  readonly label: string;
  readonly retry?: Omit<RetrySettings, 'client'>;
}

/** The two policies `bench:retry` compares. */
export const RETRY_VARIANTS: readonly RetryVariant[] = [
  { name: 'off', label: 'no `retry`: a failure waits the visibility timeout' },
  {
    name: 'on',
    label: '`retry: { backoff: { firstDelaySeconds: 1, maxDelaySeconds: 8 } }`, Math.random jitter',
    retry: { backoff: { firstDelaySeconds: 1, maxDelaySeconds: 8 } },
  },
];

/** What one run measured, and what was wrong with it (nothing, normally). */
export interface RetryRunResult {
  readonly variant: RetryVariant['name'];
  readonly downstreamCalls: number;
  /** Downstream calls made while it was down. */
  readonly refusedCalls: number;
  readonly sqsRequests: ReadonlyMap<string, number>;
  readonly dynamodbRequests: ReadonlyMap<string, number>;
  /** Per message committed, from its send to its commit. */
  readonly commitSeconds: readonly number[];
  readonly problems: readonly string[];
}

/** The local mapping: batches of 10, five at once (Lambda starts an SQS mapping with five pollers). */
const MAPPING = { consumer: 'bench-retry', batchSize: 10, maxConcurrency: 5 } as const;
const silent: InboxLogger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * One run: fresh tables, a queue with a DLQ, a local event source mapping running the
 * processor; the downstream's outage begins as the messages are sent, all at once; the run
 * ends when the queue is empty (or after its time limit), then it is checked. SQS and DynamoDB
 * requests are those of the mapping and the processor, not the run's setup and checks.
 *
 * @example
 * ```ts
 * const result = await runRetryScenario(RETRY_VARIANTS[1], { messages: 40, downSeconds: 8, visibilitySeconds: 12 }, endpoint);
 * ```
 */
export async function runRetryScenario(
  variant: RetryVariant,
  scenario: RetryScenario,
  endpoint: string,
): Promise<RetryRunResult> {
  const setup = localClients({ dynamodb: endpoint, sqs: endpoint });
  const measured = localClients({ dynamodb: endpoint, sqs: endpoint });
  const resources = await createRetryResources(setup, scenario);
  try {
    return await measureRun(variant, scenario, resources, { setup, measured });
  } finally {
    await removeRetryResources(setup, resources);
    for (const client of [setup.dynamodb, setup.sqs, measured.dynamodb, measured.sqs])
      client.destroy();
  }
}

/** The run itself, on `measured` clients whose requests are counted; `setup` sends and reads. */
async function measureRun(
  variant: RetryVariant,
  scenario: RetryScenario,
  resources: RetryResources,
  clients: { setup: LocalClients; measured: LocalClients },
): Promise<RetryRunResult> {
  const { setup, measured } = clients;
  const sqsRequests = countRequests(measured.sqs);
  const dynamodbRequests = countRequests(measured.dynamodb);
  const downstream = new TransientDownstream(scenario.downSeconds);
  const metrics = new OutcomeCounter();
  const processor = processorFor(variant, resources.tables, measured, downstream, metrics);
  const source = { ...MAPPING, queueUrl: resources.queueUrl, queueArn: resources.queueArn };
  const mapping = startQueueMapping(processor, source, measured.sqs);
  const forget = onShutdown(mapping.stop);
  let sent: SentMessage[];
  try {
    downstream.start();
    sent = await sendAtOnce(setup.sqs, resources.queueUrl, paymentsOf(scenario.messages));
    await untilQueueEmpty(setup.sqs, resources.queueUrl, runLimitMillis(scenario));
    await mapping.drain();
  } finally {
    mapping.stop();
    forget();
  }
  const observed = await observeRetryRun(setup, resources);
  const refused = metrics.count(InboxMetric.VisibilityChangesFailed);
  return {
    variant: variant.name,
    downstreamCalls: downstream.calls,
    refusedCalls: downstream.refusedCalls,
    sqsRequests,
    dynamodbRequests,
    commitSeconds: secondsToCommit(sent, observed.inboxEntries),
    problems: [
      ...retryRunProblems(sent, observed),
      ...(refused > 0 ? [`SQS refused ${refused} visibility changes`] : []),
    ],
  };
}

/**
 * A run's time limit: each policy commits a message by the first receive after the outage —
 * at most the outage plus one visibility timeout (off) or one longest delay (on) —, with 30 s
 * for the emulator. A run that hits it is checked like any other and reports what is left.
 */
function runLimitMillis(scenario: RetryScenario): number {
  return (scenario.downSeconds + Math.max(scenario.visibilitySeconds, 8) + 30) * 1000;
}

function processorFor(
  variant: RetryVariant,
  tables: BenchTables,
  clients: LocalClients,
  downstream: TransientDownstream,
  metrics: OutcomeCounter,
) {
  const store = new DynamoDBInboxStore({ tableName: tables.inbox, client: clients.dynamodb });
  return createBatchProcessor(
    async ({ body }, tx) => {
      downstream.call();
      const { credit, record } = businessWrites(tables, body as Payment);
      tx.update(credit);
      tx.put(record);
    },
    {
      store,
      consumer: MAPPING.consumer,
      key: ({ body }) => (body as Payment).eventId,
      ...(variant.retry ? { retry: { ...variant.retry, client: clients.sqs } } : {}),
      observability: { logger: silent, metrics },
    },
  );
}

/** One payment per account, so that a payment credited twice shows in its account's balance. */
function paymentsOf(messages: number): Payment[] {
  return Array.from({ length: messages }, (_, i) => ({
    eventId: `evt-${i}`,
    accountId: `acc-${i}`,
    paymentId: `pay-${i}`,
    amountCents: 100 + i,
  }));
}

/** Sends the payments in batches of 10, all batches at once. */
async function sendAtOnce(
  sqs: SQSClient,
  queueUrl: string,
  payments: readonly Payment[],
): Promise<SentMessage[]> {
  const chunks = Array.from({ length: Math.ceil(payments.length / 10) }, (_, at) =>
    payments.slice(at * 10, at * 10 + 10),
  );
  const sent = await Promise.all(
    chunks.map(async (chunk) => {
      const { Successful = [], Failed = [] } = await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map((payment, at) => ({
            Id: String(at),
            MessageBody: JSON.stringify(payment),
          })),
        }),
      );
      const sentAtMillis = Date.now();
      if (Failed.length > 0)
        throw new Error(`SQS refused ${Failed.length} sends: ${Failed[0]?.Code}`);
      return Successful.map((entry) => ({
        payment: chunk[Number(entry.Id)] as Payment,
        messageId: entry.MessageId ?? '',
        sentAtMillis,
      }));
    }),
  );
  return sent.flat();
}
