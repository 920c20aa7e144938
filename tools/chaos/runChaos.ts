import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { businessTableVariable, InboxAttribute, InboxEnvironment } from 'sqs-inbox/constants';
import { InventoryTable } from '../../functions/inventory/orderPlaced.js';
import { onShutdown } from '../cli/shutdown.js';
import { startDynamoDBLocal } from '../emulator/dynamodbLocal.js';
import { startEmulator } from '../emulator/emulator.js';
import { projectRoot } from '../emulator/paths.js';
import { checkInvariants, invariantTargetsOf } from '../local/checkInvariants.js';
import { seededRandom } from '../local/demoTraffic.js';
import { type LocalClients, localClients } from '../local/localClients.js';
import { type LocalMapping, provisionFromTemplate } from '../local/provisionFromTemplate.js';
import { queueDepth } from '../local/queueDepth.js';
import { scanAll } from '../local/readRunState.js';
import { readSentEmails } from '../local/readSentEmails.js';
import {
  mappingOf,
  REFERENCE_SERVICES,
  seedStock,
  waitUntilEmpty,
} from '../local/referenceService.js';
import { synthesizeReferenceTemplate } from '../local/referenceTemplate.js';
import type { LocalStreamSpec } from '../local/streamMappingsOf.js';
import { UpstreamDelivery } from '../local/UpstreamDelivery.js';
import { bundleChaosWorkers } from './bundleChaosWorkers.js';
import { ChaosRedrive } from './ChaosRedrive.js';
import { ChaosRelay } from './ChaosRelay.js';
import { ChaosSupervisor } from './ChaosSupervisor.js';
import { ChaosTraffic } from './ChaosTraffic.js';
import { checkCounters } from './checkCounters.js';
import { checkProbe } from './checkProbe.js';
import { checkRelayedIds } from './checkRelayedIds.js';
import { OperatorCommand } from './operatorCommand.js';
import { printChaosReport } from './printChaosReport.js';
import { provisionCounterConsumer } from './provisionCounterConsumer.js';
import { watchStock } from './watchStock.js';
import { CrashPoint } from './workerProtocol.js';

/** Options of {@link runChaos} (`npm run chaos`). */
export interface ChaosOptions {
  /** Crashes to inject before draining. */
  readonly crashes: number;
  /** Share of events sent twice. */
  readonly duplicates: number;
  /** Share of AWS requests that fail. */
  readonly faultRate: number;
  /** Consumer processes per consumer. */
  readonly workers: number;
  /** Visibility timeout of each receive, in seconds. */
  readonly visibility: number;
  /** Seed of traffic, crash points and faults. */
  readonly seed: number;
  /** Longest run before giving up, in seconds. */
  readonly timeout: number;
  /** DynamoDB backend: the emulator, or DynamoDB Local (the official engine). */
  readonly dynamodb: 'emulator' | 'dynamodb-local';
  /** The consumers share transactions between messages (`coalesce: true`). */
  readonly coalesce: boolean;
}

const WAVE_EVENTS = 40;
const MAX_RECEIVE_COUNT = 100;
const LOW_WATER_MESSAGES = 200;
// Every few seconds (once the last run of the command ended: each takes seconds) a few
// committed events and a few still on their way reach a DLQ, and the operator runs the redrive
// command on them.
const REDRIVE_EVERY_MILLIS = 3_000;
const REDRIVE_PER_ROUND = { committed: 6, onTheirWay: 2 };

/**
 * `npm run chaos`: the reference service's consumers and the ledger's outbox relay as child
 * processes, killed with SIGKILL at thirteen crash points (four inside the notifier's steps, two
 * in the relay, one right after a commit that published) and restarted, over seeded traffic
 * with duplicates, with AWS faults injected into their clients — then the invariants: no double
 * effects, nothing lost on either hop, stock conserved. Returns the exit code. Everything it
 * starts is stopped when the command stops.
 */
export async function runChaos(options: ChaosOptions): Promise<number> {
  const startedMillis = Date.now();
  const emulator = await startEmulator(REFERENCE_SERVICES);
  const dynamodbLocal =
    options.dynamodb === 'dynamodb-local' ? await startDynamoDBLocal() : undefined;
  const endpoints = { dynamodb: (dynamodbLocal ?? emulator).endpoint, sqs: emulator.endpoint };
  const labels = { dynamodb: (dynamodbLocal ?? emulator).name, sqs: emulator.name };
  const chaos = new ChaosRun(options, localClients(endpoints), endpoints, labels, startedMillis);
  onShutdown(() => chaos.stop());
  return chaos.run();
}

type Setup = Awaited<ReturnType<ChaosRun['provision']>>;

/** One chaos run: provisioning, the supervised workers, the traffic and the checks. */
class ChaosRun {
  supervisor: ChaosSupervisor | undefined;
  relay: ChaosRelay | undefined;
  command: OperatorCommand | undefined;
  workerPaths: { consumer: string; relay: string } | undefined;
  readonly deadline: number;

  constructor(
    readonly options: ChaosOptions,
    readonly clients: LocalClients,
    readonly endpoints: { dynamodb: string; sqs: string },
    readonly labels: { dynamodb: string; sqs: string },
    readonly startedMillis: number,
  ) {
    this.deadline = startedMillis + options.timeout * 1000;
  }

  /** Stops the workers and the relay, and removes the bundled workers. */
  async stop(): Promise<void> {
    this.command?.stop();
    await Promise.all([this.supervisor?.stop(), this.relay?.stop()]);
    for (const path of Object.values(this.workerPaths ?? {}))
      rmSync(dirname(path), { recursive: true, force: true });
  }

  async run(): Promise<number> {
    console.log(
      `DynamoDB: ${this.labels.dynamodb}; SQS: ${this.labels.sqs}; seed ${this.options.seed}`,
    );
    const setup = await this.provision();
    const documentClient = DynamoDBDocumentClient.from(this.clients.dynamodb);
    const stockWatch = watchStock(documentClient, setup.stockTable, 2000);
    this.command = new OperatorCommand(this.endpoints);
    const redrive = new ChaosRedrive({
      delivery: setup.delivery,
      clients: this.clients,
      documents: documentClient,
      mappings: setup.mappings,
      command: this.command,
      random: seededRandom(this.options.seed ^ 0x2545f491),
    });
    this.workerPaths = await bundleChaosWorkers();
    const inboxTable = setup.mappings.ledger.environment[InboxEnvironment.TableName] ?? '';
    const supervisor = new ChaosSupervisor({
      workerPath: this.workerPaths.consumer,
      endpoints: this.endpoints,
      mappings: setup.mappings,
      workersPerConsumer: this.options.workers,
      faultRate: this.options.faultRate,
      coalesce: this.options.coalesce,
      seed: this.options.seed,
      visibilitySeconds: this.options.visibility,
      probeTable: setup.probeTable,
      leaseEpochOf: async (pk) => {
        const { Item } = await documentClient.send(
          new GetCommand({ TableName: inboxTable, Key: { pk }, ConsistentRead: true }),
        );
        return Item?.leaseEpoch === undefined ? undefined : Number(Item.leaseEpoch);
      },
    });
    this.supervisor = supervisor;
    supervisor.start();
    const relay = this.startRelay(setup.outbox, supervisor);
    await relay.start();
    const reachedTarget = await this.injectUntilTarget(supervisor, setup, redrive);
    supervisor.disarm();
    relay.disarm();
    const mappings = Object.values(setup.mappings);
    const drained =
      reachedTarget &&
      (await this.waitUntilDrained(mappings, relay)) &&
      (await this.settleRedrive(redrive, mappings, relay));
    await Promise.all([supervisor.stop(), relay.stop()]);
    const results = [
      await stockWatch.stop(),
      ...(await this.checkAll(setup, documentClient, supervisor)),
      ...(await redrive.check(setup.probeTable)),
      checkRelayedIds(
        setup.traffic.plan().notifications,
        supervisor.relayedIds,
        setup.mappings.ledger.environment[InboxEnvironment.Consumer] ?? 'ledger',
      ),
    ];
    this.writeTrace(supervisor.trace, 'crashes');
    this.writeTrace(supervisor.steps.trace, 'steps');
    return printChaosReport({
      supervisor,
      relay,
      plan: setup.traffic.plan(),
      counterEvents: setup.traffic.counterPlan().events.length,
      messagesSent: setup.traffic.sent,
      results,
      drained,
      crashTarget: this.options.crashes,
      seconds: (Date.now() - this.startedMillis) / 1000,
    });
  }

  /** The reference stack from the CDK app, the counter consumer, the probe table, seeded stock. */
  async provision() {
    // maxReceiveCount high enough that crashes alone never push a valid event to the DLQ.
    const { mappings, streamMappings } = await provisionFromTemplate(
      synthesizeReferenceTemplate({
        functionTimeoutSeconds: 1,
        maxReceiveCount: MAX_RECEIVE_COUNT,
      }),
      this.clients,
    );
    const ledger = mappingOf(mappings, 'ledger');
    const inventory = mappingOf(mappings, 'inventory');
    const notifier = mappingOf(mappings, 'notifier');
    const [outbox] = streamMappings;
    if (outbox === undefined)
      throw new Error("the reference stack has no outbox relay (the ledger's)");
    const counter = await provisionCounterConsumer(this.clients, inventory, MAX_RECEIVE_COUNT);
    const traffic = new ChaosTraffic({
      seed: this.options.seed,
      duplicateRate: this.options.duplicates,
      // About two units of each SKU are ordered per crash: the stock runs out near the end, so
      // reservations (and their lost races) go on for most of the run and rejections come too.
      stockPerSku: Math.max(50, 2 * this.options.crashes),
    });
    const stockTable = inventory.environment[businessTableVariable(InventoryTable.Stock)] ?? '';
    await seedStock(this.clients.dynamodb, traffic.plan().seededStock, stockTable);
    const probeTable = await this.createProbeTable(
      `${ledger.environment[InboxEnvironment.TableName]}-probe`,
    );
    // Payments go through the payments topic, orders through the orders bus, notifications and
    // increments straight to their queues; copies are delivered again by the upstream.
    const mappingsByConsumer = { ledger, inventory, notifier, counter };
    const delivery = await UpstreamDelivery.find(this.clients, mappingsByConsumer);
    // The emulator keeps every email it accepted: this run's are the ones after these.
    const emailsBefore = (await readSentEmails(this.endpoints.sqs)).length;
    return {
      mappings: mappingsByConsumer,
      outbox,
      traffic,
      stockTable,
      probeTable,
      delivery,
      emailsBefore,
    };
  }

  /** The probe, the counter's invariants, the steps', then the reference service's. */
  async checkAll(
    setup: Setup,
    documentClient: DynamoDBDocumentClient,
    supervisor: ChaosSupervisor,
  ) {
    const { ledger, inventory, notifier, counter } = setup.mappings;
    const consumer = notifier.environment[InboxEnvironment.Consumer] ?? '';
    const inbox = await scanAll(
      documentClient,
      ledger.environment[InboxEnvironment.TableName] ?? '',
    );
    const notifierEntries = inbox.filter((entry) => String(entry.pk).startsWith(`${consumer}#`));
    const emails = (await readSentEmails(this.endpoints.sqs)).slice(setup.emailsBefore);
    return [
      await checkProbe(documentClient, {
        probe: setup.probeTable,
        inbox: ledger.environment[InboxEnvironment.TableName] ?? '',
      }),
      ...(await checkCounters(
        { documentClient, sqs: this.clients.sqs },
        counter,
        setup.traffic.counterPlan().events,
      )),
      ...supervisor.steps.check(notifierEntries),
      ...(await checkInvariants(
        setup.traffic.plan(),
        {
          ...invariantTargetsOf({ ledger, inventory, notifier }),
          // The relay's dead-letter queue is also its mapping's on-failure destination.
          outbox: {
            table: setup.outbox.tableName,
            deadLetterQueueUrl: setup.outbox.deadLetterQueueUrl,
          },
        },
        this.clients,
        { emails, allowance: supervisor.steps.extraEmailAllowance(consumer) },
      )),
    ];
  }

  /**
   * Keeps traffic flowing while the supervisor collects its crashes, and every few seconds
   * starts an operator round of the DLQ redrive (in the background: the command takes seconds).
   */
  async injectUntilTarget(
    supervisor: ChaosSupervisor,
    { traffic, delivery, mappings }: Pick<Setup, 'traffic' | 'delivery' | 'mappings'>,
    redrive: ChaosRedrive,
  ): Promise<boolean> {
    const queues = Object.values(mappings).map((mapping) => mapping.queueUrl);
    let lastLineMillis = 0;
    let lastRedriveMillis = Date.now();
    let round: Promise<void> | undefined;
    const everyPointHit = () => Object.values(CrashPoint).every((p) => supervisor.crashes.get(p));
    try {
      while (supervisor.totalCrashes < this.options.crashes || !everyPointHit()) {
        if (Date.now() > this.deadline) {
          console.log(`\nonly ${supervisor.totalCrashes} crashes within ${this.options.timeout} s`);
          return false;
        }
        const depths = await Promise.all(queues.map((url) => queueDepth(this.clients.sqs, url)));
        const depth = depths.reduce((sum, n) => sum + n, 0);
        if (depth < LOW_WATER_MESSAGES) await delivery.send(traffic.nextWave(WAVE_EVENTS));
        if (round === undefined && Date.now() - lastRedriveMillis > REDRIVE_EVERY_MILLIS) {
          round = redrive.round(traffic.sentMessages(), REDRIVE_PER_ROUND).finally(() => {
            round = undefined;
            lastRedriveMillis = Date.now();
          });
        }
        if (Date.now() - lastLineMillis > 5000) {
          lastLineMillis = Date.now();
          console.log(this.progressLine(supervisor, traffic.sent, redrive, depth));
        }
        await sleep(250);
      }
      return true;
    } finally {
      await round;
    }
  }

  /** One line of progress: crashes per point, messages, the operator's redrive, queued. */
  progressLine(
    supervisor: ChaosSupervisor,
    sent: number,
    redrive: ChaosRedrive,
    depth: number,
  ): string {
    const points = Object.values(CrashPoint);
    const crashes = points.map((p) => supervisor.crashes.get(p) ?? 0).join('/');
    const seconds = Math.round((Date.now() - this.startedMillis) / 1000);
    return `${seconds} s: ${supervisor.totalCrashes} crashes (${crashes} at points 1–${points.length}), ${sent} messages sent, ${redrive.deadLettered} redriven from DLQs (${redrive.pending()} pending), ${depth} queued`;
  }

  /**
   * After the drain: runs the operator's redrive command until no copy is left in a DLQ, and
   * drains again after each run that sent copies back.
   */
  async settleRedrive(
    redrive: ChaosRedrive,
    mappings: LocalMapping[],
    relay: ChaosRelay,
  ): Promise<boolean> {
    for (;;) {
      if (redrive.pending() === 0) return true;
      if (Date.now() > this.deadline) {
        console.log(`${redrive.pending()} copies still in DLQs after ${this.options.timeout} s`);
        return false;
      }
      console.log(`the operator's redrive: ${redrive.pending()} copies in DLQs; running it again`);
      const sentBack = await redrive.runCommand();
      if (sentBack > 0 && !(await this.waitUntilDrained(mappings, relay))) return false;
      if (sentBack === 0) await sleep(1_000);
    }
  }

  /** Waits until the queues stay empty (visible and in flight) for three polls in a row. */
  async waitUntilDrained(mappings: LocalMapping[], relay: ChaosRelay): Promise<boolean> {
    console.log(`${this.supervisor?.totalCrashes} crashes injected; draining`);
    const queueUrls = mappings.map((m) => m.queueUrl);
    // Queues empty, then the relay caught up with the outbox stream; again until it relays nothing.
    for (;;) {
      if (!(await waitUntilEmpty(this.clients.sqs, queueUrls, this.deadline))) {
        console.log(`the queues did not drain within ${this.options.timeout} s`);
        return false;
      }
      const invocations = relay.invocations;
      try {
        await relay.drain(Math.max(1_000, this.deadline - Date.now()));
      } catch {
        console.log(`the outbox stream did not drain within ${this.options.timeout} s`);
        return false;
      }
      if (relay.invocations === invocations) return true;
    }
  }

  /** The ledger's outbox relay: the run's stream mapping invoking relay processes it kills. */
  startRelay(spec: LocalStreamSpec, supervisor: ChaosSupervisor): ChaosRelay {
    const clientConfig = {
      endpoint: this.endpoints.dynamodb,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    };
    this.relay = new ChaosRelay({
      workerPath: this.workerPaths?.relay ?? '',
      spec,
      clients: {
        dynamodb: this.clients.dynamodb,
        streams: new DynamoDBStreamsClient(clientConfig),
        sqs: this.clients.sqs,
      },
      endpoint: this.endpoints.sqs,
      faultRate: this.options.faultRate,
      seed: this.options.seed,
      supervisor,
    });
    return this.relay;
  }

  /** Every crash (or every step report) of the run, one JSON line each, for a closer look. */
  writeTrace(lines: readonly string[], what: 'crashes' | 'steps'): void {
    const file = join(projectRoot, '.cache', `chaos-${this.options.seed}-${what}.jsonl`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, lines.map((line) => `${line}\n`).join(''));
    console.log(`${what === 'crashes' ? 'crash' : 'step'} trace: ${file}`);
  }

  /** The probe's table: one counter per inbox key, outside the reference stack. */
  async createProbeTable(name: string): Promise<string> {
    await this.clients.dynamodb.send(
      new CreateTableCommand({
        TableName: name,
        KeySchema: [{ AttributeName: InboxAttribute.PartitionKey, KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: InboxAttribute.PartitionKey, AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    return name;
  }
}
