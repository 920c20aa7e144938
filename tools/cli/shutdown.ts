import type { ChildProcess } from 'node:child_process';

/** Something to undo when the command stops: stop an emulator, a poller, a worker. */
export type Cleanup = () => Promise<void> | void;

const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
const CLEANUP_GRACE_MILLIS = 10_000;
const cleanups = new Set<Cleanup>();
/** Each tracked child, and whether it leads its own process group (spawned `detached`). */
const children = new Map<ChildProcess, boolean>();
let stopping: Promise<void> | undefined;

/**
 * Registers `cleanup` to run when the command stops on a signal (see {@link handleSignals}) or
 * through {@link shutDown}; returns a function that unregisters it. Cleanups run in reverse
 * order of registration, all of them even if one fails.
 *
 * @example
 * ```ts
 * const emulator = await startEmulator(['sqs']);
 * onShutdown(() => emulator.stop());
 * ```
 */
export function onShutdown(cleanup: Cleanup): () => void {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

/**
 * Tracks a child process so that no way of stopping this command leaves it running: a signal
 * kills it after the cleanups, and so does a plain `process.exit` or a crash. A child spawned
 * `detached` leads its own process group: say so with `processGroup`, and the whole group is
 * killed. Returns the child.
 *
 * @example
 * ```ts
 * const worker = trackChild(spawn(process.execPath, [path], { detached: true }), { processGroup: true });
 * ```
 */
export function trackChild<T extends ChildProcess>(
  child: T,
  options: { processGroup?: boolean } = {},
): T {
  children.set(child, options.processGroup ?? false);
  child.once('exit', () => children.delete(child));
  return child;
}

/**
 * Makes SIGINT, SIGTERM and SIGHUP stop the command cleanly: run the cleanups (at most 10 s),
 * kill the tracked children, exit with 128 + the signal's number. A second signal while
 * stopping kills the children at once. Call it first thing in every long-running command.
 *
 * @example
 * ```ts
 * handleSignals();
 * ```
 */
export function handleSignals(): void {
  for (const [signal, code] of Object.entries(SIGNAL_EXIT_CODES)) {
    process.on(signal, () => {
      if (stopping) {
        killChildren('SIGKILL');
        process.exit(code);
      }
      void shutDown().finally(() => process.exit(code));
    });
  }
  process.once('exit', () => killChildren('SIGKILL'));
}

/**
 * Runs every registered cleanup once (later calls wait for the first), then kills the tracked
 * children that are still running.
 *
 * @example
 * ```ts
 * await shutDown();
 * process.exit(0);
 * ```
 */
export function shutDown(): Promise<void> {
  stopping ??= (async () => {
    const pending = [...cleanups].reverse().map(async (cleanup) => cleanup());
    const grace = new Promise((resolve) => setTimeout(resolve, CLEANUP_GRACE_MILLIS).unref());
    await Promise.race([Promise.allSettled(pending), grace]);
    killChildren('SIGKILL');
  })();
  return stopping;
}

function killChildren(signal: NodeJS.Signals): void {
  for (const [child, processGroup] of children) {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) continue;
    try {
      process.kill(processGroup ? -child.pid : child.pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/**
 * Keeps the command running until a signal stops it (through {@link handleSignals}).
 *
 * @example
 * ```ts
 * console.log('serving; Ctrl-C to stop');
 * await untilStopped();
 * ```
 */
export function untilStopped(): Promise<never> {
  setInterval(() => {}, 2 ** 30);
  return new Promise<never>(() => {});
}
