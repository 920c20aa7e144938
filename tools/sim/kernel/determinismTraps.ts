import { createRequire, syncBuiltinESMExports } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A global that a simulated world must not read: the clock, randomness or a real timer. It is
 * thrown where the global was reached, and kept so that the world fails even when the code
 * under test catches it.
 *
 * @example
 * ```ts
 * if (leaks.length > 0) throw leaks[0]; // a SimulationLeakError naming Date.now
 * ```
 */
export class SimulationLeakError extends Error {
  readonly global: string;

  constructor(global: string) {
    super(
      `${global} was called inside a simulated world: take time, randomness and timers from the ` +
        'runtime the world injects, so that a run is a function of its seed.',
    );
    this.name = 'SimulationLeakError';
    this.global = global;
  }
}

type Patch = readonly [target: Record<string, unknown>, name: string, label: string];

/**
 * Replaces, for the whole process, every global through which a run could stop being a function
 * of its seed: the clock (`Date.now`, `new Date()` and `Date()` without a time,
 * `performance.now`, `process.hrtime`), randomness (`Math.random`, `crypto.randomUUID`,
 * `randomBytes`, `getRandomValues`), and the timers (the globals, `node:timers` and
 * `node:timers/promises`). Calling one throws a
 * {@link SimulationLeakError} and records it. Meant for the processes that only run worlds
 * (`npm run sim`); the kernel captured what it needs before. Returns what restores them.
 *
 * @example
 * ```ts
 * const traps = installDeterminismTraps();
 * await runWorld(seed);
 * if (traps.leaks.length > 0) console.error(traps.leaks[0]);
 * ```
 */
export function installDeterminismTraps(): { leaks: SimulationLeakError[]; restore: () => void } {
  const leaks: SimulationLeakError[] = [];
  const crypto = require('node:crypto') as Record<string, unknown>;
  const timers = require('node:timers') as Record<string, unknown>;
  const timerPromises = require('node:timers/promises') as Record<string, unknown>;
  const patches: Patch[] = [
    [Date as unknown as Record<string, unknown>, 'now', 'Date.now'],
    [Math as unknown as Record<string, unknown>, 'random', 'Math.random'],
    [globalThis.crypto as unknown as Record<string, unknown>, 'randomUUID', 'crypto.randomUUID'],
    [crypto, 'randomUUID', 'crypto.randomUUID'],
    [crypto, 'randomBytes', 'crypto.randomBytes'],
    [
      globalThis.crypto as unknown as Record<string, unknown>,
      'getRandomValues',
      'crypto.getRandomValues',
    ],
    [globalThis.performance as unknown as Record<string, unknown>, 'now', 'performance.now'],
    [process as unknown as Record<string, unknown>, 'hrtime', 'process.hrtime'],
    ...['setTimeout', 'setInterval', 'setImmediate'].flatMap((name): Patch[] => [
      [globalThis as unknown as Record<string, unknown>, name, name],
      [timers, name, `node:timers ${name}`],
      [timerPromises, name, `node:timers/promises ${name}`],
    ]),
  ];
  const originals = patches.map(([target, name]) => target[name]);
  const leak = (label: string) => {
    const error = new SimulationLeakError(label);
    leaks.push(error);
    return error;
  };
  for (const [target, name, label] of patches) {
    target[name] = () => {
      throw leak(label);
    };
  }
  Object.assign(process.hrtime, {
    bigint: () => {
      throw leak('process.hrtime.bigint');
    },
  });
  const OriginalDate = globalThis.Date;
  globalThis.Date = trappedDate(OriginalDate, leak);
  syncBuiltinESMExports();
  return {
    leaks,
    restore() {
      patches.forEach(([target, name], index) => {
        target[name] = originals[index];
      });
      globalThis.Date = OriginalDate;
      syncBuiltinESMExports();
    },
  };
}

/**
 * `Date` that refuses to read the clock: `new Date()` and `Date()` throw, while a date built
 * from a time, `Date.UTC`, `Date.parse` and `instanceof Date` work as before.
 */
function trappedDate(
  OriginalDate: DateConstructor,
  leak: (label: string) => SimulationLeakError,
): DateConstructor {
  return new Proxy(OriginalDate, {
    construct(target, args, newTarget) {
      if (args.length === 0) throw leak('new Date()');
      return Reflect.construct(target, args, newTarget);
    },
    apply() {
      throw leak('Date()');
    },
  });
}
