import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { trackChild } from '../cli/shutdown.js';
import type { LocalMapping } from '../local/provisionFromTemplate.js';
import type { ChaosConsumer } from './ChaosTraffic.js';
import { CONSUMERS, type CrashPlanner, POINTS, planner, REPEATABLE } from './crashPlanner.js';
import { freezeUntilTakenOver } from './freezeUntilTakenOver.js';
import type { InjectedFault } from './injectFaults.js';
import { MessageHoldings } from './MessageHoldings.js';
import { readLines } from './readLines.js';
import { StepEvidence } from './StepEvidence.js';
import {
  CRASH_CHANNEL_FD,
  type CrashPoint,
  type CrashReport,
  type StepReport,
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
  /** Every worker shares transactions between messages (`coalesce`). */
  readonly coalesce: boolean;
  readonly seed: number;
  readonly visibilitySeconds: number;
  readonly probeTable: string;
  /** The epoch of the lease last claimed on an inbox entry (point 10 waits for it to grow). */
  readonly leaseEpochOf: (pk: string) => Promise<number | undefined>;
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
  readonly metrics = Object.fromEntries(
    CONSUMERS.map((consumer) => [consumer, new Map<string, number>()]),
  ) as Record<ChaosConsumer, Map<string, number>>;
  /** What the notifier's workers reported about their steps and leases. */
  readonly steps = new StepEvidence();
  /** Point 10's freezes: how many, and how many ended with the entry taken over. */
  readonly freezes = { asked: 0, takenOver: 0 };
  readonly unexpectedExits: string[] = [];
  /** Per event, the outbox id of each copy the relay sent that a worker received. */
  readonly relayedIds = new Map<string, string[]>();
  spawned = 0;
  readonly #options: ChaosSupervisorOptions;
  readonly #workers = new Set<Worker>();
  readonly #nextPlan: Record<ChaosConsumer, CrashPlanner>;
  readonly #holdings = new MessageHoldings();
  #armed = true;
  readonly #started = Object.fromEntries(CONSUMERS.map((c) => [c, 0])) as Record<
    ChaosConsumer,
    number
  >;
  /** Every crash, one JSON line each, for a report or a replay. */
  readonly trace: string[] = [];
  #stopping = false;

  constructor(options: ChaosSupervisorOptions) {
    this.#options = options;
    this.#nextPlan = Object.fromEntries(
      CONSUMERS.map((consumer, i) => [
        consumer,
        planner(POINTS[consumer], options.seed + i, this.crashes),
      ]),
    ) as Record<ChaosConsumer, CrashPlanner>;
  }

  get totalCrashes(): number {
    return [...this.crashes.values()].reduce((sum, n) => sum + n, 0);
  }

  start(): void {
    for (const consumer of CONSUMERS)
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
        child.kill('SIGCONT'); // a worker frozen at point 10 hears nothing until continued
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
      seed: this.#options.seed * 100_003 + index * CONSUMERS.length + CONSUMERS.indexOf(consumer),
      visibilitySeconds: this.#options.visibilitySeconds,
      // Half the workers skip the pre-check read: their copies meet the inbox condition itself.
      precheck: index % 2 === 0,
      coalesce: this.#options.coalesce,
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
    if (isStepReport(report)) {
      this.#onStep(worker, report);
      return;
    }
    // A dead worker's last counts still count (IPC may deliver them after its crash report).
    if (worker.dead && report.type !== 'metric' && report.type !== 'fault') return;
    if (report.type === 'crash') {
      if (report.staleWrites) this.steps.recordTakeover(report.staleWrites);
      const concurrent = this.#holdings.heldElsewhere(worker, report.point, report.message);
      worker.crashReported = true;
      this.#bury(worker);
      this.recordCrash(worker, report, concurrent);
      worker.child.kill('SIGKILL');
    } else if (report.type === 'received') {
      for (const message of report.messages) {
        this.#holdings.hold(worker.spawnId, message);
        if (message.key !== undefined && message.outboxId !== undefined)
          this.relayedIds.set(message.key, [
            ...(this.relayedIds.get(message.key) ?? []),
            message.outboxId,
          ]);
      }
    } else if (report.type === 'settled') {
      for (const messageId of report.messageIds) this.#holdings.release(worker.spawnId, messageId);
    } else if (report.type === 'fault') {
      this.recordFault(report.fault);
    } else if (report.type === 'metric') {
      const totals = this.metrics[worker.consumer];
      totals.set(report.name, (totals.get(report.name) ?? 0) + report.value);
    } else {
      this.#holdings.answer(worker, report, (yes) =>
        send(worker, { type: 'answer', id: report.id, yes }),
      );
    }
  }

  /**
   * Counts a crash of one of the run's processes (a consumer's, or the relay's, which the run's
   * stream mapping supervises): its point, a sample, its life, whether it raced, the trace.
   */
  recordCrash(
    who: { readonly spawnId: number; readonly consumer: string; readonly startedMillis: number },
    report: CrashReport,
    concurrent = false,
  ): void {
    this.trace.push(JSON.stringify({ worker: who.spawnId, consumer: who.consumer, ...report }));
    this.crashes.set(report.point, (this.crashes.get(report.point) ?? 0) + 1);
    if (!this.crashSamples.has(report.point)) this.crashSamples.set(report.point, report.detail);
    if (concurrent)
      this.concurrentCrashes.set(report.point, (this.concurrentCrashes.get(report.point) ?? 0) + 1);
    const lived = Date.now() - who.startedMillis;
    this.lifeMillis.set(report.point, (this.lifeMillis.get(report.point) ?? 0) + lived);
  }

  /** Counts an injected fault, whichever process reported it. */
  recordFault(fault: InjectedFault): void {
    const name = `${fault.service}|${fault.kind}`;
    this.faults.set(name, (this.faults.get(name) ?? 0) + 1);
  }

  /** A step report is a fact whoever sent it; a freeze is served at once (the worker blocks). */
  #onStep(worker: Worker, report: StepReport): void {
    if (report.type !== 'freeze') {
      this.steps.record(worker.spawnId, report);
      return;
    }
    this.freezes.asked++;
    void freezeUntilTakenOver(
      worker.child,
      report.pk,
      report.epoch,
      this.#options.leaseEpochOf,
    ).then((takenOver) => {
      if (takenOver) this.freezes.takenOver++;
      send(worker, { type: 'resumed', pk: report.pk, takenOver });
    });
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

const STEP_REPORTS = new Set([
  'claimed',
  'journaled',
  'effect',
  'journalWrite',
  'commit',
  'freeze',
  'unknownEntryWrite',
]);
function isStepReport(report: WorkerReport): report is StepReport {
  return STEP_REPORTS.has(report.type);
}

function send(worker: Worker, command: SupervisorCommand): void {
  if (worker.dead || !worker.child.connected) return;
  worker.child.send(command, (error) => {
    if (error) worker.dead = true;
  });
}
