import { type InboxRuntime, TimerPurpose } from '../runtime/InboxRuntime.js';

/**
 * Renews a lease every `periodMillis` while it runs: each beat is one call of `beat`, the next
 * timer set only once that call settled, so beats never overlap. `pause()` cancels the timer
 * and waits for a beat in flight, so no renewal races the commit that follows (the two would
 * make the commit's transaction fail with a conflict on the entry).
 *
 * @example
 * ```ts
 * const heartbeat = new LeaseHeartbeat(runtime, 10_000, () => store.heartbeat(request));
 * heartbeat.start();
 * await heartbeat.pause(); // before the commit
 * ```
 */
export class LeaseHeartbeat {
  readonly #runtime: Pick<InboxRuntime, 'startTimer'>;
  readonly #periodMillis: number;
  readonly #beat: () => Promise<boolean>;
  #cancel: (() => void) | undefined;
  #inFlight: Promise<void> | undefined;
  #running = false;

  /** `beat` answers whether to go on beating (false: the lease is lost, or reached its end). */
  constructor(
    runtime: Pick<InboxRuntime, 'startTimer'>,
    periodMillis: number,
    beat: () => Promise<boolean>,
  ) {
    this.#runtime = runtime;
    this.#periodMillis = periodMillis;
    this.#beat = beat;
  }

  /** Starts beating (again); nothing if already running. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule();
  }

  /** Stops beating and waits for a beat in flight to settle. */
  async pause(): Promise<void> {
    this.stop();
    await this.#inFlight;
  }

  /** Stops beating at once; a beat in flight settles on its own. */
  stop(): void {
    this.#running = false;
    this.#cancel?.();
    this.#cancel = undefined;
  }

  #schedule(): void {
    const beat = () => {
      this.#cancel = undefined;
      if (!this.#running) return;
      this.#inFlight = this.#beat().then(
        (goOn) => {
          this.#inFlight = undefined;
          if (!goOn) this.#running = false;
          if (this.#running) this.#schedule();
        },
        () => {
          this.#inFlight = undefined;
          if (this.#running) this.#schedule();
        },
      );
    };
    this.#cancel = this.#runtime.startTimer(this.#periodMillis, beat, TimerPurpose.Heartbeat);
  }
}
