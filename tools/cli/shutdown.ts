import type { ChildProcess } from 'node:child_process';

/** Something to undo when the command stops: stop an emulator, a poller, a worker. */
export type Cleanup = () => Promise<void> | void;

/** How long a cleanup may take, and what to say if it is given up. */
export interface CleanupOptions {
  /**
   * How long the stop waits for this cleanup; the stop waits for the longest of the pending
   * ones. Default 10 s; a CloudFormation stack's deletion takes minutes.
   */
  readonly graceMillis?: number;
  /**
   * Called when the cleanup is given up while it runs: a second signal, or its grace over.
   * Says what is left to undo by hand (e.g. the `cdk destroy` command).
   */
  readonly onAbandon?: () => void;
}

const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
const CLEANUP_GRACE_MILLIS = 10_000;
const SAME_SIGNAL_MILLIS = 1_000;
let firstSignalAt = 0;
const cleanups = new Map<Cleanup, CleanupOptions>();
/** The abandon notices of the cleanups running now. */
const running = new Set<() => void>();
/** Each tracked child, and whether it leads its own process group (spawned `detached`). */
const children = new Map<ChildProcess, boolean>();
let stopping: Promise<void> | undefined;

/**
 * Registers `cleanup` to run when the command stops on a signal (see {@link handleSignals}) or
 * through {@link shutDown}; returns a function that unregisters it. Cleanups run in reverse
 * order of registration, all of them even if one fails. `options` give a cleanup a longer
 * grace than 10 s and a notice for when it is given up.
 *
 * @example
 * ```ts
 * const emulator = await startEmulator(['sqs']);
 * onShutdown(() => emulator.stop());
 * onShutdown(() => destroyStack(), { graceMillis: 30 * 60_000, onAbandon: printManualDestroy });
 * ```
 */
export function onShutdown(cleanup: Cleanup, options: CleanupOptions = {}): () => void {
  cleanups.set(cleanup, options);
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
 * Makes SIGINT, SIGTERM and SIGHUP stop the command cleanly: run the cleanups (at most 10 s,
 * or the longest grace a pending cleanup asked for), kill the tracked children, exit with
 * 128 + the signal's number. A second signal while stopping (not within a second of the first:
 * that is the same Ctrl-C, delivered by the terminal and by npm) gives up the running cleanups
 * (each says what is left, {@link CleanupOptions.onAbandon}) and kills the children at once.
 * Call it first thing in every long-running command.
 *
 * @example
 * ```ts
 * handleSignals();
 * ```
 */
export function handleSignals(): void {
  for (const [signal, code] of Object.entries(SIGNAL_EXIT_CODES)) {
    process.on(signal, () => {
      // One Ctrl-C under `npm run` arrives twice: from the terminal to the whole foreground
      // group, and forwarded by npm. A second signal within the second is that same one.
      if (stopping && Date.now() - firstSignalAt < SAME_SIGNAL_MILLIS) return;
      firstSignalAt ||= Date.now();
      if (stopping) {
        abandonRunning();
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
    const registered = [...cleanups].reverse();
    const pending = registered.map(([cleanup, options]) => runCleanup(cleanup, options));
    const graceMillis = Math.max(
      CLEANUP_GRACE_MILLIS,
      ...registered.map(([, options]) => options.graceMillis ?? 0),
    );
    const grace = new Promise((resolve) => setTimeout(resolve, graceMillis).unref());
    await Promise.race([Promise.allSettled(pending), grace]);
    abandonRunning();
    killChildren('SIGKILL');
  })();
  return stopping;
}

async function runCleanup(cleanup: Cleanup, { onAbandon }: CleanupOptions): Promise<void> {
  if (onAbandon) running.add(onAbandon);
  try {
    await cleanup();
  } finally {
    if (onAbandon) running.delete(onAbandon);
  }
}

function abandonRunning(): void {
  for (const onAbandon of [...running]) {
    running.delete(onAbandon);
    onAbandon();
  }
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
