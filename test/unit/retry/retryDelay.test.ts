import { describe, expect, it } from 'vitest';
import { RETRY_LIMITS } from '../../../src/constants/index.js';
import { LeaseHeldError } from '../../../src/errors.js';
import { RetryCause, type RetryPolicy, retryDelay } from '../../../src/retry/retryDelay.js';

const NOW = 1_800_000_000_000;
const backoff: RetryPolicy = {
  backoff: { firstDelaySeconds: 5, maxDelaySeconds: 60 },
  leaseHeldMarginSeconds: 2,
};
const failure = (receiveCount: number, error: unknown = new Error('503')) => ({
  error,
  receiveCount,
  nowMillis: NOW,
  invocationStartMillis: NOW,
});

describe('retryDelay', () => {
  it('doubles the step with each receive from the first delay, up to the cap, when the draw is at its top', () => {
    const delays = [1, 2, 3, 4, 5, 6].map(
      (n) => retryDelay(failure(n), backoff, () => 1)?.delaySeconds,
    );
    expect(delays).toEqual([5, 10, 20, 40, 60, 60]);
  });

  it('draws the delay with full jitter from the runtime random: a fraction of the step, rounded up', () => {
    expect(retryDelay(failure(3), backoff, () => 0.5)).toEqual({
      delaySeconds: 10,
      cause: RetryCause.Backoff,
    });
    expect(retryDelay(failure(3), backoff, () => 0.26)?.delaySeconds).toBe(6);
  });

  it('waits at least a second when the draw is 0', () => {
    expect(retryDelay(failure(1), backoff, () => 0)?.delaySeconds).toBe(1);
  });

  it.each([1, 1.5, -1, Number.NaN])(
    'keeps the draw within [1 s, the step] when a runtime random returns %s, outside [0, 1)',
    (draw) => {
      const delay = retryDelay(failure(3), backoff, () => draw)?.delaySeconds ?? 0;
      expect(delay).toBeGreaterThanOrEqual(1);
      expect(delay).toBeLessThanOrEqual(20);
    },
  );

  it('reads a missing receive count as the first receive, and a huge one as the cap', () => {
    expect(retryDelay(failure(Number.NaN), backoff, () => 1)?.delaySeconds).toBe(5);
    expect(retryDelay(failure(5_000), backoff, () => 1)?.delaySeconds).toBe(60);
  });

  it('leaves a retryable failure to the queue timeout when no backoff is configured', () => {
    expect(retryDelay(failure(2), { backoff: undefined, leaseHeldMarginSeconds: 2 }, () => 1)).toBe(
      undefined,
    );
  });

  it("times a lease-held copy by the holder's remaining lease plus the margin, with or without backoff", () => {
    const held = new LeaseHeldError(NOW + 7_300, 'holder');
    const expected = { delaySeconds: 10, cause: RetryCause.LeaseHeld };
    expect(retryDelay(failure(4, held), backoff, () => 1)).toEqual(expected);
    const leaseOnly = { backoff: undefined, leaseHeldMarginSeconds: 2 };
    expect(retryDelay(failure(4, held), leaseOnly, () => 1)).toEqual(expected);
  });

  it('gives a copy whose lease already ended only the margin', () => {
    const held = new LeaseHeldError(NOW - 5_000, 'holder');
    expect(retryDelay(failure(1, held), backoff, () => 1)?.delaySeconds).toBe(2);
  });

  it('holds a delay under the 12-hour limit counted from a receive a batching window before the invocation', () => {
    const cap = { firstDelaySeconds: 1, maxDelaySeconds: RETRY_LIMITS.maxDelaySeconds };
    const late = { ...failure(30), invocationStartMillis: NOW - 1_000_500 };
    const delay = retryDelay(late, { backoff: cap, leaseHeldMarginSeconds: 2 }, () => 1);
    expect(delay?.delaySeconds).toBe(43_200 - 1_001 - 300);
    const held = new LeaseHeldError(NOW + 50_000_000, 'holder');
    expect(retryDelay(failure(1, held), backoff, () => 1)?.delaySeconds).toBe(43_200 - 300);
  });

  it('holds the 12-hour limit when the clock steps back during the invocation', () => {
    const held = new LeaseHeldError(NOW + 50_000_000, 'holder');
    const steppedBack = { ...failure(1, held), invocationStartMillis: NOW + 60_000 };
    expect(retryDelay(steppedBack, backoff, () => 1)?.delaySeconds).toBe(43_200 - 300);
  });

  it('never gives a negative delay, however long the invocation ran', () => {
    const ancient = { ...failure(3), invocationStartMillis: NOW - 50_000_000 };
    expect(retryDelay(ancient, backoff, () => 1)?.delaySeconds).toBe(0);
  });
});
