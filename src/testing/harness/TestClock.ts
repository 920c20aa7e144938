import { setImmediate as nextTurn } from 'node:timers/promises';
import type { InboxRuntime, TimerPurpose } from '../../runtime/InboxRuntime.js';

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
 * @example
 * ```ts
 * const clock = new TestClock(Date.UTC(2026, 0, 1));
 * await clock.advanceMillis(60_000); // a lease lapses
 * ```
 * @public
 */
export class TestClock implements InboxRuntime {
  #nowMillis: number;
  readonly #timers: Timer[] = [];

  #seed: number;

  constructor(startMillis = Date.UTC(2026, 0, 1), seed = 1) {
    this.#nowMillis = startMillis;
    this.#seed = seed >>> 0;
  }

  /** The clock's time, in epoch milliseconds. */
  now(): number {
    return this.#nowMillis;
  }

  /** Moves the clock by the wait, firing the timers it passes, then yields a turn. */
  async sleep(millis: number): Promise<void> {
    await this.advanceMillis(Math.max(0, millis));
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
  startTimer(millis: number, callback: () => void, _purpose?: TimerPurpose): () => void {
    const timer: Timer = {
      dueMillis: this.#nowMillis + Math.max(0, millis),
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
    const targetMillis = this.#nowMillis + Math.max(0, millis);
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
    this.#nowMillis = targetMillis;
  }

  #forgetFired(): void {
    for (let at = this.#timers.length - 1; at >= 0; at--)
      if (this.#timers[at]?.cancelled) this.#timers.splice(at, 1);
  }
}
