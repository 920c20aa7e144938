import { setImmediate as nextTurn } from 'node:timers/promises';
import { InvalidConfigurationError } from '../../errors/configurationErrors.js';
import type { InboxRuntime } from '../../runtime/InboxRuntime.js';

/**
 * Options of {@link TestClock}.
 *
 * @example
 * ```ts
 * const clock = new TestClock({ startMillis: Date.UTC(2026, 10, 27), seed: 7 });
 * ```
 * @public
 */
export interface TestClockOptions {
  /** Where the clock starts, in epoch milliseconds; default 2026-01-01T00:00:00Z. */
  readonly startMillis?: number;
  /** The seed of `random()`; default 1. */
  readonly seed?: number;
}

interface Timer {
  readonly dueMillis: number;
  readonly callback: () => void;
  cancelled: boolean;
}

/**
 * A clock for tests, and the processor's runtime (`runtime: clock`): time moves only when the
 * test moves it ({@link TestClock.advanceMillis}) or the library waits (a retry's backoff moves
 * it by the wait at once, so retries cost no real time). Timers — the batch deadline, a step
 * lease's heartbeat — fire when the clock passes them. `random()` is a seeded generator: the
 * backoff's jitter and the attempts' owner tokens differ from call to call, and are the same in
 * every run of a test.
 *
 * With {@link InboxTest}, give the processor `inbox.options.runtime` (this clock, with timers
 * that die with their invocation), not the clock itself.
 *
 * @example
 * ```ts
 * const clock = new TestClock({ startMillis: Date.UTC(2026, 0, 1) });
 * await clock.advanceMillis(65_000 + 1); // past a 60 s lease and its 5 s skew allowance: it lapses
 * ```
 * @public
 */
export class TestClock implements InboxRuntime {
  #nowMillis: number;
  readonly #timers: Timer[] = [];

  #seed: number;

  constructor(options: TestClockOptions = {}) {
    this.#nowMillis = checkedMillis(options.startMillis ?? Date.UTC(2026, 0, 1), 'startMillis');
    this.#seed = (options.seed ?? 1) >>> 0;
  }

  /** The clock's time, in epoch milliseconds. */
  now(): number {
    return this.#nowMillis;
  }

  /**
   * Waits until the clock reaches now + `millis`, moving it there if nothing else has: waits
   * that overlap end at their own times (two 100 ms waits side by side move the clock 100 ms,
   * not 200), and the clock never runs back.
   */
  async sleep(millis: number): Promise<void> {
    const targetMillis = this.#nowMillis + Math.max(0, checkedMillis(millis));
    // The waits started in this turn all measure from the same time.
    await nextTurn();
    await this.#advanceTo(targetMillis);
    await nextTurn();
  }

  /** A number in [0, 1) from the seeded generator (mulberry32): each call another. */
  random(): number {
    this.#seed = (this.#seed + 0x6d2b79f5) >>> 0;
    let t = this.#seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
  }

  /** Calls `callback` once the clock has moved `millis` on; returns what cancels it. */
  startTimer(millis: number, callback: () => void): () => void {
    const timer: Timer = {
      dueMillis: this.#nowMillis + Math.max(0, checkedMillis(millis)),
      callback,
      cancelled: false,
    };
    this.#timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  }

  /**
   * Moves the clock on by `millis`, firing, in time order, every timer it passes; after each,
   * it lets the work that timer started run (a heartbeat's write, the timer it sets again), as
   * time passing would.
   *
   * @example
   * ```ts
   * await clock.advanceMillis(5 * 60_000);
   * ```
   */
  async advanceMillis(millis: number): Promise<void> {
    await this.#advanceTo(this.#nowMillis + Math.max(0, checkedMillis(millis)));
  }

  async #advanceTo(targetMillis: number): Promise<void> {
    for (;;) {
      const due = this.#timers
        .filter((timer) => !timer.cancelled && timer.dueMillis <= targetMillis)
        .sort((a, b) => a.dueMillis - b.dueMillis)[0];
      if (due === undefined) break;
      due.cancelled = true;
      this.#nowMillis = Math.max(this.#nowMillis, due.dueMillis);
      due.callback();
      this.#forgetFired();
      await nextTurn();
    }
    this.#nowMillis = Math.max(this.#nowMillis, targetMillis);
  }

  #forgetFired(): void {
    for (let at = this.#timers.length - 1; at >= 0; at--)
      if (this.#timers[at]?.cancelled) this.#timers.splice(at, 1);
  }
}

/** A duration or time as given, refused when it is no finite number. */
function checkedMillis(millis: number, option = 'millis'): number {
  if (!Number.isFinite(millis))
    throw new InvalidConfigurationError(option, millis, 'a finite number of milliseconds');
  return millis;
}
