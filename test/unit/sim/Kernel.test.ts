import { describe, expect, it } from 'vitest';
import {
  installDeterminismTraps,
  SimulationLeakError,
} from '../../../tools/sim/kernel/determinismTraps.js';
import { Kernel, RunEnd } from '../../../tools/sim/kernel/Kernel.js';
import { Prng } from '../../../tools/sim/kernel/Prng.js';

const limits = { maxMillis: 3_600_000, maxSteps: 10_000 };

/** Two actors that each sleep and log three times, with ties in time. */
async function twoActors(seed: number): Promise<{ log: string[]; hash: string }> {
  const kernel = new Kernel(new Prng(seed), true);
  const log: string[] = [];
  const actor = async (name: string) => {
    for (let n = 1; n <= 3; n++) {
      await kernel.sleep(name, 10);
      log.push(`${name}${n}@${kernel.nowMillis}`);
    }
  };
  void actor('a');
  void actor('b');
  await kernel.run(() => false, limits);
  return { log, hash: kernel.trace.hash };
}

describe('Kernel', () => {
  it('runs steps in simulated time, jumping over the gaps between them', async () => {
    const { log } = await twoActors(1);

    expect(log.map((entry) => entry.slice(2))).toEqual(['@10', '@10', '@20', '@20', '@30', '@30']);
  });

  it('is a function of its seed: the same seed gives the same trace, other seeds other orders', async () => {
    const runs = await Promise.all([1, 1, 2, 3, 4, 5, 6].map((seed) => twoActors(seed)));

    expect(runs[1]).toEqual(runs[0]);
    expect(new Set(runs.map((run) => run.log.join())).size).toBeGreaterThan(1);
  });

  it('never resumes a killed actor, yet runs what another actor does for it', async () => {
    const kernel = new Kernel(new Prng(1), false);
    const reached: string[] = [];
    void (async () => {
      await kernel.sleep('lambda-1', 100);
      reached.push('lambda resumed');
    })();
    kernel.schedule({
      actor: 'dynamodb',
      label: 'applies',
      delayMillis: 200,
      run: () => reached.push('applied'),
    });
    kernel.schedule({
      actor: 'chaos',
      label: 'kills',
      delayMillis: 50,
      run: () => kernel.kill('lambda-1'),
    });

    const end = await kernel.run(() => false, limits);

    expect(end).toBe(RunEnd.Idle);
    expect(reached).toEqual(['applied']);
    expect(kernel.schedule({ actor: 'lambda-1', label: 'late', run: () => {} })).toBeTypeOf(
      'function',
    );
    expect(kernel.hasPending((actor) => actor === 'lambda-1')).toBe(false);
  });

  it('stops at its condition, its time limit and its step limit', async () => {
    const ticking = () => {
      const kernel = new Kernel(new Prng(1), false);
      const tick = () =>
        kernel.schedule({ actor: 'clock', label: 'tick', delayMillis: 1_000, run: tick });
      tick();
      return kernel;
    };

    expect(await ticking().run(() => false, { maxMillis: 5_000, maxSteps: 100 })).toBe(
      RunEnd.TimeLimit,
    );
    expect(await ticking().run(() => false, { maxMillis: 1e9, maxSteps: 3 })).toBe(
      RunEnd.StepLimit,
    );
    const kernel = ticking();
    expect(await kernel.run(() => kernel.nowMillis >= 2_000, limits)).toBe(RunEnd.Done);
  });
});

describe('freezing an actor', () => {
  it('holds its steps while time goes on, and runs the overdue ones first when it thaws', async () => {
    const kernel = new Kernel(new Prng(3), true);
    const ran: string[] = [];
    kernel.schedule({
      actor: 'lambda-1',
      label: 'backs off',
      delayMillis: 100,
      run: () => ran.push(`lambda at ${kernel.nowMillis}`),
    });
    kernel.freeze('lambda-1');
    kernel.schedule({
      actor: 'lambda-1',
      label: 'receives',
      delayMillis: 200,
      run: () => ran.push(`answer at ${kernel.nowMillis}`),
    });
    kernel.schedule({
      actor: 'esm',
      label: 'polls',
      delayMillis: 5_000,
      run: () => ran.push(`esm at ${kernel.nowMillis}`),
    });
    kernel.schedule({
      actor: 'esm',
      label: 'invokes',
      delayMillis: 9_000,
      run: () => kernel.thaw('lambda-1'),
    });

    expect(await kernel.run(() => false, { maxMillis: 60_000, maxSteps: 100 })).toBe(RunEnd.Idle);

    expect(ran).toEqual(['esm at 5000', 'lambda at 9000', 'answer at 9000']);
  });

  it('drops the held steps of an actor killed while frozen', async () => {
    const kernel = new Kernel(new Prng(3), false);
    const ran: string[] = [];
    kernel.schedule({
      actor: 'lambda-1',
      label: 'backs off',
      delayMillis: 100,
      run: () => ran.push('lambda'),
    });
    kernel.freeze('lambda-1');
    kernel.kill('lambda-1');
    kernel.thaw('lambda-1');

    expect(await kernel.run(() => false, { maxMillis: 60_000, maxSteps: 100 })).toBe(RunEnd.Idle);
    expect(ran).toEqual([]);
  });
});

describe('determinism traps', () => {
  it('make reading the clock, randomness or a timer inside a world an error that is recorded', () => {
    const traps = installDeterminismTraps();
    try {
      expect(() => Date.now()).toThrow(SimulationLeakError);
      expect(() => Math.random()).toThrow(/Math.random was called inside a simulated world/);
      expect(() => setTimeout(() => {}, 1)).toThrow(SimulationLeakError);
      expect(() => crypto.randomUUID()).toThrow(SimulationLeakError);
    } finally {
      traps.restore();
    }

    expect(traps.leaks.map((leak) => leak.global)).toEqual([
      'Date.now',
      'Math.random',
      'setTimeout',
      'crypto.randomUUID',
    ]);
    expect(Date.now()).toBeGreaterThan(0);
  });

  it('trap the clock read through new Date(), Date() and hrtime, and randomBytes and getRandomValues, but not a date built from a time', async () => {
    const nodeCrypto = await import('node:crypto');
    const traps = installDeterminismTraps();
    let fromTime: Date | undefined;
    try {
      expect(() => new Date()).toThrow(SimulationLeakError);
      expect(() => (Date as unknown as () => string)()).toThrow(SimulationLeakError);
      expect(() => process.hrtime()).toThrow(SimulationLeakError);
      expect(() => process.hrtime.bigint()).toThrow(SimulationLeakError);
      expect(() => nodeCrypto.randomBytes(4)).toThrow(SimulationLeakError);
      expect(() => crypto.getRandomValues(new Uint8Array(4))).toThrow(SimulationLeakError);
      fromTime = new Date(Date.UTC(2026, 10, 1));
    } finally {
      traps.restore();
    }

    expect(traps.leaks.map((leak) => leak.global)).toEqual([
      'new Date()',
      'Date()',
      'process.hrtime',
      'process.hrtime.bigint',
      'crypto.randomBytes',
      'crypto.getRandomValues',
    ]);
    expect(fromTime?.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(fromTime).toBeInstanceOf(Date);
    expect(new Date().toISOString()).toMatch(/^20/);
  });
});

describe('Prng', () => {
  it('gives the same numbers for a seed and independent streams by name', () => {
    const draw = (random: Prng) => Array.from({ length: 5 }, () => random.int(0, 1_000_000));

    expect(draw(new Prng(9))).toEqual(draw(new Prng(9)));
    expect(draw(new Prng(9).derive('faults'))).not.toEqual(draw(new Prng(9).derive('workload')));
    expect(draw(new Prng(9))).not.toEqual(draw(new Prng(10)));
  });
});
