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

describe('handleSignals', () => {
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'exit'] as const;
  type Listener = (...args: unknown[]) => void;
  let before: Map<string, Listener[]>;
  beforeEach(() => {
    before = new Map(
      signals.map((name) => [name, process.listeners(name as 'SIGINT') as Listener[]]),
    );
    vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
  });
  afterEach(() => {
    for (const name of signals) {
      process.removeAllListeners(name);
      for (const listener of before.get(name) ?? []) process.on(name as 'SIGINT', listener);
    }
    vi.restoreAllMocks();
  });

  it('takes a second SIGINT within a second for the same Ctrl-C (terminal and npm both deliver it), and one after that as giving up the running cleanups', async () => {
    const { handleSignals, onShutdown } = await freshShutdown();
    const abandoned = vi.fn();
    onShutdown(() => new Promise<void>(() => {}), {
      graceMillis: 30 * 60_000,
      onAbandon: abandoned,
    });
    handleSignals();

    process.emit('SIGINT');
    await vi.advanceTimersByTimeAsync(200);
    process.emit('SIGINT');
    expect(abandoned).not.toHaveBeenCalled();
    expect(process.exit).not.toHaveBeenCalled();

    await vi.advanceTimersByTimeAsync(5_000);
    process.emit('SIGINT');
    expect(abandoned).toHaveBeenCalledOnce();
    expect(process.exit).toHaveBeenCalledWith(130);
  });
});
