import { describe, expect, it } from 'vitest';
import { ConflictBackoff } from '../../../src/contention/ConflictBackoff.js';

describe('ConflictBackoff', () => {
  it('waits up to DynamoDB’s published transaction round trip (25 ms) before any commit is observed', () => {
    const backoff = new ConflictBackoff();

    expect(backoff.delayMillis(1, 0.999)).toBeCloseTo(24.975);
    expect(backoff.delayMillis(1, 0)).toBe(0);
  });

  it('learns the round trip of the commits it observes', () => {
    const backoff = new ConflictBackoff();

    for (let i = 0; i < 50; i++) backoff.observe(400);

    expect(backoff.roundTripMillis).toBeGreaterThan(399);
    expect(backoff.delayMillis(1, 0.5)).toBeCloseTo(backoff.roundTripMillis / 2);
  });

  it('grows the wait with conflicts in a row, up to four round trips', () => {
    const backoff = new ConflictBackoff();

    expect(backoff.delayMillis(2, 0.5)).toBeCloseTo(25);
    expect(backoff.delayMillis(4, 0.5)).toBeCloseTo(50);
    expect(backoff.delayMillis(40, 0.5)).toBeCloseTo(50);
  });

  it('ignores a round trip that is no time and bounds a stalled one', () => {
    const backoff = new ConflictBackoff();

    backoff.observe(Number.NaN);
    backoff.observe(-5);
    expect(backoff.roundTripMillis).toBe(25);
    for (let i = 0; i < 100; i++) backoff.observe(600_000);
    expect(backoff.roundTripMillis).toBeLessThanOrEqual(5_000);
  });
});
