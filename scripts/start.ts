/**
 * `npm start`: the reference service on the local emulator. Provisions the reference stack's
 * queues, DLQs and tables from the CDK app, seeds stock, runs both consumers with Lambda's
 * event-source-mapping semantics, sends demo traffic, shows progress, then checks invariants.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Command, InvalidArgumentError } from 'commander';
import { businessTableVariable, InboxEnvironment } from 'sqs-inbox';
import { inventoryConsumer } from '../functions/inventory/orderPlaced.js';
import { ledgerConsumer } from '../functions/ledger/paymentCaptured.js';
import { startEmulator } from '../tools/emulator/emulator.js';
import { projectRoot } from '../tools/emulator/paths.js';
import { checkInvariants, invariantTargetsOf } from '../tools/local/checkInvariants.js';
import {
  type ConsumerName,
  type DemoPlan,
  planDemoTraffic,
  sendDemoTraffic,
} from '../tools/local/demoTraffic.js';
import { type OutcomeCounter, startLocalMapping } from '../tools/local/LocalEventSourceMapping.js';
import { type LocalMapping, provisionFromTemplate } from '../tools/local/provisionFromTemplate.js';
import { queueDepth } from '../tools/local/queueDepth.js';
import { synthesizeReferenceTemplate } from '../tools/local/referenceTemplate.js';
import { LOCAL_RUN_FILE } from '../tools/local/runFile.js';

const integer = (name: string, min: number) => (value: string) => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min)
    throw new InvalidArgumentError(`${name} must be an integer ≥ ${min} (given ${value}).`);
  return parsed;
};
const rate = (value: string) => {
  const parsed = Number(value);
  if (!(parsed >= 0 && parsed < 1))
    throw new InvalidArgumentError(`the duplicate rate must be in [0, 1) (given ${value}).`);
  return parsed;
};

const program = new Command('npm start --')
  .description(
    'Run the reference service (ledger + inventory) on the local emulator with demo traffic, then check its invariants.',
  )
  .option('--messages <n>', 'demo messages to send', integer('--messages', 2), 200)
  .option('--duplicates <rate>', 'share of events sent again as new SQS messages', rate, 0.2)
  .option('--seed <n>', 'seed of the demo traffic', integer('--seed', 0), Date.now() % 1_000_000)
  .option(
    '--timeout <seconds>',
    'longest wait for the queues to drain',
    integer('--timeout', 10),
    240,
  )
  .option('--keep-running', 'keep the consumers serving after the report, until Ctrl-C', false)
  .parse();
const options = program.opts<{
  messages: number;
  duplicates: number;
  seed: number;
  timeout: number;
  keepRunning: boolean;
}>();

// The machines run Node 20 while Lambda runs 22: the SDK's reminder about that is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const emulator = await startEmulator(['sqs', 'dynamodb']);
const config = {
  endpoint: emulator.endpoint,
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
};
const clients = { dynamodb: new DynamoDBClient(config), sqs: new SQSClient(config) };
const running: Running[] = [];
let exitCode = 1;
try {
  exitCode = await run();
} finally {
  if (!options.keepRunning || exitCode !== 0) await shutDown();
}
if (!options.keepRunning || exitCode !== 0) process.exit(exitCode);

/** Stops the pollers, then the emulator, and forgets the run. */
async function shutDown(): Promise<void> {
  for (const consumer of running.splice(0)) consumer.stop();
  await emulator.stop();
  rmSync(LOCAL_RUN_FILE, { force: true });
}

async function run(): Promise<number> {
  console.log(`emulator: ${emulator.name} at ${emulator.endpoint}`);
  // Short timeouts so retries and redrive happen within seconds: 2 s function timeout (12 s
  // visibility) and two receives before the DLQ.
  const { mappings } = await provisionFromTemplate(
    synthesizeReferenceTemplate({ functionTimeoutSeconds: 2, maxReceiveCount: 2 }),
    clients,
  );
  const ledger = mappingOf(mappings, 'ledger');
  const inventory = mappingOf(mappings, 'inventory');
  const plan = planDemoTraffic(options.messages, options.duplicates, options.seed);
  await seedStock(plan, inventory.environment[businessTableVariable('stock')] ?? '');
  running.push(
    { name: 'ledger', mapping: ledger, ...startLocalMapping(ledger, ledgerConsumer, clients) },
    {
      name: 'inventory',
      mapping: inventory,
      ...startLocalMapping(inventory, inventoryConsumer, clients),
    },
  );
  console.log(
    `sending ${plan.messages.length} messages (${plan.payments.length} payments, ${plan.orders.length} orders, ${plan.duplicates} duplicates, ${plan.malformed.length} malformed; seed ${options.seed})`,
  );
  await sendDemoTraffic(clients.sqs, plan, {
    ledger: ledger.queueUrl,
    inventory: inventory.queueUrl,
  });
  const drained = await waitUntilDrained(running);
  const results = await checkInvariants(plan, invariantTargetsOf(ledger, inventory), clients);
  printReport(plan, running, results, drained);
  const ok = drained && results.every((result) => result.holds);
  if (options.keepRunning && ok) {
    writeRunFile(ledger, inventory);
    printServing(ledger, inventory);
  }
  return ok ? 0 : 1;
}

function mappingOf(mappings: readonly LocalMapping[], consumer: ConsumerName): LocalMapping {
  const mapping = mappings.find((m) => m.consumer === consumer);
  if (!mapping)
    throw new Error(
      `the reference stack has no ${consumer} consumer; found ${mappings.map((m) => m.consumer).join(', ')}`,
    );
  return mapping;
}

async function seedStock(plan: DemoPlan, table: string): Promise<void> {
  const documentClient = DynamoDBDocumentClient.from(clients.dynamodb);
  const items = [...plan.seededStock].map(([sku, available]) => ({
    PutRequest: { Item: { sku, available } },
  }));
  await documentClient.send(new BatchWriteCommand({ RequestItems: { [table]: items } }));
}

type Running = {
  name: ConsumerName;
  mapping: LocalMapping;
  counter: OutcomeCounter;
  stop: () => void;
};

/** Shows progress until both queues stay empty, or the timeout passes. */
async function waitUntilDrained(running: Running[]): Promise<boolean> {
  const deadline = Date.now() + options.timeout * 1000;
  let emptyPolls = 0;
  while (Date.now() < deadline) {
    const depths = await Promise.all(
      running.map((r) => queueDepth(clients.sqs, r.mapping.queueUrl)),
    );
    const dlqDepths = await Promise.all(
      running.map((r) => queueDepth(clients.sqs, r.mapping.deadLetterQueueUrl)),
    );
    const line = running
      .map(
        (r, i) =>
          `${r.name}: ${r.counter.count('InboxProcessed')} processed, ${r.counter.count('InboxDuplicates')} duplicates dropped, ${r.counter.count('InboxFailures')} failed, ${dlqDepths[i]} in DLQ, ${depths[i]} queued`,
      )
      .join(' | ');
    if (process.stdout.isTTY) process.stdout.write(`\r${line}\u001b[K`);
    else console.log(line);
    emptyPolls = depths.every((depth) => depth === 0) ? emptyPolls + 1 : 0;
    if (emptyPolls >= 3) {
      if (process.stdout.isTTY) process.stdout.write('\n');
      return true;
    }
    await sleep(1000);
  }
  console.log(`\nthe queues did not drain within ${options.timeout} s`);
  return false;
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
      `${r.name.padEnd(10)} ${String(c.count('InboxProcessed')).padStart(9)}  ${String(c.count('InboxDuplicates')).padStart(10)}  ${String(c.count('InboxFailures')).padStart(15)}  ${String(c.count('InboxDeadLettered')).padStart(13)}`,
    );
  }
  console.log(`\ninvariants (${plan.messages.length} messages sent):`);
  console.log(`  ${drained ? 'PASS' : 'FAIL'}  all messages settled (queues drained)`);
  for (const result of results)
    console.log(`  ${result.holds ? 'PASS' : 'FAIL'}  ${result.name} — ${result.detail}`);
  const ok = drained && results.every((result) => result.holds);
  console.log(ok ? '\nall invariants hold' : '\nINVARIANT VIOLATED');
}

function writeRunFile(ledger: LocalMapping, inventory: LocalMapping): void {
  mkdirSync(join(projectRoot, '.cache'), { recursive: true });
  const state = {
    endpoint: emulator.endpoint,
    consumers: Object.fromEntries(
      [ledger, inventory].map((m) => [
        m.consumer,
        {
          queueUrl: m.queueUrl,
          deadLetterQueueUrl: m.deadLetterQueueUrl,
          inboxTable: m.environment[InboxEnvironment.TableName],
        },
      ]),
    ),
  };
  writeFileSync(LOCAL_RUN_FILE, `${JSON.stringify(state, null, 2)}\n`);
}

function printServing(ledger: LocalMapping, inventory: LocalMapping): void {
  console.log(`\nserving until Ctrl-C on ${emulator.endpoint}`);
  console.log(`  ledger queue:    ${ledger.queueUrl}\n  inventory queue: ${inventory.queueUrl}`);
  console.log(
    `  e.g. npm run send -- inventory '{"eventId":"e-1","orderId":"o-1","lines":[{"sku":"sku-apple","quantity":1}]}'`,
  );
  console.log(
    `  or:  AWS_ENDPOINT_URL=${emulator.endpoint} AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test aws sqs send-message --queue-url ${inventory.queueUrl} --message-body '…'`,
  );
  const stop = async () => {
    await shutDown();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
