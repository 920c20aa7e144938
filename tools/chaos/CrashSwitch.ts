import { setTimeout as sleep } from 'node:timers/promises';
import {
  CrashPoint,
  type CrashReport,
  HANGING_FUNCTION_TIMEOUT_MILLIS,
  type HeldMessage,
} from './workerProtocol.js';

/** The batch a worker is processing: its records, how many committed or settled, when received. */
export interface BatchInProgress {
  size: number;
  committed: number;
  /** Records with an outcome (committed, duplicate or failed), counted from the library's metrics. */
  settled: number;
  receivedAtMillis: number;
}

/** What a crash switch needs from its worker. */
export interface CrashSwitchWiring {
  readonly point: CrashPoint | undefined;
  /** Occurrences of the point to pass before the one that kills. */
  readonly passes: number;
  readonly visibilitySeconds: number;
  readonly random: () => number;
  /**
   * Hands the crash report to the supervisor synchronously and freezes the process until the
   * supervisor's SIGKILL lands: nothing after the crash point runs.
   */
  readonly halt: (report: CrashReport) => void;
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
  readonly message: HeldMessage;
};

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
  #hung: HeldMessage | undefined;
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

  /** Whether this worker is to die at `point` and has neither died nor been disarmed. */
  armedFor(point: CrashPoint): boolean {
    return !this.#disarmed && this.#wiring.point === point;
  }

  /** Dies now at `point`, planned outside the switch (point 10 judges its own moment). */
  crashAt(
    point: CrashPoint,
    detail: string,
    extra: Pick<CrashReport, 'staleWrites'>,
  ): Promise<never> {
    return this.#crash(point, detail, undefined, extra);
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
      await this.#crash(arm.point, arm.detail, arm.message);
  }

  /** Just after a transaction for `pk` returned (`committed` or the error's name). */
  async afterTransaction(pk: string, outcome: string, batch: BatchInProgress): Promise<void> {
    const arm = this.#armed.get(pk);
    if (arm?.when === 'after' && !this.#disarmed)
      await this.#crash(arm.point, `${arm.detail} (its transaction: ${outcome})`, arm.message);
    // This record's outcome is not counted yet: the others still open are size − settled − 1.
    const open = batch.size - batch.settled - 1;
    if (outcome === 'committed' && open > 0)
      await this.reach(
        CrashPoint.MidBatch,
        `${pk} committed, ${batch.committed} of ${batch.size} records committed, ${open} still open`,
      );
  }

  /**
   * Before the business handler runs for a message (whose inbox key is `pk`). At point 6 the
   * planned occurrence hangs the handler until the batch's deadline aborts `signal`.
   */
  async beforeHandler(
    message: HeldMessage,
    pk: string,
    batch: BatchInProgress,
    signal: AbortSignal = new AbortController().signal,
  ): Promise<void> {
    if (this.#disarmed) return;
    if (this.#wiring.point === CrashPoint.HangingHandler && this.#hung === undefined) {
      if (this.#passesLeft-- > 0) return;
      this.#hung = message;
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
    } else if (this.#wiring.point === CrashPoint.SlowHandler && !this.#slowStarted) {
      this.#slowStarted = true;
      await this.#holdPastVisibility(message, pk, batch);
    } else if (this.#wiring.point === CrashPoint.ConcurrentCopies && this.#armed.size === 0) {
      if (!(await this.#wiring.ask('copyHeldElsewhere', message, COPY_WAIT_MILLIS))) return;
      const when = this.#wiring.random() < 0.5 ? 'before' : 'after';
      this.#armed.set(pk, {
        when,
        point: CrashPoint.ConcurrentCopies,
        detail: `${pk}: another consumer holds a copy; killed ${when} its own transaction`,
        message,
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
    // Point 4 needs a second consumer holding the message: without one, try a later message.
    if (!elsewhere || this.#disarmed) {
      this.#slowStarted = false;
      return;
    }
    const detail = `${pk} held past its ${this.#wiring.visibilitySeconds} s visibility timeout, received by another consumer`;
    if (this.#wiring.random() < 0.5)
      await this.#crash(CrashPoint.SlowHandler, `${detail}; killed holding it`, message);
    // Otherwise the slow handler goes on and races the other consumer to commit.
    this.#armed.set(pk, {
      when: 'after',
      point: CrashPoint.SlowHandler,
      detail: `${detail}; killed after racing it`,
      message,
    });
  }

  /**
   * The batch answered. At point 6 the worker dies now, before deleting anything, and says
   * whether the answer came in time with the hung record reported failed; `late` is called
   * first if it did not.
   */
  async batchAnswered(
    failedIds: ReadonlySet<string>,
    elapsedMillis: number,
    late: () => void,
  ): Promise<void> {
    const hung = this.#hung;
    if (hung === undefined || this.#disarmed) return;
    const inTime = elapsedMillis < HANGING_FUNCTION_TIMEOUT_MILLIS && failedIds.has(hung.messageId);
    if (!inTime) late();
    await this.#crash(
      CrashPoint.HangingHandler,
      `${hung.key}: its handler hung; the batch answered after ${Math.round(elapsedMillis)} ms of a ` +
        `${HANGING_FUNCTION_TIMEOUT_MILLIS} ms timeout ${inTime ? 'with it failed' : 'LATE or without it failed'}`,
      hung,
    );
  }

  /**
   * The batch settled: arms whose record never reached its transaction (its handler failed)
   * are dropped, so the switch can arm again on a later message.
   */
  batchSettled(): void {
    this.#armed.clear();
    if (this.#wiring.point === CrashPoint.SlowHandler) this.#slowStarted = false;
  }

  /** Hands the report over (with the message at points 4 and 5, for the supervisor to judge racing). */
  #crash(
    point: CrashPoint,
    detail: string,
    message?: HeldMessage,
    extra: Pick<CrashReport, 'staleWrites'> = {},
  ): Promise<never> {
    this.#disarmed = true;
    this.#wiring.halt({ type: 'crash', point, detail, ...(message ? { message } : {}), ...extra });
    return new Promise<never>(() => {});
  }
}
