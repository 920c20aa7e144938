import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { businessTableVariable, InboxEnvironment } from 'sqs-inbox/constants';
import { InventoryTable } from '../../functions/inventory/orderPlaced.js';
import { CommandError } from '../cli/runCommand.js';
import {
  CONSUMER_NAMES,
  type ConsumerName,
  type DemoPlan,
  type MailboxOf,
  planDemoTraffic,
} from '../local/demoTraffic.js';
import { queueDepth } from '../local/queueDepth.js';
import { seedStock } from '../local/referenceService.js';
import { UpstreamDelivery } from '../local/UpstreamDelivery.js';
import type { DeployedConsumer } from './deployedConsumers.js';
import type { TargetClients } from './targetClients.js';

/** The demo traffic of a verify run, as `npm start` has it. */
export interface TrafficOptions {
  readonly messages: number;
  readonly duplicates: number;
  readonly seed: number;
  readonly mailboxOf?: MailboxOf;
}

/** How long the stack must stay still (queues empty, tables unchanged) to count as settled. */
const QUIET_MILLIS = 15_000;
const POLL_MILLIS = 2_000;

/**
 * Seeds the stock, finds each queue's upstream as deployed (the payments topic, the orders bus)
 * and sends the plan through it: events published once, some delivered again by their upstream
 * (its envelope as a new SQS message), malformed messages; not yet the conflicting payments
 * ({@link sendConflicting}). Returns the
 * plan and the delivery; `delivery.close()` takes its taps away. `onFinding` gets the delivery
 * while its taps are being made; once `stopping()` says so, no taps are made (it throws).
 *
 * @example
 * ```ts
 * const { plan, delivery } = await sendDemoTraffic(clients, consumers, { messages: 200, duplicates: 0.2, seed: 1 });
 * ```
 */
export async function sendDemoTraffic(
  clients: TargetClients,
  consumers: Record<ConsumerName, DeployedConsumer>,
  options: TrafficOptions,
  onFinding: (delivery: Promise<UpstreamDelivery<ConsumerName>>) => void = () => {},
  stopping: () => boolean = () => false,
): Promise<{ plan: DemoPlan; delivery: UpstreamDelivery<ConsumerName> }> {
  const plan = planDemoTraffic(
    options.messages,
    options.duplicates,
    options.seed,
    options.mailboxOf,
  );
  const stockTable = consumers.inventory.environment[businessTableVariable(InventoryTable.Stock)];
  await seedStock(clients.dynamodb, plan.seededStock, stockTable ?? '');
  // No taps once the command is stopping: its destroy may have looked for them already.
  if (stopping()) throw new CommandError('stopped before the traffic was sent');
  // Handed over before it is done: a stop while the taps are made waits for them, then removes them.
  const finding = UpstreamDelivery.find(clients, consumers);
  onFinding(finding);
  const delivery = await finding;
  await delivery.send(plan.messages.slice(0, plan.messages.length - plan.conflicting.length));
  return { plan, delivery };
}

/**
 * Sends the plan's conflicting payments: a different event for a payment already recorded.
 * Sent once the rest has settled, so that the recorded one is there first whatever order the
 * target keeps (MiniStack's FIFO queues and Lambda mappings do not keep a group's order).
 *
 * @example
 * ```ts
 * await sendConflicting(plan, delivery);
 * ```
 */
export async function sendConflicting(
  plan: DemoPlan,
  delivery: UpstreamDelivery<ConsumerName>,
): Promise<void> {
  await delivery.send(plan.messages.slice(plan.messages.length - plan.conflicting.length));
}

/**
 * Waits until the deployed consumers are done: their queues empty and their DLQs, inbox table
 * and outbox table unchanged for 15 s (the relay's hop from the outbox stream to the notifier
 * is asynchronous), or `deadlineMillis` passes (false). Prints progress each poll.
 *
 * @example
 * ```ts
 * const settled = await waitUntilSettled(clients, consumers, outboxTable, Date.now() + 600_000);
 * ```
 */
export async function waitUntilSettled(
  clients: TargetClients,
  consumers: Record<ConsumerName, DeployedConsumer>,
  outboxTable: string,
  deadlineMillis: number,
): Promise<boolean> {
  const documentClient = DynamoDBDocumentClient.from(clients.dynamodb);
  const inboxTable = consumers.ledger.environment[InboxEnvironment.TableName] ?? '';
  let last = '';
  let stillSince = Date.now();
  while (Date.now() < deadlineMillis) {
    const depths = await Promise.all(
      CONSUMER_NAMES.map(async (name) => [
        await queueDepth(clients.sqs, consumers[name].queueUrl),
        await queueDepth(clients.sqs, consumers[name].deadLetterQueueUrl),
      ]),
    );
    const counts = await Promise.all(
      [inboxTable, outboxTable].map((table) => countItems(documentClient, table)),
    );
    const line = CONSUMER_NAMES.map(
      (name, i) => `${name}: ${depths[i]?.[0]} queued, ${depths[i]?.[1]} in DLQ`,
    ).join(' | ');
    console.log(`${line} | inbox ${counts[0]} entries, outbox ${counts[1]} items`);
    const snapshot = JSON.stringify([depths, counts]);
    if (snapshot !== last) stillSince = Date.now();
    last = snapshot;
    const empty = depths.every(([queued]) => queued === 0);
    if (empty && Date.now() - stillSince >= QUIET_MILLIS) return true;
    await sleep(POLL_MILLIS);
  }
  return false;
}

async function countItems(client: DynamoDBDocumentClient, table: string): Promise<number> {
  let count = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: table, Select: 'COUNT', ExclusiveStartKey }),
    );
    count += page.Count ?? 0;
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return count;
}
