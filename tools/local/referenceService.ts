import { setTimeout as sleep } from 'node:timers/promises';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LocalMapping } from './provisionFromTemplate.js';
import { queueDepth } from './queueDepth.js';

/**
 * The emulator's services the reference service uses: its queues, tables and the outbox stream,
 * the upstream topic and bus, the notifier's S3 and SES (`npm start`, `npm run chaos`).
 */
export const REFERENCE_SERVICES = [
  'sqs',
  'dynamodb',
  'dynamodbstreams',
  'sns',
  'events',
  's3',
  'ses',
] as const;

/**
 * The mapping of one consumer of the provisioned reference stack.
 *
 * @example
 * ```ts
 * const ledger = mappingOf(mappings, 'ledger');
 * ```
 */
export function mappingOf(mappings: readonly LocalMapping[], consumer: string): LocalMapping {
  const mapping = mappings.find((m) => m.consumer === consumer);
  if (!mapping) {
    throw new Error(
      `the reference stack has no ${consumer} consumer; found ${mappings.map((m) => m.consumer).join(', ')}`,
    );
  }
  return mapping;
}

/**
 * Writes the seeded stock (SKU → available units) into the stock table.
 *
 * @example
 * ```ts
 * await seedStock(clients.dynamodb, new Map([['sku-apple', 10]]), stockTable);
 * ```
 */
export async function seedStock(
  dynamodb: DynamoDBClient,
  stock: Iterable<readonly [string, number]>,
  table: string,
): Promise<void> {
  const items = [...stock].map(([sku, available]) => ({
    PutRequest: { Item: { sku, available } },
  }));
  for (let start = 0; start < items.length; start += 25) {
    await DynamoDBDocumentClient.from(dynamodb).send(
      new BatchWriteCommand({ RequestItems: { [table]: items.slice(start, start + 25) } }),
    );
  }
}

/**
 * Polls the queues' depth (visible and in flight) every second until all of them are empty for
 * three polls in a row (true), or `deadlineMillis` passes (false). `onPoll` sees each poll.
 *
 * @example
 * ```ts
 * const drained = await waitUntilEmpty(clients.sqs, [queueUrl], Date.now() + 60_000);
 * ```
 */
export async function waitUntilEmpty(
  sqs: SQSClient,
  queueUrls: readonly string[],
  deadlineMillis: number,
  onPoll: (depths: number[]) => Promise<void> | void = () => {},
): Promise<boolean> {
  let emptyPolls = 0;
  while (Date.now() < deadlineMillis) {
    const depths = await Promise.all(queueUrls.map((url) => queueDepth(sqs, url)));
    await onPoll(depths);
    emptyPolls = depths.every((depth) => depth === 0) ? emptyPolls + 1 : 0;
    if (emptyPolls >= 3) return true;
    await sleep(1000);
  }
  return false;
}
