import { setTimeout as sleep } from 'node:timers/promises';
import { CrashPoint, type HeldMessage, type WorkerReport } from './workerProtocol.js';

/** The batch a worker is processing: how many records, how many committed, when received. */
export interface BatchInProgress {
  size: number;
  committed: number;
  receivedAtMillis: number;
}

/** What a crash switch needs from its worker. */
export interface CrashSwitchWiring {
  readonly point: CrashPoint | undefined;
  /** Occurrences of the point to pass before the one that kills. */
  readonly passes: number;
  readonly visibilitySeconds: number;
  readonly random: () => number;
  /** Sends a report to the supervisor; `sent` runs once it has left the process. */
  readonly report: (report: WorkerReport, sent?: () => void) => void;
  readonly ask: (
    question: 'receivedElsewhere' | 'copyHeldElsewhere',
    message: HeldMessage,
    waitMillis: number,
  ) => Promise<boolean>;
}

type Arm = {
  readonly when: 'before' | 'after';
  readonly point: CrashPoint;
  readonly detail: string;
  /** Whether another consumer held the same event at that moment. */
  readonly concurrent: boolean;
};

// The supervisor kills a worker within milliseconds of its crash report; a worker still alive
// after this long kills itself, so no run can hang on a lost report.
const FREEZE_LIMIT_MILLIS = 15_000;
const RECEIVED_ELSEWHERE_WAIT_MILLIS = 10_000;
// How long a worker waiting for a copy of its message to reach another consumer waits.
const COPY_WAIT_MILLIS = 1_000;

/**
 * Decides when a chaos worker dies. The worker calls it at each crash point; on the planned
 * occurrence it tells the supervisor where it stands, then freezes its event loop so nothing
 * more happens until the supervisor's SIGKILL lands.
 *
 * @example
 * ```ts
 * await crashSwitch.reach(CrashPoint.AfterCommit, 'batch of 10, 4 committed');
 * ```
 */
export class CrashSwitch {
  readonly #wiring: CrashSwitchWiring;
  #passesLeft: number;
  #disarmed = false;
  #slowStarted = false;
  readonly #armed = new Map<string, Arm>();

  constructor(wiring: CrashSwitchWiring) {
    this.#wiring = wiring;
    this.#passesLeft = wiring.passes;
  }

  /** No more crashes: the run has its count and now drains. */
  disarm(): void {
    this.#disarmed = true;
    this.#armed.clear();
  }

  /** An occurrence of a point; returns only when it is not the one that kills. */
  async reach(point: CrashPoint, detail: string): Promise<void> {
    if (this.#disarmed || point !== this.#wiring.point) return;
    if (this.#passesLeft-- > 0) return;
    await this.#crash(point, detail);
  }

  /** Just before a transaction for inbox key `pk` goes out. */
  async beforeTransaction(pk: string): Promise<void> {
    await this.reach(CrashPoint.BeforeTransaction, `${pk}: handler done, transaction not sent`);
    const arm = this.#armed.get(pk);
    if (arm?.when === 'before' && !this.#disarmed)
      await this.#crash(arm.point, arm.detail, arm.concurrent);
  }

  /** Just after a transaction for `pk` returned (`committed` or the error's name). */
  async afterTransaction(pk: string, outcome: string, batch: BatchInProgress): Promise<void> {
    const arm = this.#armed.get(pk);
    if (arm?.when === 'after' && !this.#disarmed)
      await this.#crash(arm.point, `${arm.detail} (its transaction: ${outcome})`, arm.concurrent);
    if (outcome === 'committed' && batch.committed < batch.size)
      await this.reach(
        CrashPoint.MidBatch,
        `${batch.committed} of ${batch.size} records committed, ${pk} the last`,
      );
  }

  /** Before the business handler runs for a message (whose inbox key is `pk`). */
  async beforeHandler(message: HeldMessage, pk: string, batch: BatchInProgress): Promise<void> {
    if (this.#disarmed) return;
    if (this.#wiring.point === CrashPoint.SlowHandler && !this.#slowStarted) {
      this.#slowStarted = true;
      await this.#holdPastVisibility(message, pk, batch);
    } else if (this.#wiring.point === CrashPoint.ConcurrentCopies && this.#armed.size === 0) {
      if (!(await this.#wiring.ask('copyHeldElsewhere', message, COPY_WAIT_MILLIS))) return;
      const when = this.#wiring.random() < 0.5 ? 'before' : 'after';
      this.#armed.set(pk, {
        when,
        point: CrashPoint.ConcurrentCopies,
        detail: `${pk}: another consumer holds a copy; killed ${when} its own transaction`,
        concurrent: true,
      });
    }
  }

  async #holdPastVisibility(message: HeldMessage, pk: string, batch: BatchInProgress) {
    const visibleAgainMillis = batch.receivedAtMillis + this.#wiring.visibilitySeconds * 1000;
    await sleep(Math.max(0, visibleAgainMillis + 250 - Date.now()));
    const elsewhere = await this.#wiring.ask(
      'receivedElsewhere',
      message,
      RECEIVED_ELSEWHERE_WAIT_MILLIS,
    );
    const detail = `${pk} held past its ${this.#wiring.visibilitySeconds} s visibility timeout; ${
      elsewhere ? 'another consumer received it' : 'no other consumer received it'
    }`;
    if (this.#disarmed) return;
    if (this.#wiring.random() < 0.5)
      await this.#crash(CrashPoint.SlowHandler, `${detail}; killed holding it`, elsewhere);
    // Otherwise the slow handler goes on and races the other consumer to commit.
    this.#armed.set(pk, {
      when: 'after',
      point: CrashPoint.SlowHandler,
      detail: `${detail}; killed after racing it`,
      concurrent: elsewhere,
    });
  }

  #crash(point: CrashPoint, detail: string, concurrent = false): Promise<never> {
    this.#disarmed = true;
    this.#wiring.report({ type: 'crash', point, detail, concurrent }, () => {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, FREEZE_LIMIT_MILLIS);
      process.kill(process.pid, 'SIGKILL');
    });
    return new Promise<never>(() => {});
  }
}
