import type { InboxRuntime, TimerPurpose } from '../../src/index.js';

/**
 * How long a test waits for what the library does at once once it is let go (a batch answering
 * at its fired deadline, a late record settling): not a speed target. It only turns a hang into
 * a clear failure, and is generous so that a machine shared with other heavy jobs never meets
 * it while the library behaves (below the integration project's 120 s test timeout).
 */
export const SETTLE_BOUND_MILLIS = 30_000;

/** A timer the library started on a {@link manualRuntime}: it fires only when the test says. */
export interface ManualTimer {
  readonly millis: number;
  readonly purpose: TimerPurpose | undefined;
  readonly callback: () => void;
  cancelled: boolean;
}

/**
 * A runtime whose clock moves and whose timers fire only when the test says, so a test of the
 * library's timing (the batch's deadline, a lease and its heartbeat) orders events itself instead
 * of racing real time. Waiting (`sleep`, the retry backoff) and randomness stay the system's.
 * The clock starts at the real time by default: the emulator deletes entries by TTL on the real
 * clock, and an entry written at a clock far behind it could be reaped under the test.
 *
 * @example
 * ```ts
 * const clock = manualRuntime();
 * const answer = processor({ runtime: clock.runtime }).process(event, lambdaContext(2_000));
 * (await clock.started('deadline')).callback();
 * ```
 */
export function manualRuntime(startMillis = Date.now()) {
  let nowMillis = startMillis;
  const timers: ManualTimer[] = [];
  const waiting: Array<{ purpose: TimerPurpose; resolve: (timer: ManualTimer) => void }> = [];
  const live = (purpose?: TimerPurpose) =>
    timers.filter(
      (timer) => !timer.cancelled && (purpose === undefined || timer.purpose === purpose),
    );
  const runtime: Pick<InboxRuntime, 'now' | 'startTimer'> = {
    now: () => nowMillis,
    startTimer(millis, callback, purpose) {
      const timer: ManualTimer = { millis, purpose, callback, cancelled: false };
      timers.push(timer);
      for (const waiter of waiting.filter((w) => w.purpose === purpose)) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve(timer);
      }
      return () => {
        timer.cancelled = true;
      };
    },
  };
  return {
    runtime,
    now: () => nowMillis,
    /** Moves the clock on; no timer fires. */
    advance(millis: number): void {
      nowMillis += millis;
    },
    /** The timers of `purpose` (every purpose when left out) started and not cancelled. */
    live,
    /** Every timer of `purpose` ever started, cancelled or not. */
    startedSoFar: (purpose: TimerPurpose) => timers.filter((timer) => timer.purpose === purpose),
    /** The next live timer of `purpose`: one already started and not fired, or the next one. */
    started(purpose: TimerPurpose): Promise<ManualTimer> {
      const timer = live(purpose)[0];
      if (timer) return Promise.resolve(timer);
      return new Promise((resolve) => waiting.push({ purpose, resolve }));
    },
    /** Fires a live timer, moving the clock on by its length first. */
    fire(timer: ManualTimer): void {
      if (timer.cancelled)
        throw new Error(`the ${timer.purpose ?? 'untagged'} timer was cancelled`);
      timers.splice(timers.indexOf(timer), 1);
      nowMillis += timer.millis;
      timer.callback();
    },
  };
}

export type ManualRuntime = ReturnType<typeof manualRuntime>;

/**
 * Resolves with `promise`'s value, or fails naming `what` when it has not settled within
 * {@link SETTLE_BOUND_MILLIS}: what the library must do once let go, bounded generously.
 *
 * @example
 * ```ts
 * const response = await settlesWithin('the batch answering at its deadline', answer);
 * ```
 */
export async function settlesWithin<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not happen within ${SETTLE_BOUND_MILLIS} ms`)),
      SETTLE_BOUND_MILLIS,
    );
  });
  try {
    return await Promise.race([promise, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether `promise` has settled by the time the event loop has run what is ready. */
export async function hasSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}
