/**
 * A seeded pseudo-random generator (sfc32, seeded through splitmix32): the only source of
 * randomness in a simulated world, so that a world is a function of its seed. `derive` gives
 * an independent stream per purpose (workload, faults, scheduling), so that a change in how
 * one of them draws does not reshuffle the others.
 *
 * @example
 * ```ts
 * const random = new Prng(42);
 * const batchSize = random.int(1, 10);
 * const faults = random.derive('faults');
 * ```
 */
export class Prng {
  readonly seed: number;
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: number) {
    this.seed = seed >>> 0;
    let state = this.seed;
    const next = () => {
      state = (state + 0x9e3779b9) | 0;
      let z = state;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.#a = next();
    this.#b = next();
    this.#c = next();
    this.#d = next();
    for (let i = 0; i < 12; i++) this.#next32();
  }

  /** An independent generator for one purpose, fixed by this seed and the name. */
  derive(name: string): Prng {
    return new Prng(hash32(`${this.seed}:${name}`));
  }

  /** A number in [0, 1). */
  next(): number {
    return this.#next32() / 4_294_967_296;
  }

  /** An integer from `min` to `max`, both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return p > 0 && this.next() < p;
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('Prng.pick needs a non-empty array');
    return item;
  }

  /** A duration from `minMillis` to `maxMillis`, skewed towards the short end. */
  latencyMillis(minMillis: number, maxMillis: number): number {
    const u = this.next();
    return Math.round(minMillis + (maxMillis - minMillis) * u * u * u);
  }

  #next32(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return t >>> 0;
  }
}

/**
 * FNV-1a over a string's UTF-16 code units: a stable 32-bit hash for seeds and traces.
 *
 * @example
 * ```ts
 * hash32('faults'); // the same number in every process
 * ```
 */
export function hash32(text: string, start = 0x811c9dc5): number {
  let hash = start >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
