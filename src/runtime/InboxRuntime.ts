import { setImmediate as nextTurn, setTimeout as sleepFor } from 'node:timers/promises';
import { InvalidConfigurationError } from '../errors.js';

/**
 * Everything that makes a run depend on the world outside the messages: the clock, waiting,
 * randomness and timers. The default reads the system (`Date.now`, Node's timers,
 * `Math.random`); a test or a simulation passes its own, and then no global is read on the
 * processing path, so a run is a function of its inputs.
 *
 * @example
 * ```ts
 * const processor = createBatchProcessor(handler, {
 *   store, consumer: 'ledger', schema: PaymentSchema, key: ({ body }) => body.eventId,
 *   runtime: { now: () => clock.now(), random: () => clock.random() }, // a TestClock's
 * });
 * ```
 * @public
 */
export interface InboxRuntime {
  /**
   * The wall clock in epoch milliseconds: entry times, expiry, latencies.
   * @defaultValue `Date.now`
   */
  now(): number;
  /**
   * Waits `millis` (the retry backoff after a transient DynamoDB error).
   * @defaultValue Node's `setTimeout` from `node:timers/promises` (`setImmediate` for 0 ms)
   */
  sleep(millis: number): Promise<void>;
  /**
   * A number in [0, 1), uniformly distributed: the jitter of the backoffs, and the bits of the
   * step lease's owner tokens and of the coalescer's request tokens. Give each invocation its own
   * sequence (a seeded generator per test is fine): a constant, or two invocations replaying the
   * same seed, makes two attempts' owner tokens equal, and one attempt then renews or releases
   * the other's lease.
   * @defaultValue `Math.random`
   */
  random(): number;
  /**
   * Calls `callback` once after `millis`; returns what cancels it. `purpose` says which timer it
   * is (the batch's deadline, a step lease's heartbeat), for a simulation to tell them apart.
   * @defaultValue Node's `setTimeout` and `clearTimeout`
   */
  startTimer(millis: number, callback: () => void, purpose?: TimerPurpose): () => void;
}

/**
 * What a timer of the library is for.
 *
 * @example
 * ```ts
 * const runtime: Partial<InboxRuntime> = {
 *   startTimer(millis, callback, purpose) {
 *     if (purpose === TimerPurpose.Heartbeat) console.log(`lease renewal in ${millis} ms`);
 *     const timer = setTimeout(callback, millis);
 *     return () => clearTimeout(timer);
 *   },
 * };
 * ```
 * @public
 */
export const TimerPurpose = {
  /** The batch's deadline, before the Lambda timeout. */
  Deadline: 'deadline',
  /** The renewal of a step's lease. */
  Heartbeat: 'heartbeat',
} as const;
/**
 * One of the values of `TimerPurpose`.
 * @public
 */
export type TimerPurpose = (typeof TimerPurpose)[keyof typeof TimerPurpose];

/**
 * The runtime of a deployed function: the system clock, Node's timers and `Math.random`.
 *
 * @example
 * ```ts
 * const cancel = systemRuntime.startTimer(1_000, () => console.log('a second passed'));
 * ```
 */
export const systemRuntime: InboxRuntime = Object.freeze({
  now: () => Date.now(),
  // Waiting 0 ms lets the work already due run first, without the 1 ms a 0 ms timer takes.
  sleep: (millis: number) => (millis > 0 ? sleepFor(millis) : nextTurn()),
  random: () => Math.random(),
  startTimer(millis: number, callback: () => void) {
    const timer = setTimeout(callback, millis);
    return () => clearTimeout(timer);
  },
});

const RUNTIME_METHODS = ['now', 'sleep', 'random', 'startTimer'] as const;

/**
 * The runtime a processor uses: the given one, method by method, over {@link systemRuntime}.
 *
 * @example
 * ```ts
 * resolveRuntime({ random: () => 0.5 }).now === systemRuntime.now; // => true
 * ```
 */
export function resolveRuntime(runtime: Partial<InboxRuntime> | undefined): InboxRuntime {
  if (runtime === undefined) return systemRuntime;
  checkRuntime(runtime);
  const given = Object.fromEntries(
    RUNTIME_METHODS.flatMap((name) => {
      const method = runtime[name];
      return method === undefined ? [] : [[name, method.bind(runtime)]];
    }),
  ) as Partial<InboxRuntime>;
  return { ...systemRuntime, ...given };
}

function checkRuntime(runtime: unknown): void {
  if (typeof runtime !== 'object' || runtime === null) {
    throw new InvalidConfigurationError(
      'runtime',
      runtime,
      'an object with now, sleep, random or startTimer',
    );
  }
  const record = runtime as Record<string, unknown>;
  for (const name of Object.keys(record)) {
    if (!(RUNTIME_METHODS as readonly string[]).includes(name)) {
      throw new InvalidConfigurationError(
        `runtime.${name}`,
        record[name],
        `one of ${RUNTIME_METHODS.join(', ')}`,
      );
    }
    if (record[name] !== undefined && typeof record[name] !== 'function') {
      throw new InvalidConfigurationError(`runtime.${name}`, record[name], 'a function');
    }
  }
}
