import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/** A fresh copy of the module: its cleanups and its stop are module state. */
const freshShutdown = async () => {
  vi.resetModules();
  return import('../../../tools/cli/shutdown.js');
};

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('shutDown', () => {
  it('gives up a cleanup after 10 s by default, saying so through its abandon notice', async () => {
    const { onShutdown, shutDown } = await freshShutdown();
    const abandoned = vi.fn();
    onShutdown(() => new Promise<void>(() => {}), { onAbandon: abandoned });

    const stopped = shutDown();
    await vi.advanceTimersByTimeAsync(9_999);
    expect(abandoned).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    await stopped;

    expect(abandoned).toHaveBeenCalledOnce();
  });

  it('waits as long as a cleanup asked for (a stack destroy takes minutes), and a cleanup that finishes is not abandoned', async () => {
    const { onShutdown, shutDown } = await freshShutdown();
    const abandoned = vi.fn();
    let destroyed = false;
    onShutdown(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 5 * 60_000));
        destroyed = true;
      },
      { graceMillis: 30 * 60_000, onAbandon: abandoned },
    );
    onShutdown(() => {});

    const stopped = shutDown();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(destroyed).toBe(false);
    await vi.advanceTimersByTimeAsync(4 * 60_000);
    await stopped;

    expect(destroyed).toBe(true);
    expect(abandoned).not.toHaveBeenCalled();
  });
});
