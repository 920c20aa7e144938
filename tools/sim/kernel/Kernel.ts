import type { Prng } from './Prng.js';
import { Trace } from './Trace.js';

// Captured when this module loads, before any determinism trap replaces the global.
const nextMacrotask = globalThis.setImmediate;

/**
 * One pending step of a world: something that happens at a simulated time, on behalf of an
 * actor (a Lambda container, the DynamoDB service, an SQS queue…).
 *
 * @example
 * ```ts
 * kernel.schedule({ actor: 'sqs', label: 'message visible again', delayMillis: 30_000, run });
 * ```
 */
export interface StepSpec {
  /** Who the step belongs to: killing this actor drops the step. */
  readonly actor: string;
  /** What the step does, as the trace shows it. */
  readonly label: string;
  /** From now; default 0 (ready at once). */
  readonly delayMillis?: number;
  readonly run: () => void;
}

interface Step {
  readonly actor: string;
  readonly label: string;
  readonly run: () => void;
  readonly atMillis: number;
  cancelled: boolean;
}

/**
 * Why {@link Kernel.run} returned.
 *
 * @example
 * ```ts
 * if (end === RunEnd.TimeLimit) throw new Error('the world never quiesced');
 * ```
 */
export const RunEnd = {
  /** The caller's condition holds. */
  Done: 'done',
  /** No step is pending. */
  Idle: 'idle',
  TimeLimit: 'time limit',
  StepLimit: 'step limit',
} as const;
/** One of the values of {@link RunEnd}. */
export type RunEnd = (typeof RunEnd)[keyof typeof RunEnd];

/**
 * The scheduler of a simulated world. It owns time (simulated milliseconds, from 0) and the
 * pending steps. Each turn it takes the steps that are due, lets the seed pick one, runs it, and
 * lets every promise continuation it set off run to its next wait before the next turn: async
 * code interleaves only at an `await`, so a world whose every wait is a step here is a
 * function of its seed. When no step is due, time jumps to the next one.
 *
 * @example
 * ```ts
 * const kernel = new Kernel(new Prng(7), true);
 * kernel.schedule({ actor: 'clock', label: 'tick', delayMillis: 1_000, run: () => {} });
 * await kernel.run(() => false, { maxMillis: 60_000, maxSteps: 10_000 });
 * ```
 */
export class Kernel {
  readonly trace: Trace;
  readonly #random: Prng;
  #nowMillis = 0;
  #pending: Step[] = [];
  readonly #killed = new Set<string>();
  /** The steps of frozen actors, held until they thaw. */
  readonly #frozen = new Map<string, Step[]>();

  constructor(random: Prng, keepTrace: boolean) {
    this.#random = random;
    this.trace = new Trace(keepTrace);
  }

  /** Simulated time in milliseconds since the world began. */
  get nowMillis(): number {
    return this.#nowMillis;
  }

  /** Adds a step; returns what cancels it. A step of a killed actor is dropped. */
  schedule(spec: StepSpec): () => void {
    if (this.#killed.has(spec.actor)) return () => {};
    const step: Step = {
      actor: spec.actor,
      label: spec.label,
      run: spec.run,
      atMillis: this.#nowMillis + (spec.delayMillis ?? 0),
      cancelled: false,
    };
    (this.#frozen.get(spec.actor) ?? this.#pending).push(step);
    return () => {
      step.cancelled = true;
    };
  }

  /** A promise the actor waits on, resolved by a step `millis` from now. */
  sleep(actor: string, millis: number, label = `sleeps ${millis} ms`): Promise<void> {
    return new Promise((resolve) => {
      this.schedule({ actor, label, delayMillis: millis, run: resolve });
    });
  }

  /**
   * Stops an actor for good, as a killed process: its pending steps never run, so every
   * promise it waits on stays pending and its code never resumes. What it already sent to a
   * service is the service's step and still happens.
   */
  kill(actor: string): void {
    this.#killed.add(actor);
    this.#frozen.delete(actor);
    this.#pending = this.#pending.filter((step) => step.actor !== actor);
  }

  /**
   * Holds the actor's steps, pending and new, until {@link thaw}: a Lambda execution
   * environment frozen after its invocation answered. Time goes on meanwhile.
   */
  freeze(actor: string): void {
    if (this.#killed.has(actor) || this.#frozen.has(actor)) return;
    this.#frozen.set(
      actor,
      this.#pending.filter((step) => step.actor === actor),
    );
    this.#pending = this.#pending.filter((step) => step.actor !== actor);
  }

  /** Lets a frozen actor's held steps run again; those already due run first. */
  thaw(actor: string): void {
    const held = this.#frozen.get(actor);
    if (held === undefined) return;
    this.#frozen.delete(actor);
    this.#pending.push(...held);
  }

  isKilled(actor: string): boolean {
    return this.#killed.has(actor);
  }

  /** Whether a step of `actor` (or of any actor matching it) is pending. */
  hasPending(actor: (name: string) => boolean): boolean {
    return this.#pending.some((step) => !step.cancelled && actor(step.actor));
  }

  /** Runs steps until `done()` holds, nothing is pending, or a limit is reached. */
  async run(
    done: () => boolean,
    limits: { readonly maxMillis: number; readonly maxSteps: number },
  ): Promise<RunEnd> {
    for (;;) {
      if (done()) return RunEnd.Done;
      const step = this.#takeNext();
      if (step === undefined) return RunEnd.Idle;
      if (step.atMillis > limits.maxMillis) return RunEnd.TimeLimit;
      if (this.trace.steps >= limits.maxSteps) return RunEnd.StepLimit;
      this.#nowMillis = Math.max(this.#nowMillis, step.atMillis);
      this.trace.record(this.#nowMillis, step.actor, step.label);
      step.run();
      // Every continuation the step set off runs to its next wait before the next step.
      await new Promise((resolve) => nextMacrotask(resolve));
    }
  }

  /** The next step: a seeded pick among those due at the earliest pending time. */
  #takeNext(): Step | undefined {
    const pending = this.#pending;
    let earliest = Number.POSITIVE_INFINITY;
    let due = 0;
    for (let i = 0; i < pending.length; ) {
      const step = pending[i] as Step;
      if (step.cancelled) {
        pending[i] = pending[pending.length - 1] as Step;
        pending.pop();
        continue;
      }
      if (step.atMillis < earliest) {
        earliest = step.atMillis;
        due = 1;
      } else if (step.atMillis === earliest) {
        due++;
      }
      i++;
    }
    if (due === 0) return undefined;
    // The k-th of the steps due, in the pool's order (itself a function of the seed).
    let k = due === 1 ? 0 : Math.floor(this.#random.next() * due);
    for (let i = 0; i < pending.length; i++) {
      const step = pending[i] as Step;
      if (step.atMillis !== earliest || k-- > 0) continue;
      pending[i] = pending[pending.length - 1] as Step;
      pending.pop();
      return step;
    }
    return undefined;
  }
}
