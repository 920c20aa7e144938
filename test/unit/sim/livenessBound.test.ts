import { describe, expect, it } from 'vitest';
import { Prng } from '../../../tools/sim/kernel/Prng.js';
import { livenessBoundMillis } from '../../../tools/sim/world/livenessBound.js';
import { drawWorldConfig, type WorldConfig } from '../../../tools/sim/world/WorldConfig.js';

describe('livenessBoundMillis', () => {
  it('grows by maxReceiveCount × maxDelaySeconds for a message with a backoff', () => {
    const base: WorldConfig = {
      ...drawWorldConfig(new Prng(3)),
      fifo: false,
      redrives: 0,
      maxReceiveCount: 4,
    };
    const { outbox: _, retry: __, ...config } = base;
    const backoff = { firstDelaySeconds: 1, maxDelaySeconds: 9 };

    expect(
      livenessBoundMillis({ ...config, retry: { backoff } }) - livenessBoundMillis(config),
    ).toBe(4 * 9_000);
    expect(livenessBoundMillis({ ...config, retry: {} })).toBe(livenessBoundMillis(config));
  });
});
