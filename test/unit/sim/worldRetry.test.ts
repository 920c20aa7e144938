import { describe, expect, it } from 'vitest';
import { RETRY_LIMITS } from '../../../src/constants/index.js';
import { retryFromEnvironment } from '../../../src/environment/retryFromEnvironment.js';
import { Prng } from '../../../tools/sim/kernel/Prng.js';
import { drawWorldConfig, type WorldConfig } from '../../../tools/sim/world/WorldConfig.js';
import { drawRetry, retryEnvironment } from '../../../tools/sim/world/worldRetry.js';

const SEEDS = Array.from({ length: 500 }, (_, n) => n + 1);

describe('drawRetry', () => {
  it('draws no retry, the bare group and backoffs, each backoff of seconds under the visibility timeout and half the TTL over the receives', () => {
    const drawn = SEEDS.map((seed) => drawWorldConfig(new Prng(seed).derive('config')));
    const backoffs = drawn.flatMap((config) => (config.retry?.backoff ? [config] : []));

    expect(drawn.some((config) => config.retry === undefined)).toBe(true);
    expect(drawn.some((config) => config.retry && !config.retry.backoff)).toBe(true);
    expect(backoffs.length).toBeGreaterThan(100);
    for (const config of backoffs) {
      const { firstDelaySeconds, maxDelaySeconds } = config.retry?.backoff ?? {};
      expect(firstDelaySeconds).toBeGreaterThanOrEqual(1);
      expect(firstDelaySeconds).toBeLessThanOrEqual(3);
      expect(maxDelaySeconds).toBeGreaterThanOrEqual(firstDelaySeconds ?? 0);
      expect(maxDelaySeconds).toBeLessThanOrEqual(
        Math.max(
          firstDelaySeconds ?? 0,
          Math.min(
            config.visibilityTimeoutMillis / 1000,
            config.ttlSeconds / (2 * config.maxReceiveCount),
          ),
        ),
      );
    }
  });

  it('keeps a backoff within a short TTL: four receives of 60 s leave at most 7 s a delay', () => {
    const drawn = { visibilityTimeoutMillis: 60_000, maxReceiveCount: 4, ttlSeconds: 60 };
    const caps = SEEDS.map((seed) => drawRetry(new Prng(seed), drawn).retry?.backoff);

    expect(Math.max(...caps.map((backoff) => backoff?.maxDelaySeconds ?? 0))).toBe(7);
  });
});

describe('retryEnvironment', () => {
  it('gives the library back the world’s retry group through the INBOX_RETRY_* variables, the bare group with the default margin', () => {
    const backoff = { firstDelaySeconds: 2, maxDelaySeconds: 8 };
    const read = (retry: WorldConfig['retry']) =>
      retryFromEnvironment(retryEnvironment(retry), undefined).retry;

    expect(read(undefined)).toBeUndefined();
    expect(read({})).toEqual({
      leaseHeldMarginSeconds: RETRY_LIMITS.defaultLeaseHeldMarginSeconds,
    });
    expect(read({ backoff })).toEqual({ backoff });
    expect(read({ backoff, leaseHeldMarginSeconds: 0 })).toEqual({
      backoff,
      leaseHeldMarginSeconds: 0,
    });
  });
});
