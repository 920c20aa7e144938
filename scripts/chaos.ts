/**
 * `npm run chaos`: the reference service's consumers as child processes, killed with SIGKILL at
 * five crash points and restarted, over seeded traffic with duplicates, with AWS faults injected
 * into their clients — then the invariants: no double effects, nothing lost, stock conserved.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Command, InvalidArgumentError, Option } from 'commander';
import { businessTableVariable, InboxEnvironment } from 'sqs-inbox';
import { bundleChaosWorker } from '../tools/chaos/bundleChaosWorker.js';
import { ChaosSupervisor } from '../tools/chaos/ChaosSupervisor.js';
import { type ChaosConsumer, ChaosTraffic } from '../tools/chaos/ChaosTraffic.js';
import { checkCounters } from '../tools/chaos/checkCounters.js';
import { checkProbe } from '../tools/chaos/checkProbe.js';
import { printChaosReport } from '../tools/chaos/printChaosReport.js';
import { provisionCounterConsumer } from '../tools/chaos/provisionCounterConsumer.js';
import { watchStock } from '../tools/chaos/watchStock.js';
import { CrashPoint } from '../tools/chaos/workerProtocol.js';
import { startDynamoDBLocal } from '../tools/emulator/dynamodbLocal.js';
import { startEmulator } from '../tools/emulator/emulator.js';
import { projectRoot } from '../tools/emulator/paths.js';
import { checkInvariants, invariantTargetsOf } from '../tools/local/checkInvariants.js';
import { sendMessages } from '../tools/local/demoTraffic.js';
import { type LocalMapping, provisionFromTemplate } from '../tools/local/provisionFromTemplate.js';
import { queueDepth } from '../tools/local/queueDepth.js';
import { synthesizeReferenceTemplate } from '../tools/local/referenceTemplate.js';

const number =
  (name: string, min: number, max = Number.POSITIVE_INFINITY, integer = true) =>
  (value: string) => {
    const parsed = Number(value);
    if (!(parsed >= min && parsed <= max) || (integer && !Number.isInteger(parsed)))
      throw new InvalidArgumentError(
        `${name} must be ${integer ? 'an integer' : 'a number'} in [${min}, ${max}] (given ${value}).`,
      );
    return parsed;
  };

const options = new Command('npm run chaos --')
  .description(
    'Kill the reference consumers at five crash points while AWS faults are injected, then check that every effect happened exactly once and nothing was lost.',
  )
  .option('--crashes <n>', 'crashes to inject before draining', number('--crashes', 5), 1000)
  .option(
    '--duplicates <rate>',
    'share of events sent twice',
    number('--duplicates', 0, 0.9, false),
    0.3,
  )
  .option(
    '--fault-rate <rate>',
    'share of AWS requests that fail',
    number('--fault-rate', 0, 0.5, false),
    0.03,
  )
  .option('--workers <n>', 'consumer processes per consumer', number('--workers', 2, 8), 3)
  .option(
    '--visibility <seconds>',
    'visibility timeout of each receive',
    number('--visibility', 2, 60),
    3,
  )
  .option(
    '--seed <n>',
    'seed of traffic, crash points and faults',
    number('--seed', 0),
    Date.now() % 1_000_000,
  )
  .option('--timeout <seconds>', 'longest run before giving up', number('--timeout', 30), 1800)
  .addOption(
    new Option(
      '--dynamodb <backend>',
      'DynamoDB backend: the emulator, or DynamoDB Local (the official engine)',
    )
      .choices(['emulator', 'dynamodb-local'])
      .default('emulator'),
  )
  .parse()
  .opts<{
    crashes: number;
    duplicates: number;
    faultRate: number;
    workers: number;
    visibility: number;
    seed: number;
    timeout: number;
    dynamodb: 'emulator' | 'dynamodb-local';
  }>();

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const WAVE_EVENTS = 40;
const MAX_RECEIVE_COUNT = 100;
const LOW_WATER_MESSAGES = 200;
const startedMillis = Date.now();
const deadline = startedMillis + options.timeout * 1000;

const emulator = await startEmulator(['sqs', 'dynamodb']);
const dynamodbLocal =
  options.dynamodb === 'dynamodb-local' ? await startDynamoDBLocal() : undefined;
const endpoints = { dynamodb: (dynamodbLocal ?? emulator).endpoint, sqs: emulator.endpoint };
const config = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
};
const clients = {
  dynamodb: new DynamoDBClient({ ...config, endpoint: endpoints.dynamodb }),
  sqs: new SQSClient({ ...config, endpoint: endpoints.sqs }),
};
let supervisor: ChaosSupervisor | undefined;
let workerPath: string | undefined;
let exitCode = 1;
try {
  exitCode = await run();
} finally {
  await supervisor?.stop();
  if (workerPath) rmSync(dirname(workerPath), { recursive: true, force: true });
  await Promise.all([emulator.stop(), dynamodbLocal?.stop()]);
}
process.exit(exitCode);

async function run(): Promise<number> {
  console.log(
    `DynamoDB: ${(dynamodbLocal ?? emulator).name}; SQS: ${emulator.name}; seed ${options.seed}`,
  );
  const setup = await provision();
  const documentClient = DynamoDBDocumentClient.from(clients.dynamodb);
  const stockWatch = watchStock(documentClient, setup.stockTable, 2000);
  workerPath = await bundleChaosWorker();
  supervisor = new ChaosSupervisor({
    workerPath,
    endpoints,
    mappings: setup.mappings,
    workersPerConsumer: options.workers,
    faultRate: options.faultRate,
    seed: options.seed,
    visibilitySeconds: options.visibility,
    probeTable: setup.probeTable,
  });
  supervisor.start();
  const reachedTarget = await injectUntilTarget(supervisor, setup.traffic, setup.mappings);
  supervisor.disarm();
  const drained = reachedTarget && (await waitUntilDrained(Object.values(setup.mappings)));
  await supervisor.stop();
  const results = [await stockWatch.stop(), ...(await checkAll(setup, documentClient))];
  writeTrace(supervisor.trace);
  return printChaosReport({
    supervisor,
    plan: setup.traffic.plan(),
    counterEvents: setup.traffic.counterPlan().events.length,
    messagesSent: setup.traffic.sent,
    results,
    drained,
    crashTarget: options.crashes,
    seconds: (Date.now() - startedMillis) / 1000,
  });
}

type Setup = Awaited<ReturnType<typeof provision>>;

/** The reference stack from the CDK app, the counter consumer, the probe table, seeded stock. */
async function provision() {
  // maxReceiveCount high enough that crashes alone never push a valid event to the DLQ.
  const { mappings } = await provisionFromTemplate(
    synthesizeReferenceTemplate({ functionTimeoutSeconds: 1, maxReceiveCount: MAX_RECEIVE_COUNT }),
    clients,
  );
  const ledger = mappingOf(mappings, 'ledger');
  const inventory = mappingOf(mappings, 'inventory');
  const counter = await provisionCounterConsumer(clients, inventory, MAX_RECEIVE_COUNT);
  const traffic = new ChaosTraffic({
    seed: options.seed,
    duplicateRate: options.duplicates,
    // About two units of each SKU are ordered per crash: the stock runs out near the end, so
    // reservations (and their lost races) go on for most of the run and rejections come too.
    stockPerSku: Math.max(50, 2 * options.crashes),
  });
  const stockTable = inventory.environment[businessTableVariable('stock')] ?? '';
  await seedStock(traffic, stockTable);
  const probeTable = await createProbeTable(
    `${ledger.environment[InboxEnvironment.TableName]}-probe`,
  );
  return { mappings: { ledger, inventory, counter }, traffic, stockTable, probeTable };
}

/** The probe, the counter's invariants, then the reference service's. */
async function checkAll(setup: Setup, documentClient: DynamoDBDocumentClient) {
  const { ledger, inventory, counter } = setup.mappings;
  return [
    await checkProbe(documentClient, {
      probe: setup.probeTable,
      inbox: ledger.environment[InboxEnvironment.TableName] ?? '',
    }),
    ...(await checkCounters(
      { documentClient, sqs: clients.sqs },
      counter,
      setup.traffic.counterPlan().events,
    )),
    ...(await checkInvariants(
      setup.traffic.plan(),
      invariantTargetsOf(ledger, inventory),
      clients,
    )),
  ];
}

/** Keeps traffic flowing while the supervisor collects its crashes. */
async function injectUntilTarget(
  supervisor: ChaosSupervisor,
  traffic: ChaosTraffic,
  mappings: Record<ChaosConsumer, LocalMapping>,
): Promise<boolean> {
  const queues = {
    ledger: mappings.ledger.queueUrl,
    inventory: mappings.inventory.queueUrl,
    counter: mappings.counter.queueUrl,
  };
  let lastLineMillis = 0;
  const everyPointHit = () => Object.values(CrashPoint).every((p) => supervisor.crashes.get(p));
  while (supervisor.totalCrashes < options.crashes || !everyPointHit()) {
    if (Date.now() > deadline) {
      console.log(`\nonly ${supervisor.totalCrashes} crashes within ${options.timeout} s`);
      return false;
    }
    const depths = await Promise.all(
      Object.values(queues).map((url) => queueDepth(clients.sqs, url)),
    );
    const depth = depths.reduce((sum, n) => sum + n, 0);
    if (depth < LOW_WATER_MESSAGES)
      await sendMessages(clients.sqs, traffic.nextWave(WAVE_EVENTS), queues);
    if (Date.now() - lastLineMillis > 5000) {
      lastLineMillis = Date.now();
      console.log(
        `${Math.round((Date.now() - startedMillis) / 1000)} s: ${supervisor.totalCrashes} crashes (${Object.values(
          CrashPoint,
        )
          .map((p) => supervisor.crashes.get(p) ?? 0)
          .join('/')} at points 1–5), ${traffic.sent} messages sent, ${depth} queued`,
      );
    }
    await sleep(250);
  }
  return true;
}

/** Waits until both queues stay empty (visible and in flight) for three polls in a row. */
async function waitUntilDrained(mappings: LocalMapping[]): Promise<boolean> {
  console.log(`${supervisor?.totalCrashes} crashes injected; draining`);
  let emptyPolls = 0;
  while (Date.now() < deadline) {
    const depths = await Promise.all(mappings.map((m) => queueDepth(clients.sqs, m.queueUrl)));
    emptyPolls = depths.every((depth) => depth === 0) ? emptyPolls + 1 : 0;
    if (emptyPolls >= 3) return true;
    await sleep(1000);
  }
  console.log(`the queues did not drain within ${options.timeout} s`);
  return false;
}

function mappingOf(mappings: readonly LocalMapping[], consumer: string): LocalMapping {
  const mapping = mappings.find((m) => m.consumer === consumer);
  if (!mapping) throw new Error(`the reference stack has no ${consumer} consumer`);
  return mapping;
}

/** Every crash of the run, one JSON line each, for a closer look after the report. */
function writeTrace(lines: readonly string[]): void {
  const file = join(projectRoot, '.cache', `chaos-${options.seed}-crashes.jsonl`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, lines.map((line) => `${line}\n`).join(''));
  console.log(`crash trace: ${file}`);
}

/** The probe's table: one counter per inbox key, outside the reference stack. */
async function createProbeTable(name: string): Promise<string> {
  await clients.dynamodb.send(
    new CreateTableCommand({
      TableName: name,
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  return name;
}

async function seedStock(traffic: ChaosTraffic, table: string): Promise<void> {
  const items = [...traffic.plan().seededStock].map(([sku, available]) => ({
    PutRequest: { Item: { sku, available } },
  }));
  await DynamoDBDocumentClient.from(clients.dynamodb).send(
    new BatchWriteCommand({ RequestItems: { [table]: items } }),
  );
}
