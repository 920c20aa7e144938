import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { businessTableVariable, InboxEnvironment, InboxMetric } from 'sqs-inbox/constants';
import { InventoryTable, inventoryConsumer } from '../../functions/inventory/orderPlaced.js';
import { ledgerConsumer } from '../../functions/ledger/paymentCaptured.js';
import { NotifierEnvironment } from '../../functions/notifier/notifierEnvironment.js';
import { notifierConsumer } from '../../functions/notifier/paymentNotification.js';
import { onShutdown, untilStopped } from '../cli/shutdown.js';
import { startEmulator } from '../emulator/emulator.js';
import { printInvariants } from '../verify/printInvariants.js';
import { checkInvariants, invariantTargetsOf } from './checkInvariants.js';
import {
  CONSUMER_NAMES,
  type ConsumerName,
  type DemoPlan,
  planDemoTraffic,
} from './demoTraffic.js';
import { type OutcomeCounter, startLocalMapping } from './LocalEventSourceMapping.js';
import { type LocalClients, localClients } from './localClients.js';
import { type LocalMapping, provisionFromTemplate } from './provisionFromTemplate.js';
import { queueDepth } from './queueDepth.js';
import { readSentEmails } from './readSentEmails.js';
import { mappingOf, REFERENCE_SERVICES, seedStock, waitUntilEmpty } from './referenceService.js';
import { synthesizeReferenceTemplate } from './referenceTemplate.js';
import { LOCAL_RUN_FILE } from './runFile.js';
import { startLocalRelay } from './startLocalRelay.js';
import { UpstreamDelivery } from './UpstreamDelivery.js';

/** Options of {@link runReferenceService} (`npm start`). */
export interface ReferenceServiceOptions {
  /** Demo messages to send. */
  readonly messages: number;
  /** Share of events sent again as new SQS messages. */
  readonly duplicates: number;
  /** Seed of the demo traffic. */
  readonly seed: number;
  /** Longest wait for the queues to drain, in seconds. */
  readonly timeout: number;
  /** Keep the consumers serving after the report, until a signal stops the command. */
  readonly keepRunning: boolean;
}

type Running = {
  name: ConsumerName;
  mapping: LocalMapping;
  counter: OutcomeCounter;
  stop: () => void;
};

/**
 * `npm start`: provisions the reference stack's queues, DLQs, tables, bucket and SES identity
 * from the CDK app on the emulator, seeds stock, runs the three consumers with Lambda's
 * event-source-mapping semantics, sends demo traffic, shows progress, then checks the
 * invariants, the notifier's emails read back from the emulator's SES. Returns the exit code;
 * with `keepRunning` and every invariant holding, it serves until the command is stopped.
 */
export async function runReferenceService(options: ReferenceServiceOptions): Promise<number> {
  const emulator = await startEmulator(REFERENCE_SERVICES);
  const clients = localClients({ dynamodb: emulator.endpoint, sqs: emulator.endpoint });
  const running: Running[] = [];
  let relay: Awaited<ReturnType<typeof startLocalRelay>> | undefined;
  onShutdown(async () => {
    for (const consumer of running.splice(0)) consumer.stop();
    await relay?.stop();
    rmSync(LOCAL_RUN_FILE, { force: true });
  });
  console.log(`emulator: ${emulator.name} at ${emulator.endpoint}`);
  // Short timeouts so retries and redrive happen within seconds: 2 s function timeout (12 s
  // visibility) and two receives before the DLQ.
  const { mappings, streamMappings } = await provisionFromTemplate(
    synthesizeReferenceTemplate({ functionTimeoutSeconds: 2, maxReceiveCount: 2 }),
    clients,
  );
  const ledger = mappingOf(mappings, 'ledger');
  const inventory = mappingOf(mappings, 'inventory');
  const notifier = mappingOf(mappings, 'notifier');
  const [outbox] = streamMappings;
  if (outbox === undefined)
    throw new Error("the reference stack has no outbox relay (the ledger's)");
  // The ledger's outbox relay: the library's relay on the outbox table's stream.
  relay = await startLocalRelay(outbox, clients, emulator.endpoint);
  const plan = planDemoTraffic(options.messages, options.duplicates, options.seed);
  await seedStock(
    clients.dynamodb,
    plan.seededStock,
    inventory.environment[businessTableVariable(InventoryTable.Stock)] ?? '',
  );
  running.push(
    { name: 'ledger', mapping: ledger, ...startLocalMapping(ledger, ledgerConsumer, clients) },
    {
      name: 'inventory',
      mapping: inventory,
      ...startLocalMapping(inventory, inventoryConsumer, clients),
    },
    {
      name: 'notifier',
      mapping: notifier,
      ...startLocalMapping(notifier, localNotifier(notifier, clients), clients),
    },
  );
  console.log(
    `sending ${plan.messages.length} messages (${plan.payments.length} payments published to the payments topic, each credited one relayed by the ledger's outbox to the notifier; ${plan.orders.length} orders put on the orders bus, ${plan.duplicates} delivered twice by their upstream, ${plan.malformed.length} malformed; seed ${options.seed})`,
  );
  // The emulator keeps every email it accepted: this run's are the ones after these.
  const emailsBefore = (await readSentEmails(emulator.endpoint)).length;
  const delivery = await UpstreamDelivery.find(clients, { ledger, inventory, notifier });
  await delivery.send(plan.messages);
  const drained = await drainThroughRelay(clients, running, relay, options.timeout);
  const emails = (await readSentEmails(emulator.endpoint)).slice(emailsBefore);
  const results = await checkInvariants(
    plan,
    {
      ...invariantTargetsOf({ ledger, inventory, notifier }),
      outbox: { table: outbox.tableName, deadLetterQueueUrl: outbox.deadLetterQueueUrl },
    },
    clients,
    // No crash in `npm start` stops an attempt between its email and its journal write.
    { emails, allowance: new Map() },
  );
  printReport(plan, running, results, drained);
  console.log(
    `outbox relay: ${relay.counter.count(InboxMetric.OutboxMessagesRelayed)} messages relayed, ${relay.counter.count(InboxMetric.OutboxDeadLettered)} dead-lettered, ${relay.counter.count(InboxMetric.OutboxRecordsFailed)} records retried, ${relay.mapping.invocations} invocations`,
  );
  const ok = drained && results.every((result) => result.holds);
  if (!options.keepRunning || !ok) return ok ? 0 : 1;
  const served = { ledger, inventory, notifier };
  writeRunFile(emulator.endpoint, served, delivery, outbox.deadLetterQueueUrl);
  printServing(emulator.endpoint, served, delivery);
  return untilStopped();
}

/** The notifier as the deployed function runs it, its SES and S3 clients on the emulator. */
function localNotifier(mapping: LocalMapping, clients: LocalClients) {
  return notifierConsumer({
    ses: clients.ses,
    s3: clients.s3,
    receiptsBucket: mapping.environment[NotifierEnvironment.ReceiptsBucket] ?? '',
    sender: mapping.environment[NotifierEnvironment.Sender] ?? '',
  });
}

/**
 * Waits for the queues to drain, then for the relay to catch up with the outbox stream, then for
 * the queues again (the notifier's receives what the relay sent): until all is still.
 */
async function drainThroughRelay(
  clients: LocalClients,
  running: Running[],
  relay: Awaited<ReturnType<typeof startLocalRelay>>,
  timeoutSeconds: number,
): Promise<boolean> {
  const until = Date.now() + timeoutSeconds * 1000;
  for (let round = 0; round < 3; round++) {
    const left = Math.max(1, Math.round((until - Date.now()) / 1000));
    if (!(await showProgressUntilDrained(clients, running, left))) return false;
    const relayed = relay.counter.count(InboxMetric.OutboxMessagesRelayed);
    await relay.mapping.drain(Math.max(1_000, until - Date.now()));
    if (relay.counter.count(InboxMetric.OutboxMessagesRelayed) === relayed && round > 0)
      return true;
  }
  return showProgressUntilDrained(
    clients,
    running,
    Math.max(1, Math.round((until - Date.now()) / 1000)),
  );
}

/** Shows progress until both queues stay empty, or the timeout passes. */
async function showProgressUntilDrained(
  clients: LocalClients,
  running: Running[],
  timeoutSeconds: number,
): Promise<boolean> {
  const drained = await waitUntilEmpty(
    clients.sqs,
    running.map((r) => r.mapping.queueUrl),
    Date.now() + timeoutSeconds * 1000,
    async (depths) => {
      const dlqDepths = await Promise.all(
        running.map((r) => queueDepth(clients.sqs, r.mapping.deadLetterQueueUrl)),
      );
      const line = running
        .map(
          (r, i) =>
            `${r.name}: ${r.counter.count(InboxMetric.Processed)} processed, ${r.counter.count(InboxMetric.Duplicates)} duplicates dropped, ${r.counter.count(InboxMetric.Failures)} failed, ${dlqDepths[i]} in DLQ, ${depths[i]} queued`,
        )
        .join(' | ');
      if (process.stdout.isTTY) process.stdout.write(`\r${line}\u001b[K`);
      else console.log(line);
    },
  );
  if (process.stdout.isTTY) process.stdout.write('\n');
  if (!drained) console.log(`\nthe queues did not drain within ${timeoutSeconds} s`);
  return drained;
}

function printReport(
  plan: DemoPlan,
  running: Running[],
  results: Awaited<ReturnType<typeof checkInvariants>>,
  drained: boolean,
): void {
  console.log('\nconsumer   processed  duplicates  failed attempts  dead-lettered');
  for (const r of running) {
    const c = r.counter;
    console.log(
      `${r.name.padEnd(10)} ${String(c.count(InboxMetric.Processed)).padStart(9)}  ${String(c.count(InboxMetric.Duplicates)).padStart(10)}  ${String(c.count(InboxMetric.Failures)).padStart(15)}  ${String(c.count(InboxMetric.DeadLettered)).padStart(13)}`,
    );
  }
  printInvariants(plan.messages.length, drained, results);
}

function writeRunFile(
  endpoint: string,
  mappings: Record<ConsumerName, LocalMapping>,
  delivery: UpstreamDelivery<ConsumerName>,
  relayDeadLetterQueueUrl: string,
): void {
  mkdirSync(dirname(LOCAL_RUN_FILE), { recursive: true });
  const state = {
    endpoint,
    // `npm run outbox -- redrive` reads the relay's dead-letter queue from here.
    outbox: { deadLetterQueueUrl: relayDeadLetterQueueUrl },
    consumers: Object.fromEntries(
      CONSUMER_NAMES.map((name) => mappings[name]).map((m) => [
        m.consumer,
        {
          queueUrl: m.queueUrl,
          deadLetterQueueUrl: m.deadLetterQueueUrl,
          inboxTable: m.environment[InboxEnvironment.TableName],
          // The function's INBOX_* contract: what `sqs-inbox … --local` reads the consumer from.
          environment: m.environment,
          upstream: delivery.upstreamOf(m.consumer as ConsumerName),
        },
      ]),
    ),
  };
  writeFileSync(LOCAL_RUN_FILE, `${JSON.stringify(state, null, 2)}\n`);
}

function printServing(
  endpoint: string,
  { ledger, inventory, notifier }: Record<ConsumerName, LocalMapping>,
  delivery: UpstreamDelivery<ConsumerName>,
): void {
  const topic = delivery.upstreamOf('ledger');
  const bus = delivery.upstreamOf('inventory');
  console.log(`\nserving until Ctrl-C on ${endpoint}`);
  console.log(`  ledger queue:    ${ledger.queueUrl}\n  inventory queue: ${inventory.queueUrl}`);
  console.log(
    `  notifier queue:  ${notifier.queueUrl} (sent mail: ${endpoint}/_ministack/ses/messages)`,
  );
  if (topic.kind === 'sns') console.log(`  payments topic:  ${topic.topicArn}`);
  if (bus.kind === 'eventbridge') console.log(`  orders bus:      ${bus.busName}`);
  console.log(
    `  e.g. npm run send -- inventory '{"eventId":"e-1","orderId":"o-1","lines":[{"sku":"sku-apple","quantity":1}]}'`,
  );
  console.log(
    `  or:  AWS_ENDPOINT_URL=${endpoint} AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test aws events put-events --entries '[{"EventBusName":"${bus.kind === 'eventbridge' ? bus.busName : ''}","Source":"shop.orders","DetailType":"OrderPlaced","Detail":"…"}]'`,
  );
  console.log('Press Ctrl-C to stop.');
}
