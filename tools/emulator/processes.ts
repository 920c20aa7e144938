import { type ChildProcess, execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

export const execFileAsync = promisify(execFile);

/** A free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/** Polls `probe` until it resolves true, or throws after `timeoutMillis`. */
export async function waitUntil(
  what: string,
  probe: () => Promise<boolean>,
  timeoutMillis: number,
  child?: ChildProcess,
): Promise<void> {
  const deadline = Date.now() + timeoutMillis;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null)
      throw new Error(`${what} exited with code ${child.exitCode} while starting`);
    if (await probe().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`${what} did not become ready within ${timeoutMillis} ms`);
}

/** Stops a child process: SIGTERM, then SIGKILL if it is still running after `graceMillis`. */
export async function stopProcess(child: ChildProcess, graceMillis = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timedOut = await Promise.race([
    exited.then(() => false),
    sleep(graceMillis).then(() => true),
  ]);
  if (timedOut) {
    child.kill('SIGKILL');
    await exited;
  }
}

/** Kills the child if this process exits without stopping it (a crashed test run). */
export function killOnExit(child: ChildProcess): void {
  const kill = () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  process.once('exit', kill);
  child.once('exit', () => process.removeListener('exit', kill));
}
