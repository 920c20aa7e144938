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
 * lease's heartbeat — fire when the clock passes them. `random()` is fixed at 0.5, so the
 * backoff's jitter is the same in every run.
 *
 * @example
 * ```ts
 * const clock = new TestClock(Date.UTC(2026, 0, 1));
 * clock.advanceMillis(60_000); // a lease lapses
 * ```
 * @public
 */
export class TestClock implements InboxRuntime {
  #nowMillis: number;
  readonly #timers: Timer[] = [];

  constructor(startMillis = Date.UTC(2026, 0, 1)) {
    this.#nowMillis = startMillis;
  }

  /** The clock's time, in epoch milliseconds. */
  now(): number {
    return this.#nowMillis;
  }

  /** Moves the clock by the wait, firing the timers it passes, then yields a turn. */
  async sleep(millis: number): Promise<void> {
    this.advanceMillis(Math.max(0, millis));
    await nextTurn();
  }

  /** Always 0.5: the retry backoff's jitter, the same in every run. */
  random(): number {
    return 0.5;
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
   * Moves the clock on by `millis`, firing, in time order, every timer it passes.
   *
   * @example
   * ```ts
   * clock.advanceMillis(5 * 60_000);
   * ```
   */
  advanceMillis(millis: number): void {
    const targetMillis = this.#nowMillis + Math.max(0, millis);
    for (;;) {
      const due = this.#timers
        .filter((timer) => !timer.cancelled && timer.dueMillis <= targetMillis)
        .sort((a, b) => a.dueMillis - b.dueMillis)[0];
      if (due === undefined) break;
      due.cancelled = true;
      this.#nowMillis = Math.max(this.#nowMillis, due.dueMillis);
      due.callback();
    }
    this.#nowMillis = targetMillis;
    this.#forgetFired();
  }

  #forgetFired(): void {
    for (let at = this.#timers.length - 1; at >= 0; at--)
      if (this.#timers[at]?.cancelled) this.#timers.splice(at, 1);
  }
}
