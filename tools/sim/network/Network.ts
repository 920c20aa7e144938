import type { Kernel } from '../kernel/Kernel.js';
import type { Prng } from '../kernel/Prng.js';
import type { FaultRates } from '../world/WorldConfig.js';

/** How long the SDK waits for an answer before a `TimeoutError` (the reference function's 5 s). */
export const REQUEST_TIMEOUT_MILLIS = 5_000;

/**
 * What a fault did to a request, as the world's oracle counts it.
 *
 * @example
 * ```ts
 * request.noteFault(FaultKind.ResponseLost);
 * ```
 */
export const FaultKind = {
  RequestLost: 'request lost',
  ResponseLost: 'response lost',
  RequestDuplicated: 'request duplicated',
  RequestClogged: 'request clogged',
  TransactionConflict: 'TransactionConflict',
  Throttling: 'throttling',
  Killed: 'killed',
  CrashPoint: 'crash point',
  Slow: 'slow',
  /** The SDK's timeout fired: the request was lost, held back or slowed. */
  TimedOut: 'request timed out',
  /**
   * No fault: the service itself refused the request because another request in flight held
   * what it touched (DynamoDB's transaction conflicts, under the world's conflict rules). Noted
   * like a fault so that the oracle can tell which failures contention explains.
   */
  Contention: 'contention',
} as const;
/** One of the values of {@link FaultKind}. */
export type FaultKind = (typeof FaultKind)[keyof typeof FaultKind];

/**
 * Which code sent a request for a record: the library's store (an inbox read or a commit, one
 * per attempt), the consumer's handler, the library's dead-letter publisher, or the processor's
 * visibility changes.
 *
 * @example
 * ```ts
 * const tag: RequestTag = { channel: RequestChannel.Store, subjects: ['evt-1'] };
 * ```
 */
export const RequestChannel = {
  Store: 'store',
  Handler: 'handler',
  DeadLetter: 'dead letter',
  /** The processor's visibility changes of the records it retries: they explain no failure. */
  Visibility: 'visibility',
} as const;
/** One of the values of {@link RequestChannel}. */
export type RequestChannel = (typeof RequestChannel)[keyof typeof RequestChannel];

/**
 * The records a request is for (keys or messageIds) and the code that sent it.
 *
 * @example
 * ```ts
 * await network.call(caller, 'sqs', 'SendMessage', apply, { tag: { channel: RequestChannel.DeadLetter, subjects: [messageId] } });
 * ```
 */
export interface RequestTag {
  readonly channel: RequestChannel;
  readonly subjects: readonly string[];
}

/**
 * One request as its sender sees it: where the faults that strike it are noted. Taken when
 * the request is sent, so a fault that strikes it late (applied after its invocation ended)
 * is noted on the invocation that sent it, not on whichever runs in the container by then.
 *
 * @example
 * ```ts
 * const request = caller.request({ channel: RequestChannel.Store, subjects: ['evt-1'] }, 'GetItem');
 * request.noteFault(FaultKind.RequestLost);
 * ```
 */
export interface RequestFaults {
  noteFault(kind: FaultKind): void;
}

/**
 * Who sends a request: a Lambda container during one invocation.
 *
 * @example
 * ```ts
 * const caller: Caller = { actor: 'lambda-2', slow: false, invocationId: 1, request: () => ({ noteFault: () => {} }), beforeSend: () => 'send' };
 * ```
 */
export interface Caller {
  readonly actor: string;
  /** Its round trips take seconds (a slowed invocation). */
  readonly slow: boolean;
  /** The invocation running in the container now, if any. */
  readonly invocationId: number | undefined;
  /**
   * Opens a request on behalf of the current invocation and the records it is for (none when
   * it serves the whole batch): the faults that strike it explain the failures of those
   * records only.
   */
  request(tag: RequestTag | undefined, operation: string): RequestFaults;
  /** Asked before each request: a crash point may kill the caller before or after sending it. */
  beforeSend(name: string): CrashPoint;
}

/**
 * What a request carries besides its operation: the errors a fault may answer it with, and the
 * records it is for (see {@link Caller.request}).
 *
 * @example
 * ```ts
 * await network.call(caller, 'dynamodb', 'GetItem', apply, { throttle: () => throttled('GetItem') });
 * ```
 */
export interface RequestOptions extends Injectable {
  readonly tag?: RequestTag;
  /** How long the service works on the request once it applied it, before its answer leaves. */
  readonly serviceMillis?: number;
  /** Whether an error the service answered with is contention (noted as {@link FaultKind.Contention}). */
  readonly contended?: (error: Error) => boolean;
}

/**
 * Where a crash point strikes a request.
 *
 * @example
 * ```ts
 * if (point === CrashPoint.AfterSend) kernel.kill(actor);
 * ```
 */
export const CrashPoint = {
  None: 'send',
  BeforeSend: 'crash before send',
  AfterSend: 'crash after send',
} as const;
/** One of the values of {@link CrashPoint}. */
export type CrashPoint = (typeof CrashPoint)[keyof typeof CrashPoint];

/**
 * Errors a service may answer with instead of applying a request, injected as faults.
 *
 * @example
 * ```ts
 * const injectable: Injectable = { conflict: () => dynamo.cancelledBy(input, 0, 'TransactionConflict') };
 * ```
 */
export interface Injectable {
  readonly conflict?: () => Error;
  readonly throttle?: () => Error;
  /** How often `throttle` strikes this request while faults are on; default the world's rate. */
  readonly throttleRate?: number;
}

/**
 * The simulated network between Lambda containers and AWS services. A request is three
 * steps: sent (by the caller), applied (by the service, so it happens even if the caller dies
 * meanwhile), answered (to the caller, dropped if it died). While faults are on, a request may
 * be lost, applied with its answer lost, applied twice, held back for long and applied late,
 * or answered with an injected conflict or throttling error.
 *
 * @example
 * ```ts
 * const item = await network.call(caller, 'dynamodb', 'GetItem', () => dynamo.getItem(input));
 * ```
 */
export class Network {
  readonly #kernel: Kernel;
  readonly #random: Prng;
  readonly #faults: FaultRates;

  constructor(kernel: Kernel, random: Prng, faults: FaultRates) {
    this.#kernel = kernel;
    this.#random = random;
    this.#faults = faults;
  }

  /** Sends `name` to `service` for `caller`; resolves with what `apply` returned there. */
  call<T>(
    caller: Caller,
    service: string,
    name: string,
    apply: () => T,
    options: RequestOptions = {},
  ): Promise<T> {
    const request = caller.request(options.tag, name);
    const crash = caller.beforeSend(name);
    if (crash !== CrashPoint.None) request.noteFault(FaultKind.CrashPoint);
    if (crash === CrashPoint.BeforeSend) {
      this.#kernel.kill(caller.actor);
      return new Promise<T>(() => {});
    }
    const answer = new Promise<T>((resolve, reject) => {
      const respond = (outcome: Outcome<T>) =>
        outcome.ok ? resolve(outcome.value) : reject(outcome.error);
      this.#send(
        caller,
        request,
        { service, name, serviceMillis: options.serviceMillis ?? 0 },
        () => this.#applyAtService(request, apply, options),
        respond,
      );
    });
    if (crash === CrashPoint.AfterSend) this.#kernel.kill(caller.actor);
    return answer;
  }

  #send<T>(
    caller: Caller,
    request: RequestFaults,
    { service, name, serviceMillis }: { service: string; name: string; serviceMillis: number },
    apply: () => Outcome<T>,
    respond: (outcome: Outcome<T>) => void,
  ): void {
    const faulty = this.#kernel.nowMillis < this.#faults.untilMillis;
    const fault = (rate: number, kind: FaultKind) => {
      const struck = faulty && this.#random.chance(rate);
      if (struck) request.noteFault(kind);
      return struck;
    };
    // The SDK gives up after its request timeout, whatever happens to the request meanwhile.
    let answered = false;
    const cancelTimeout = this.#kernel.schedule({
      actor: caller.actor,
      label: `${name} times out`,
      delayMillis: REQUEST_TIMEOUT_MILLIS,
      run: () => {
        answered = true;
        request.noteFault(FaultKind.TimedOut);
        respond({ ok: false, error: timeoutError(name) });
      },
    });
    if (fault(this.#faults.requestLost, FaultKind.RequestLost)) return;
    const clogged = fault(this.#faults.requestClogged, FaultKind.RequestClogged);
    const duplicated = fault(this.#faults.requestDuplicated, FaultKind.RequestDuplicated);
    this.#kernel.schedule({
      actor: service,
      label: `applies ${name} of ${caller.actor}`,
      delayMillis: clogged
        ? this.#random.int(REQUEST_TIMEOUT_MILLIS, 10 * 60_000)
        : this.#latencyMillis(caller),
      run: () => {
        const outcome = apply();
        if (!duplicated) return answer(outcome);
        // A copy of the request is applied again later: a retry of the SDK's (the caller gets
        // the copy's answer) or a stray retransmission (the caller gets the first answer).
        const retried = this.#random.chance(0.5);
        if (!retried) answer(outcome);
        this.#kernel.schedule({
          actor: service,
          label: `applies ${name} of ${caller.actor} again`,
          delayMillis: this.#random.int(1, 30_000),
          run: () => {
            const again = apply();
            if (retried) answer(again);
          },
        });
      },
    });
    const answer = (outcome: Outcome<T>) => {
      if (answered || fault(this.#faults.responseLost, FaultKind.ResponseLost)) return;
      this.#kernel.schedule({
        actor: caller.actor,
        label: `receives ${name}${outcome.ok ? '' : ` ${outcome.error.name}`}`,
        delayMillis: serviceMillis + this.#latencyMillis(caller),
        run: () => {
          if (answered) return;
          answered = true;
          cancelTimeout();
          respond(outcome);
        },
      });
    };
  }

  #applyAtService<T>(
    request: RequestFaults,
    apply: () => T,
    injectable: RequestOptions,
  ): Outcome<T> {
    const faulty = this.#kernel.nowMillis < this.#faults.untilMillis;
    if (faulty && injectable.conflict && this.#random.chance(this.#faults.transactionConflict)) {
      request.noteFault(FaultKind.TransactionConflict);
      return { ok: false, error: injectable.conflict() };
    }
    const throttleRate = injectable.throttleRate ?? this.#faults.throttling;
    if (faulty && injectable.throttle && this.#random.chance(throttleRate)) {
      request.noteFault(FaultKind.Throttling);
      return { ok: false, error: injectable.throttle() };
    }
    try {
      return { ok: true, value: apply() };
    } catch (thrown) {
      const error = thrown instanceof Error ? thrown : new Error(String(thrown));
      if (injectable.contended?.(error)) request.noteFault(FaultKind.Contention);
      return { ok: false, error };
    }
  }

  #latencyMillis(caller: Caller): number {
    return caller.slow ? this.#random.int(1_000, 20_000) : this.#random.latencyMillis(2, 40);
  }
}

type Outcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: Error };

/** What the SDK throws when no answer came in time (the store retries it as transient). */
function timeoutError(name: string): Error {
  const error = new Error(`${name}: no response within ${REQUEST_TIMEOUT_MILLIS} ms`);
  error.name = 'TimeoutError';
  return error;
}
