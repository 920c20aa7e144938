import { hash32 } from './Prng.js';

/**
 * What a world did, step by step (`time actor step`): kept as lines when asked (to replay and
 * read a world) and always as a running hash (to compare two runs of one seed cheaply).
 *
 * @example
 * ```ts
 * const trace = new Trace(true);
 * trace.record(1_250, 'container-1', 'invoke 3 records');
 * console.log(trace.lines.join('\n'), trace.hash);
 * ```
 */
export class Trace {
  readonly lines: string[] = [];
  readonly #keepLines: boolean;
  #hash = 0x811c9dc5;
  #steps = 0;

  constructor(keepLines: boolean) {
    this.#keepLines = keepLines;
  }

  /** How many steps were recorded. */
  get steps(): number {
    return this.#steps;
  }

  /** The hash of every recorded line, as 8 hex digits. */
  get hash(): string {
    return this.#hash.toString(16).padStart(8, '0');
  }

  record(timeMillis: number, actor: string, label: string): void {
    this.#steps++;
    // The hash covers what the line says without building the line: most runs keep no lines.
    this.#hash = hash32(
      label,
      hash32(actor, Math.imul(this.#hash ^ Math.round(timeMillis * 1000), 0x01000193)),
    );
    if (this.#keepLines) this.lines.push(`${formatTime(timeMillis)} ${actor} ${label}`);
  }

  /** A note that is part of the trace (what the world decided), without counting as a step. */
  note(timeMillis: number, text: string): void {
    this.#hash = hash32(text, Math.imul(this.#hash ^ Math.round(timeMillis * 1000), 0x01000193));
    if (this.#keepLines) this.lines.push(`${formatTime(timeMillis)} world ${text}`);
  }
}

/** Simulated time as seconds with milliseconds, e.g. `12.345s`. */
function formatTime(timeMillis: number): string {
  return `${(timeMillis / 1000).toFixed(3)}s`.padStart(10);
}
