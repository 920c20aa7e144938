import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { trackChild } from '../cli/shutdown.js';
import { LocalStreamMapping } from '../local/LocalStreamMapping.js';
import type { LocalStreamSpec } from '../local/streamMappingsOf.js';
import type { ChaosSupervisor } from './ChaosSupervisor.js';
import { type CrashPlanner, planner } from './crashPlanner.js';
import { readLines } from './readLines.js';
import {
  CRASH_CHANNEL_FD,
  type CrashReport,
  RELAY_CRASH_POINTS,
  type RelayInvocation,
  type RelayReport,
  type RelayWorkerConfig,
} from './workerProtocol.js';

/** How the chaos run relays the ledger's outbox. */
export interface ChaosRelayOptions {
  readonly workerPath: string;
  /** The template's stream mapping of the outbox (batch size, filter, bisect, queues). */
  readonly spec: LocalStreamSpec;
  readonly clients: {
    readonly dynamodb: DynamoDBClient;
    readonly streams: DynamoDBStreamsClient;
    readonly sqs: SQSClient;
  };
  /** Where the relay sends (the emulator's SQS, SNS, EventBridge). */
  readonly endpoint: string;
  readonly faultRate: number;
  readonly seed: number;
  /** Counts the relay's crashes and faults with the consumers'. */
  readonly supervisor: ChaosSupervisor;
}

/** Retries of a failing stream batch: high enough that kills alone never give a batch up. */
export const RELAY_RETRY_ATTEMPTS = 100;
const TIMEOUT_MILLIS = 30_000;
// A process that does not answer this long after its time limit is killed: a timeout.
const GRACE_MILLIS = 5_000;
const STOP_WAIT_MILLIS = 5_000;

interface RelayProcess {
  readonly child: ChildProcess;
  readonly spawnId: number;
  readonly startedMillis: number;
  readonly ready: Promise<void>;
  crashReported: boolean;
  timedOut: boolean;
  stderr: string;
  pending?: {
    readonly id: number;
    readonly resolve: (response: DynamoDBBatchResponse) => void;
    readonly reject: (error: Error) => void;
  };
}

/**
 * The ledger's outbox relay in the chaos run: the run's stream mapping (Lambda's semantics:
 * partial batch responses, bisect, retries, the on-failure queue) invokes the library's relay in
 * a child process, one at a time, as Lambda invokes one instance per shard. Each new process gets
 * the next relay crash point (11 or 12); a process standing at it is killed with SIGKILL, the
 * invocation fails as a function error, and the mapping retries it in a new process.
 *
 * @example
 * ```ts
 * const relay = new ChaosRelay(options); await relay.start();
 * await relay.drain(30_000); relay.disarm(); await relay.stop();
 * ```
 */
export class ChaosRelay {
  /** Invocations that ended in a kill, an error or a timeout (the mapping retried them). */
  readonly failedInvocations = { killed: 0, errors: 0, timeouts: 0 };
  /** The library's metrics from every relay process. */
  readonly metrics = new Map<string, number>();
  readonly #options: ChaosRelayOptions;
  readonly #mapping: LocalStreamMapping;
  readonly #plan: CrashPlanner;
  #current: RelayProcess | undefined;
  #armed = true;
  #stopping = false;
  #nextId = 0;

  constructor(options: ChaosRelayOptions) {
    this.#options = options;
    this.#plan = planner(RELAY_CRASH_POINTS, options.seed ^ 0x3c6ef372, options.supervisor.crashes);
    this.#mapping = new LocalStreamMapping({
      ...options.spec,
      maximumRetryAttempts: RELAY_RETRY_ATTEMPTS,
      handler: (event) => this.#invoke(event.Records),
      clients: options.clients,
      functionName: 'outbox-relay',
      timeoutMillis: TIMEOUT_MILLIS,
    });
  }

  /** Invocations of the relay so far, retries included. */
  get invocations(): number {
    return this.#mapping.invocations;
  }

  start(): Promise<void> {
    return this.#mapping.start();
  }

  /** Resolves once the stream has nothing new: everything committed so far is relayed. */
  drain(timeoutMillis: number): Promise<void> {
    return this.#mapping.drain(timeoutMillis);
  }

  /** No more crashes: the running process is disarmed, new ones get no point. */
  disarm(): void {
    this.#armed = false;
    if (this.#current?.child.connected) this.#current.child.send({ type: 'disarm' });
  }

  /** Lets an invocation in flight finish (a few seconds at most), then stops the process. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await Promise.race([this.#mapping.stop(), sleep(STOP_WAIT_MILLIS)]);
    const child = this.#current?.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
  }

  async #invoke(records: DynamoDBRecord[]): Promise<DynamoDBBatchResponse> {
    if (this.#stopping) throw new Error('the chaos run is stopping');
    const relay = this.#current ?? this.#spawn();
    await relay.ready;
    const id = this.#nextId++;
    return new Promise<DynamoDBBatchResponse>((resolve, reject) => {
      const timer = setTimeout(() => {
        relay.timedOut = true;
        relay.child.kill('SIGKILL');
      }, TIMEOUT_MILLIS + GRACE_MILLIS);
      const settle =
        <T>(then: (value: T) => void) =>
        (value: T) => {
          clearTimeout(timer);
          relay.pending = undefined;
          then(value);
        };
      relay.pending = { id, resolve: settle(resolve), reject: settle(reject) };
      const invocation: RelayInvocation = { type: 'invoke', id, event: { Records: records } };
      relay.child.send(invocation, (error) => {
        if (error) relay.pending?.reject(error);
      });
    });
  }

  #spawn(): RelayProcess {
    const supervisor = this.#options.supervisor;
    const spawnId = ++supervisor.spawned;
    const plan = this.#armed ? this.#plan(true) : undefined;
    const config: RelayWorkerConfig = {
      workerId: spawnId,
      endpoint: this.#options.endpoint,
      deadLetterQueueUrl: this.#options.spec.deadLetterQueueUrl,
      crashPoint: plan?.point,
      crashAfter: plan?.crashAfter ?? 0,
      faultRate: this.#options.faultRate,
      seed: this.#options.seed * 100_003 + spawnId,
      timeoutMillis: TIMEOUT_MILLIS,
    };
    const child = fork(this.#options.workerPath, [], {
      env: { ...process.env, CHAOS_RELAY: JSON.stringify(config) },
      execArgv: [],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc', 'pipe'],
    });
    trackChild(child);
    let ready: () => void = () => {};
    const relay: RelayProcess = {
      child,
      spawnId,
      startedMillis: Date.now(),
      ready: new Promise<void>((resolve) => {
        ready = resolve;
      }),
      crashReported: false,
      timedOut: false,
      stderr: '',
    };
    this.#current = relay;
    const note = (text: string) => {
      relay.stderr = (relay.stderr + text).slice(-2000);
    };
    child.stderr?.on('data', (chunk) => note(String(chunk)));
    child.on('error', (error) => note(`\n[relay host] ${error.message}`));
    child.on('message', (message: RelayReport) => this.#onReport(relay, message, ready));
    const channel = child.stdio[CRASH_CHANNEL_FD] as Readable;
    channel.on('error', (error) => note(`\n[relay host] ${error.message}`));
    readLines(channel, (line) => this.#onCrash(relay, JSON.parse(line) as CrashReport));
    child.on('exit', (code, signal) => {
      this.#onExit(relay, code, signal);
      ready(); // an invocation waiting for a process that never became ready fails below
    });
    return relay;
  }

  #onReport(relay: RelayProcess, report: RelayReport, ready: () => void): void {
    if (report.type === 'ready') ready();
    else if (report.type === 'response' && relay.pending?.id === report.id)
      relay.pending.resolve({ batchItemFailures: [...report.response.batchItemFailures] });
    else if (report.type === 'error' && relay.pending?.id === report.id) {
      this.failedInvocations.errors += 1;
      relay.pending.reject(new Error(`relay function error: ${report.message}`));
    } else if (report.type === 'fault') this.#options.supervisor.recordFault(report.fault);
    else if (report.type === 'metric')
      this.metrics.set(report.name, (this.metrics.get(report.name) ?? 0) + report.value);
  }

  #onCrash(relay: RelayProcess, report: CrashReport): void {
    relay.crashReported = true;
    this.#options.supervisor.recordCrash(
      { spawnId: relay.spawnId, consumer: 'relay', startedMillis: relay.startedMillis },
      report,
    );
    relay.child.kill('SIGKILL');
  }

  #onExit(relay: RelayProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#current === relay) this.#current = undefined;
    const how = relay.timedOut
      ? 'timed out'
      : relay.crashReported
        ? 'was killed at its crash point'
        : `exited (code ${code}, signal ${signal})`;
    if (relay.pending) {
      if (relay.timedOut) this.failedInvocations.timeouts += 1;
      else this.failedInvocations.killed += 1;
      relay.pending.reject(new Error(`the relay process ${how}`));
    }
    if (this.#stopping || relay.timedOut || (relay.crashReported && signal === 'SIGKILL')) return;
    this.#options.supervisor.unexpectedExits.push(
      `relay process ${relay.spawnId} ${how}: ${relay.stderr.trim().split('\n').slice(-3).join(' | ')}`,
    );
  }
}
