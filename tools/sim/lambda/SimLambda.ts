import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context, DynamoDBStreamEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type InboxRuntime, TimerPurpose } from '../../../src/index.js';
import type { Kernel } from '../kernel/Kernel.js';
import type { Prng } from '../kernel/Prng.js';
import {
  type Caller,
  CrashPoint,
  FaultKind,
  type RequestFaults,
  type RequestTag,
} from '../network/Network.js';
import type { WorldConfig } from '../world/WorldConfig.js';

/**
 * What one Lambda execution environment offers the function's code at its cold start.
 *
 * @example
 * ```ts
 * const factory: FunctionFactory = ({ runtime, caller }) => createBatchProcessor(handler, { runtime, ... }).process;
 * ```
 */
export interface Container {
  readonly actor: string;
  /** Its clock (skewed), sleep, randomness and timers, all steps of the kernel. */
  readonly runtime: InboxRuntime;
  /** The caller its clients send requests as (the current invocation's). */
  readonly caller: Caller;
}

/**
 * The events a simulated function is invoked with: SQS batches (a consumer), DynamoDB stream
 * batches (the outbox relay). Both answer with a partial batch response.
 */
export type LambdaEvent = SQSEvent | DynamoDBStreamEvent;

/** Builds the function's handler in a new container (a cold start). */
export type FunctionFactory<E extends LambdaEvent = SQSEvent> = (
  container: Container,
) => (event: E, context: Context) => Promise<SQSBatchResponse>;

/**
 * One invocation, as the oracle reads it afterwards.
 *
 * @example
 * ```ts
 * const killed = invocations.filter((i) => i.faults.has(FaultKind.Killed));
 * ```
 */
export interface Invocation {
  readonly id: number;
  readonly actor: string;
  /** The records' messageIds (SQS), or their sequence numbers (a stream). */
  readonly messageIds: readonly string[];
  /** Each record's `ApproximateReceiveCount` in this invocation's event. */
  readonly receiveCounts: ReadonlyMap<string, number>;
  readonly startedMillis: number;
  endedMillis: number | undefined;
  /**
   * Faults that struck the whole invocation (a kill, a slowed container, a crash point), a
   * request for no record, or that cannot fail one (a request applied twice).
   */
  readonly faults: Set<FaultKind>;
  /** Each request made for records (by key or messageId) that a fault struck. */
  readonly faultedRequests: FaultedRequest[];
  /** When the batch deadline passed (the library's timer fired), if it did. */
  deadlineMillis: number | undefined;
  /** `response`: the function answered; otherwise it was killed or timed out. */
  end: 'running' | 'response' | 'killed' | 'timed out';
  /** The records the event source mapping will not delete (all of them unless it answered). */
  failedMessageIds: readonly string[];
}

/**
 * The Lambda service for one function: containers created on demand (each a cold start of the
 * real processor), one invocation at a time per container, the function timeout as a kill of
 * the container, and the chaos of kills at random times and at crash points (the n-th request).
 *
 * @example
 * ```ts
 * const invocation = await lambda.invoke(event);
 * ```
 */
export class SimLambda<E extends LambdaEvent = SQSEvent> {
  readonly invocations: Invocation[] = [];
  readonly #kernel: Kernel;
  readonly #random: Prng;
  readonly #config: WorldConfig;
  readonly #factory: FunctionFactory<E>;
  readonly #idle: ContainerState<E>[] = [];
  readonly #name: string;
  #containers = 0;

  constructor(
    kernel: Kernel,
    random: Prng,
    config: WorldConfig,
    factory: FunctionFactory<E>,
    name = 'lambda',
  ) {
    this.#kernel = kernel;
    this.#random = random;
    this.#config = config;
    this.#factory = factory;
    this.#name = name;
  }

  /** Whether an invocation is still running. */
  get busy(): boolean {
    return this.invocations.some((invocation) => invocation.end === 'running');
  }

  /** Invokes the function with an event and resolves when it answers or dies. */
  invoke(event: E): Promise<Invocation> {
    const container = this.#warmContainer() ?? this.#coldStart();
    this.#kernel.thaw(container.actor);
    const invocation: Invocation = {
      id: this.invocations.length + 1,
      actor: container.actor,
      messageIds: recordIdsOf(event),
      receiveCounts: receiveCountsOf(event),
      startedMillis: this.#kernel.nowMillis,
      endedMillis: undefined,
      faults: new Set(),
      faultedRequests: [],
      deadlineMillis: undefined,
      end: 'running',
      failedMessageIds: recordIdsOf(event),
    };
    this.invocations.push(invocation);
    container.current = invocation;
    container.crashAtRequest = this.#drawCrashPoint();
    container.requests = 0;
    container.slow = this.#faulty() && this.#random.chance(this.#config.faults.slowInvocation);
    if (container.slow) invocation.faults.add(FaultKind.Slow);
    return new Promise((resolve) => {
      let disarm = () => {};
      const finish = (end: Invocation['end'], failed?: readonly string[]) => {
        if (invocation.end !== 'running') return;
        disarm();
        invocation.end = end;
        invocation.endedMillis = this.#kernel.nowMillis;
        if (failed !== undefined) invocation.failedMessageIds = failed;
        resolve(invocation);
      };
      disarm = this.#armKills(container, invocation, finish);
      // Work the invocation sets off stays its own, even when it resumes in a later one (a
      // frozen container thawed): every request is charged to the invocation that began it.
      running
        .run(invocation, () => container.handler(event, this.#context(invocation)))
        .then(
          (response) => finish('response', failedIds(response, invocation.messageIds)),
          () => finish('response'),
        )
        .then(() => {
          // Lambda freezes the environment once it answered: work left running there (a record
          // the deadline gave up on) resumes only when the container is invoked again, if ever.
          container.crashAtRequest = undefined;
          this.#kernel.freeze(container.actor);
          this.#idle.push(container);
        });
    });
  }

  /** The function timeout and the chaos kill of an invocation; returns what cancels both. */
  #armKills(
    container: ContainerState<E>,
    invocation: Invocation,
    finish: (end: Invocation['end']) => void,
  ): () => void {
    const kill = (end: Invocation['end'], fault: FaultKind | undefined) => {
      if (fault !== undefined) invocation.faults.add(fault);
      this.#kernel.kill(container.actor);
      finish(end);
    };
    const cancelTimeout = this.#kernel.schedule({
      actor: 'lambda',
      label: `times out ${container.actor}`,
      delayMillis: this.#config.functionTimeoutMillis,
      // A timeout is no fault of its own: without one that explains it, the oracle flags it.
      run: () => kill('timed out', undefined),
    });
    let cancelKill = () => {};
    if (this.#faulty() && this.#random.chance(this.#config.faults.killPerInvocation)) {
      cancelKill = this.#kernel.schedule({
        actor: 'chaos',
        label: `kills ${container.actor}`,
        delayMillis: this.#random.int(0, this.#config.functionTimeoutMillis - 1),
        run: () => kill('killed', FaultKind.Killed),
      });
    }
    container.onKilled = () => finish('killed');
    return () => {
      cancelTimeout();
      cancelKill();
    };
  }

  /** An idle container that is still alive (a kill may have struck one after it answered). */
  #warmContainer(): ContainerState<E> | undefined {
    for (let container = this.#idle.pop(); container !== undefined; container = this.#idle.pop()) {
      if (!this.#kernel.isKilled(container.actor)) return container;
    }
    return undefined;
  }

  #coldStart(): ContainerState<E> {
    const actor = `${this.#name}-${++this.#containers}`;
    const skewMillis = this.#random.int(
      -this.#config.clockSkewMillis,
      this.#config.clockSkewMillis,
    );
    const random = this.#random.derive(actor);
    const kernel = this.#kernel;
    const state: ContainerState<E> = {
      actor,
      current: undefined,
      crashAtRequest: undefined,
      requests: 0,
      slow: false,
      onKilled: () => {},
      handler: async () => ({ batchItemFailures: [] }),
    };
    const caller: Caller = {
      actor,
      get slow() {
        return state.slow;
      },
      get invocationId() {
        return (running.getStore() ?? state.current)?.id;
      },
      request: (tag, operation) =>
        faultsOf(running.getStore() ?? state.current, tag, operation, () => kernel.nowMillis),
      beforeSend: (name) => {
        state.requests++;
        const crash = state.crashAtRequest;
        if (crash === undefined) return CrashPoint.None;
        const struck =
          'request' in crash ? crash.request === state.requests : name.startsWith(crash.operation);
        if (!struck) return CrashPoint.None;
        // The kill happens in the network; the invocation ends with it.
        queueMicrotask(() => state.onKilled());
        return crash.point;
      },
    };
    const runtime: InboxRuntime = {
      now: () => WORLD_EPOCH_MILLIS + kernel.nowMillis + skewMillis,
      sleep: (millis) => kernel.sleep(actor, millis, `backs off ${Math.round(millis)} ms`),
      random: () => random.next(),
      startTimer: (millis, callback, purpose) => {
        const invocation = running.getStore() ?? state.current;
        const deadline = purpose !== TimerPurpose.Heartbeat;
        return kernel.schedule({
          actor,
          label: deadline ? 'deadline passes' : 'lease heartbeat',
          delayMillis: millis,
          run: () => {
            if (deadline && invocation !== undefined) invocation.deadlineMillis = kernel.nowMillis;
            callback();
          },
        });
      },
    };
    state.handler = this.#factory({ actor, runtime, caller });
    return state;
  }

  #drawCrashPoint(): CrashAt | undefined {
    if (!this.#faulty() || !this.#random.chance(this.#config.faults.crashPointPerInvocation)) {
      return undefined;
    }
    const point = this.#random.chance(0.5) ? CrashPoint.BeforeSend : CrashPoint.AfterSend;
    if (this.#random.chance(0.5)) return { request: this.#random.int(1, 8), point };
    // A named point: the first commit, inbox read or DLQ send of the invocation.
    return { operation: this.#random.pick(NAMED_CRASH_POINTS), point };
  }

  #context(invocation: Invocation): Context {
    const deadlineMillis = invocation.startedMillis + this.#config.functionTimeoutMillis;
    return {
      awsRequestId: `invocation-${invocation.id}`,
      functionName: this.#name,
      getRemainingTimeInMillis: () => Math.max(0, deadlineMillis - this.#kernel.nowMillis),
    } as unknown as Context;
  }

  #faulty(): boolean {
    return this.#kernel.nowMillis < this.#config.faults.untilMillis;
  }
}

/**
 * A request made for records that a fault struck: which code sent it, for which records, and
 * what struck it.
 *
 * @example
 * ```ts
 * const storeFaults = invocation.faultedRequests.filter((r) => r.channel === RequestChannel.Store);
 * ```
 */
export interface FaultedRequest extends RequestTag {
  readonly operation: string;
  readonly kinds: Set<FaultKind>;
  /** When its last fault was noted (world millis): for an answer, when the service gave it. */
  notedMillis: number;
}

/** Faults that strike the whole invocation, or that cannot fail the request they strike. */
const INVOCATION_FAULTS: ReadonlySet<FaultKind> = new Set([
  FaultKind.CrashPoint,
  FaultKind.RequestDuplicated,
]);

/**
 * Where the faults of one request are noted: on the invocation that sent it, as one faulted
 * request of its records, or on the whole invocation.
 */
function faultsOf(
  invocation: Invocation | undefined,
  tag: RequestTag | undefined,
  operation: string,
  nowMillis: () => number,
): RequestFaults {
  let faulted: FaultedRequest | undefined;
  return {
    noteFault: (kind) => {
      if (invocation === undefined) return;
      if (tag === undefined || tag.subjects.length === 0 || INVOCATION_FAULTS.has(kind)) {
        invocation.faults.add(kind);
        return;
      }
      if (faulted === undefined) {
        faulted = { ...tag, operation, kinds: new Set(), notedMillis: nowMillis() };
        invocation.faultedRequests.push(faulted);
      }
      faulted.kinds.add(kind);
      faulted.notedMillis = nowMillis();
    },
  };
}

/** Where a crash point strikes: at the invocation's n-th request, or its first of an operation. */
type CrashAt =
  | { readonly request: number; readonly point: CrashPoint }
  | { readonly operation: string; readonly point: CrashPoint };

/** The requests a named crash point strikes around: the commit, an inbox read, a DLQ send. */
const NAMED_CRASH_POINTS = ['TransactWriteItems', 'GetItem', 'SendMessage'] as const;

/** The invocation whose work is running (its code and every continuation of it). */
const running = new AsyncLocalStorage<Invocation>();

/** The simulated world's time 0 as an epoch (2026-11-01T00:00:00Z). */
export const WORLD_EPOCH_MILLIS = Date.UTC(2026, 10, 1);

interface ContainerState<E extends LambdaEvent> {
  readonly actor: string;
  current: Invocation | undefined;
  crashAtRequest: CrashAt | undefined;
  requests: number;
  slow: boolean;
  onKilled: () => void;
  handler: (event: E, context: Context) => Promise<SQSBatchResponse>;
}

/** Each record's id: its messageId (SQS) or its sequence number (a stream). */
function recordIdsOf(event: LambdaEvent): string[] {
  return event.Records.map((record) =>
    'messageId' in record ? record.messageId : (record.dynamodb?.SequenceNumber ?? ''),
  );
}

/** Each SQS record's receive count; a stream record has none. */
function receiveCountsOf(event: LambdaEvent): Map<string, number> {
  return new Map(
    event.Records.flatMap((record) =>
      'messageId' in record
        ? [[record.messageId, Number(record.attributes.ApproximateReceiveCount)] as const]
        : [],
    ),
  );
}

/**
 * The records Lambda will not delete: those the partial batch response lists, or every record
 * when the response names one that is not in the batch (Lambda then fails the whole batch).
 */
function failedIds(response: unknown, messageIds: readonly string[]): readonly string[] {
  const failures = (response as Partial<SQSBatchResponse> | undefined)?.batchItemFailures;
  if (failures === undefined || failures === null) return [];
  if (!Array.isArray(failures)) return messageIds;
  const ids = failures.map((failure) => failure?.itemIdentifier);
  if (ids.some((id) => typeof id !== 'string' || !messageIds.includes(id))) return messageIds;
  return ids as string[];
}
