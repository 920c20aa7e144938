import { type ChildProcess, fork } from 'node:child_process';
import { rmSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { basename, dirname } from 'node:path';
import { trackChild } from '../../cli/shutdown.js';
import type { WorkerReply, WorkerRequest } from './workerProtocol.js';

/**
 * Processes that run worlds from the bundled simulation worker, one request at a time each.
 * They are tracked, so a signal that stops the command stops them too. The pool owns its bundle:
 * `stop()` removes the bundle's folder when `bundleForNode` made it (a fresh temporary one, several MB).
 *
 * @example
 * ```ts
 * const pool = await WorkerPool.start(workerPath, 2);
 * const reply = await pool.run({ type: 'run', seeds: [1, 2], hashesOf: [], keepTrace: false });
 * pool.stop();
 * ```
 */
export class WorkerPool {
  readonly #idle: ChildProcess[];
  readonly #waiting: Array<(worker: ChildProcess) => void> = [];
  readonly #all: ChildProcess[];
  readonly #workerPath: string;

  private constructor(workers: ChildProcess[], workerPath: string) {
    this.#all = workers;
    this.#idle = [...workers];
    this.#workerPath = workerPath;
  }

  /**
   * Forks `size` workers and waits until each is ready. A `niceness` above 0 lowers their CPU
   * priority, so that they use only what other work on the machine leaves idle.
   */
  static async start(workerPath: string, size: number, niceness = 0): Promise<WorkerPool> {
    const workers = Array.from({ length: size }, () =>
      trackChild(
        fork(workerPath, [], {
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
          serialization: 'advanced',
          // The bundle is plain JavaScript: no TypeScript loader (tsx) in the workers.
          execArgv: [],
        }),
      ),
    );
    if (niceness > 0) for (const worker of workers) lowerPriority(worker, niceness);
    await Promise.all(workers.map((worker) => nextReply(worker)));
    return new WorkerPool(workers, workerPath);
  }

  get size(): number {
    return this.#all.length;
  }

  /** Runs a request on the next free worker. */
  async run(request: WorkerRequest): Promise<WorkerReply> {
    const worker =
      this.#idle.pop() ??
      (await new Promise<ChildProcess>((resolve) => this.#waiting.push(resolve)));
    try {
      const reply = nextReply(worker);
      worker.send(request);
      return await reply;
    } finally {
      const waiter = this.#waiting.shift();
      if (waiter) waiter(worker);
      else this.#idle.push(worker);
    }
  }

  /** Stops the workers and removes the bundle's folder. */
  stop(): void {
    for (const worker of this.#all)
      if (worker.connected) worker.send({ type: 'stop' } satisfies WorkerRequest);
    // The workers loaded the bundle when they started: removing it does not disturb them.
    const folder = dirname(this.#workerPath);
    if (isBundleFolder(folder)) rmSync(folder, { recursive: true, force: true });
  }
}

function nextReply(worker: ChildProcess): Promise<WorkerReply> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) =>
      reject(new Error(`a simulation worker exited (code ${code})`));
    worker.once('exit', onExit);
    worker.once('message', (reply: WorkerReply) => {
      worker.off('exit', onExit);
      resolve(reply);
    });
  });
}

function lowerPriority(worker: ChildProcess, niceness: number): void {
  try {
    if (worker.pid !== undefined) setPriority(worker.pid, niceness);
  } catch {
    // Not allowed here (some containers): the workers then run at normal priority.
  }
}

/** A folder `bundleForNode` made (`<tmpdir>/sqs-inbox-<name>-…`): the only kind a pool removes. */
function isBundleFolder(folder: string): boolean {
  return dirname(folder) === tmpdir() && basename(folder).startsWith('sqs-inbox-');
}
