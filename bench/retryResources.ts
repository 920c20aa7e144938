import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import type { InboxEntry } from '../src/types.js';
import type { LocalClients } from '../tools/local/localClients.js';
import { queueDepth } from '../tools/local/queueDepth.js';
import type { RetryRunObservation } from './checkRetryRun.js';
import { type BenchTables, createTables } from './workload.js';

/** A `bench:retry` run's own tables and queues. */
export interface RetryResources {
  readonly tables: BenchTables;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly deadLetterQueueUrl: string;
}

/**
 * Fresh tables, and a source queue with the scenario's visibility timeout whose redrive policy
 * moves a message to a fresh DLQ after `downSeconds + 2` receives: every backoff delay is at
 * least a second, so receive ⌈downSeconds⌉ + 1 of a message comes after the outage and
 * commits, and the DLQ stays empty unless something is wrong.
 *
 * @example
 * ```ts
 * const resources = await createRetryResources(clients, { downSeconds: 8, visibilitySeconds: 12 });
 * ```
 */
export async function createRetryResources(
  clients: LocalClients,
  scenario: { readonly downSeconds: number; readonly visibilitySeconds: number },
): Promise<RetryResources> {
  const run = crypto.randomUUID().slice(0, 8);
  const tables = await createTables(clients.dynamodb);
  const deadLetter = await createQueue(clients.sqs, `bench-retry-dlq-${run}`, {});
  const source = await createQueue(clients.sqs, `bench-retry-${run}`, {
    VisibilityTimeout: String(scenario.visibilitySeconds),
    RedrivePolicy: JSON.stringify({
      deadLetterTargetArn: deadLetter.arn,
      maxReceiveCount: Math.ceil(scenario.downSeconds) + 2,
    }),
  });
  return {
    tables,
    queueUrl: source.url,
    queueArn: source.arn,
    deadLetterQueueUrl: deadLetter.url,
  };
}

async function createQueue(
  sqs: SQSClient,
  name: string,
  attributes: Record<string, string>,
): Promise<{ url: string; arn: string }> {
  const { QueueUrl: url = '' } = await sqs.send(
    new CreateQueueCommand({ QueueName: name, Attributes: attributes }),
  );
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  return { url, arn: Attributes.QueueArn ?? '' };
}

/**
 * Waits until the source queue holds nothing, visible or in flight — every message deleted
 * or dead-lettered —, or `limitMillis` passed.
 *
 * @example
 * ```ts
 * await untilQueueEmpty(clients.sqs, resources.queueUrl, 60_000);
 * ```
 */
export async function untilQueueEmpty(
  sqs: SQSClient,
  queueUrl: string,
  limitMillis: number,
): Promise<void> {
  const until = Date.now() + limitMillis;
  while (Date.now() < until && (await queueDepth(sqs, queueUrl)) > 0) await sleep(250);
}

/**
 * What a run left, read consistently: the inbox, the accounts and ledger tables, and what the
 * two queues still hold.
 *
 * @example
 * ```ts
 * const problems = retryRunProblems(sent, await observeRetryRun(clients, resources));
 * ```
 */
export async function observeRetryRun(
  clients: LocalClients,
  resources: RetryResources,
): Promise<RetryRunObservation> {
  const documents = DynamoDBDocumentClient.from(clients.dynamodb);
  const scan = async (table: string) => {
    const items: Record<string, unknown>[] = [];
    const pages = paginateScan({ client: documents }, { TableName: table, ConsistentRead: true });
    for await (const page of pages) items.push(...(page.Items ?? []));
    return items;
  };
  const { inbox, accounts, ledger } = resources.tables;
  return {
    inboxEntries: (await scan(inbox)) as unknown as InboxEntry[],
    accounts: await scan(accounts),
    entries: await scan(ledger),
    queueDepth: await queueDepth(clients.sqs, resources.queueUrl),
    deadLettered: await queueDepth(clients.sqs, resources.deadLetterQueueUrl),
  };
}

/**
 * Deletes a run's tables and queues (what fails to go, an emulator stopped at the end takes).
 *
 * @example
 * ```ts
 * await removeRetryResources(clients, resources);
 * ```
 */
export async function removeRetryResources(
  clients: LocalClients,
  resources: RetryResources,
): Promise<void> {
  await Promise.allSettled([
    ...Object.values(resources.tables).map((table) =>
      clients.dynamodb.send(new DeleteTableCommand({ TableName: table })),
    ),
    ...[resources.queueUrl, resources.deadLetterQueueUrl].map((url) =>
      clients.sqs.send(new DeleteQueueCommand({ QueueUrl: url })),
    ),
  ]);
}
