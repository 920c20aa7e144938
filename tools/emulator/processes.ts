import { type ChildProcess, execFile, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { CommandError } from '../cli/runCommand.js';
import { trackChild } from '../cli/shutdown.js';

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

/**
 * Checks that a program this machine must provide runs (`command ...probeArgs` exits 0), or
 * throws a {@link CommandError} whose one line says what to install.
 *
 * @example
 * ```ts
 * requireProgram('java', ['-version'], 'Java 17+ for DynamoDB Local: apt-get install openjdk-17-jre-headless, or set JAVA');
 * ```
 */
export function requireProgram(command: string, probeArgs: readonly string[], need: string): void {
  const probe = spawnSync(command, probeArgs, { stdio: 'ignore' });
  if (probe.error !== undefined || probe.status !== 0) {
    const found = probe.error
      ? `${command} was not found`
      : `${command} ${probeArgs.join(' ')} failed`;
    throw new CommandError(`${found}. Install ${need}.`);
  }
}

/**
 * Kills the child if this process exits without stopping it (a crashed test run), and when a
 * command-line entry stops on a signal (see `tools/cli/shutdown.ts`).
 */
export function killOnExit(child: ChildProcess): void {
  trackChild(child);
  const kill = () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  process.once('exit', kill);
  child.once('exit', () => process.removeListener('exit', kill));
}
