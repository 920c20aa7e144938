import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { trackChild } from '../cli/shutdown.js';
import { seededRandom } from '../local/demoTraffic.js';
import type { LocalMapping } from '../local/provisionFromTemplate.js';
import type { ChaosConsumer } from './ChaosTraffic.js';
import { MessageHoldings } from './MessageHoldings.js';
import {
  CRASH_CHANNEL_FD,
  CrashPoint,
  type SupervisorCommand,
  type WorkerConfig,
  type WorkerReport,
} from './workerProtocol.js';

/** How the supervisor runs its workers. */
export interface ChaosSupervisorOptions {
  readonly workerPath: string;
  readonly endpoints: { readonly dynamodb: string; readonly sqs: string };
  readonly mappings: Readonly<Record<ChaosConsumer, LocalMapping>>;
  readonly workersPerConsumer: number;
  readonly faultRate: number;
  readonly seed: number;
  readonly visibilitySeconds: number;
  readonly probeTable: string;
}

interface Worker {
  readonly consumer: ChaosConsumer;
  readonly point: CrashPoint | undefined;
  readonly spawnId: number;
  readonly child: ChildProcess;
  readonly startedMillis: number;
  /** Reported its crash (and is being killed), or exited: sent nothing more. */
  dead: boolean;
  crashReported: boolean;
  stderr: string;
}

// Points 1–4 can hit any consumer; two consumers hold copies of one event at once only on a
// standard queue (a FIFO queue hands out one message of a group at a time).
const POINTS: Readonly<Record<ChaosConsumer, readonly CrashPoint[]>> = {
  ledger: [
    CrashPoint.BeforeTransaction,
    CrashPoint.AfterCommit,
    CrashPoint.MidBatch,
    CrashPoint.SlowHandler,
    CrashPoint.HangingHandler,
  ],
  inventory: Object.values(CrashPoint),
  counter: Object.values(CrashPoint),
};
const CONSUMER_OFFSET: Readonly<Record<ChaosConsumer, number>> = {
  ledger: 0,
  inventory: 1,
  counter: 2,
};
const REPEATABLE: ReadonlySet<CrashPoint> = new Set([
  CrashPoint.BeforeTransaction,
  CrashPoint.AfterCommit,
  CrashPoint.MidBatch,
  CrashPoint.HangingHandler,
]);

/**
 * Runs the chaos run's consumer processes: keeps `workersPerConsumer` workers alive per
 * consumer, gives each new worker the next crash point of a seeded sequence, kills a worker
 * with SIGKILL the moment it reports it stands at its point, and starts a new one in its place.
 * It also answers the workers' questions about who holds which message, and tallies crashes,
 * injected faults and the library's metrics.
 *
 * @example
 * ```ts
 * const supervisor = new ChaosSupervisor(options); supervisor.start();
 * // … later
 * supervisor.disarm(); await supervisor.stop();
 * ```
 */
export class ChaosSupervisor {
  readonly crashes = new Map<CrashPoint, number>();
  readonly crashSamples = new Map<CrashPoint, string>();
  /** Per crash point: the time its workers lived, from start to kill. */
  readonly lifeMillis = new Map<CrashPoint, number>();
  /** Per crash point: kills while another consumer held the same event. */
  readonly concurrentCrashes = new Map<CrashPoint, number>();
  readonly faults = new Map<string, number>();
  readonly metrics: Record<ChaosConsumer, Map<string, number>> = {
    ledger: new Map(),
    inventory: new Map(),
    counter: new Map(),
  };
  readonly unexpectedExits: string[] = [];
  spawned = 0;
  readonly #options: ChaosSupervisorOptions;
  readonly #workers = new Set<Worker>();
  readonly #nextPlan: Record<
    ChaosConsumer,
    (allowWaiting: boolean) => { point: CrashPoint; crashAfter: number }
  >;
  readonly #holdings = new MessageHoldings();
  #armed = true;
  readonly #started: Record<ChaosConsumer, number> = { ledger: 0, inventory: 0, counter: 0 };
  /** Every crash, one JSON line each, for a report or a replay. */
  readonly trace: string[] = [];
  #stopping = false;

  constructor(options: ChaosSupervisorOptions) {
    this.#options = options;
    this.#nextPlan = {
      ledger: planner('ledger', options.seed, this.crashes),
      inventory: planner('inventory', options.seed + 1, this.crashes),
      counter: planner('counter', options.seed + 2, this.crashes),
    };
  }

  get totalCrashes(): number {
    return [...this.crashes.values()].reduce((sum, n) => sum + n, 0);
  }

  start(): void {
    for (const consumer of ['ledger', 'inventory', 'counter'] as const)
      for (let i = 0; i < this.#options.workersPerConsumer; i++) this.#spawn(consumer);
  }

  /** New and running workers stop crashing: the run drains. */
  disarm(): void {
    this.#armed = false;
    for (const worker of this.#workers) send(worker, { type: 'disarm' });
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    await Promise.all(
      [...this.#workers].map(async ({ child }) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }),
    );
  }

  #spawn(consumer: ChaosConsumer): void {
    const spawnId = ++this.spawned;
    // Seeds and settings by the consumer's own count of workers, not the global spawn order.
    const index = this.#started[consumer]++;
    // Points 4 and 5 wait for another worker of the same consumer to act: one process of each
    // consumer is always at a point that does not wait, so someone keeps receiving.
    const waiting = [...this.#workers].filter(
      (w) =>
        w.consumer === consumer && !w.dead && w.point !== undefined && !REPEATABLE.has(w.point),
    ).length;
    const allowWaiting = waiting < this.#options.workersPerConsumer - 1;
    const plan = this.#armed ? this.#nextPlan[consumer](allowWaiting) : undefined;
    const config: WorkerConfig = {
      workerId: spawnId,
      consumer,
      mapping: this.#options.mappings[consumer],
      endpoints: this.#options.endpoints,
      crashPoint: plan?.point,
      crashAfter: plan?.crashAfter ?? 0,
      faultRate: this.#options.faultRate,
      seed: this.#options.seed * 100_003 + index * 3 + CONSUMER_OFFSET[consumer],
      visibilitySeconds: this.#options.visibilitySeconds,
      // Half the workers skip the pre-check read: their copies meet the inbox condition itself.
      precheck: index % 2 === 0,
      probeTable: this.#options.probeTable,
    };
    const child = fork(this.#options.workerPath, [], {
      env: { ...process.env, CHAOS_WORKER: JSON.stringify(config) },
      execArgv: [],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc', 'pipe'],
    });
    trackChild(child);
    const worker: Worker = {
      consumer,
      point: plan?.point,
      spawnId,
      child,
      startedMillis: Date.now(),
      dead: false,
      crashReported: false,
      stderr: '',
    };
    this.#workers.add(worker);
    child.stderr?.on('data', (chunk) => {
      worker.stderr = (worker.stderr + chunk).slice(-2000);
    });
    child.on('message', (report: WorkerReport) => this.#onReport(worker, report));
    // A message to a worker that just died fails with EPIPE: that worker needs no answer.
    child.on('error', (error) => {
      worker.stderr = `${worker.stderr}\n[supervisor] ${error.message}`.slice(-2000);
    });
    this.#holdings.addWorker(spawnId, consumer);
    const channel = child.stdio[CRASH_CHANNEL_FD] as Readable;
    const noteError = (error: Error) => {
      worker.stderr = `${worker.stderr}\n[supervisor] ${error.message}`.slice(-2000);
    };
    channel.on('error', noteError);
    child.stderr?.on('error', noteError);
    readLines(channel, (line) => {
      try {
        this.#onReport(worker, JSON.parse(line) as WorkerReport);
      } catch (error) {
        this.unexpectedExits.push(
          `worker ${spawnId} sent an unreadable report: ${line.slice(0, 200)} (${error})`,
        );
      }
    });
    child.on('exit', (code, signal) => this.#onExit(worker, code, signal));
  }

  #onReport(worker: Worker, report: WorkerReport): void {
    // A dead worker's last counts still count (IPC may deliver them after its crash report).
    if (worker.dead && report.type !== 'metric' && report.type !== 'fault') return;
    if (report.type === 'crash') {
      const concurrent = this.#holdings.heldElsewhere(worker, report.point, report.message);
      worker.crashReported = true;
      this.#bury(worker);
      this.trace.push(
        JSON.stringify({ worker: worker.spawnId, consumer: worker.consumer, ...report }),
      );
      this.crashes.set(report.point, (this.crashes.get(report.point) ?? 0) + 1);
      if (!this.crashSamples.has(report.point)) this.crashSamples.set(report.point, report.detail);
      if (concurrent)
        this.concurrentCrashes.set(
          report.point,
          (this.concurrentCrashes.get(report.point) ?? 0) + 1,
        );
      const lived = Date.now() - worker.startedMillis;
      this.lifeMillis.set(report.point, (this.lifeMillis.get(report.point) ?? 0) + lived);
      worker.child.kill('SIGKILL');
    } else if (report.type === 'received') {
      for (const message of report.messages) this.#holdings.hold(worker.spawnId, message);
    } else if (report.type === 'settled') {
      for (const messageId of report.messageIds) this.#holdings.release(worker.spawnId, messageId);
    } else if (report.type === 'fault') {
      const name = `${report.fault.service}|${report.fault.kind}`;
      this.faults.set(name, (this.faults.get(name) ?? 0) + 1);
    } else if (report.type === 'metric') {
      const totals = this.metrics[worker.consumer];
      totals.set(report.name, (totals.get(report.name) ?? 0) + report.value);
    } else {
      this.#holdings.answer(worker, report, (yes) =>
        send(worker, { type: 'answer', id: report.id, yes }),
      );
    }
  }

  #onExit(worker: Worker, code: number | null, signal: NodeJS.Signals | null): void {
    this.#workers.delete(worker);
    this.#bury(worker);
    if (this.#stopping) return;
    if (!worker.crashReported || signal !== 'SIGKILL')
      this.unexpectedExits.push(
        `${worker.consumer} worker ${worker.spawnId} exited (code ${code}, signal ${signal})${
          worker.crashReported ? ' after its crash report' : ''
        }: ${worker.stderr.trim().split('\n').slice(-3).join(' | ')}`,
      );
    this.#spawn(worker.consumer);
  }

  /** A worker that reported its crash or exited: no more messages to it, its questions dropped. */
  #bury(worker: Worker): void {
    worker.dead = true;
    this.#holdings.forgetWorker(worker.spawnId);
  }
}

function send(worker: Worker, command: SupervisorCommand): void {
  if (worker.dead || !worker.child.connected) return;
  worker.child.send(command, (error) => {
    if (error) worker.dead = true;
  });
}

function readLines(stream: Readable, onLine: (line: string) => void): void {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (buffered + chunk).split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) onLine(line);
  });
}

/**
 * A seeded sequence of crash plans for one consumer's workers. It picks, at random, among the
 * points with the fewest crashes so far (so the six stay balanced though points 4 and 5 take
 * seconds to reach). While every waiting slot is taken, a new worker gets a quick point but
 * passes 5–9 occurrences first: it serves as the receiver the waiting ones need.
 */
function planner(consumer: ChaosConsumer, seed: number, crashes: ReadonlyMap<CrashPoint, number>) {
  const random = seededRandom(seed);
  return (allowWaiting: boolean) => {
    const allowed = POINTS[consumer].filter((point) => allowWaiting || REPEATABLE.has(point));
    const fewest = Math.min(...allowed.map((point) => crashes.get(point) ?? 0));
    const points = allowed.filter((point) => (crashes.get(point) ?? 0) === fewest);
    const point = points[Math.floor(random() * points.length)] ?? CrashPoint.BeforeTransaction;
    if (!REPEATABLE.has(point)) return { point, crashAfter: 0 };
    const receiverPasses = allowWaiting ? 0 : 5 + Math.floor(random() * 5);
    return { point, crashAfter: Math.floor(random() * 2) + receiverPasses };
  };
}
