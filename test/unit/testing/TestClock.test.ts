import { describe, expect, it } from 'vitest';
import { InvalidConfigurationError } from '../../../src/errors.js';
import { TestClock } from '../../../src/testing/index.js';

describe('TestClock', () => {
  it('ends waits that overlap at their own times: the clock moves to the longest, never back', async () => {
    const clock = new TestClock({ startMillis: 0 });
    const ends: number[] = [];
    clock.startTimer(50, () => {});
    await Promise.all(
      [100, 1_000, 100].map(async (millis) => {
        await clock.sleep(millis);
        ends.push(clock.now());
      }),
    );
    expect(clock.now()).toBe(1_000);
    expect(Math.min(...ends)).toBeGreaterThanOrEqual(100);
    expect(ends).toEqual([...ends].sort((a, b) => a - b));
  });

  it('fires the timers it passes in time order, and lets a timer set again from its callback fire too', async () => {
    const clock = new TestClock({ startMillis: 0 });
    const fired: string[] = [];
    const beat = () => {
      fired.push(`beat@${clock.now()}`);
      Promise.resolve().then(() => clock.startTimer(20, beat));
    };
    clock.startTimer(20, beat);
    clock.startTimer(30, () => fired.push(`once@${clock.now()}`));
    const cancel = clock.startTimer(10, () => fired.push('cancelled'));
    cancel();
    await clock.advanceMillis(65);
    expect(fired).toEqual(['beat@20', 'once@30', 'beat@40', 'beat@60']);
    expect(clock.now()).toBe(65);
  });

  it('gives a different random number each call, the same sequence for the same seed', () => {
    const draw = (seed: number) => {
      const clock = new TestClock({ seed });
      return [clock.random(), clock.random(), clock.random()];
    };
    expect(new Set(draw(1)).size).toBe(3);
    expect(draw(1)).toEqual(draw(1));
    expect(draw(2)).not.toEqual(draw(1));
  });

  it('refuses a time that is no finite number, naming it', async () => {
    expect(() => new TestClock({ startMillis: Number.NaN })).toThrow(InvalidConfigurationError);
    await expect(new TestClock().advanceMillis(Number.POSITIVE_INFINITY)).rejects.toThrow(/millis/);
  });
});
