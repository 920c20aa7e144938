import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { basename } from 'node:path';
import { CommandError } from '../cli/runCommand.js';
import { trackChild } from '../cli/shutdown.js';
import { cdkCommandOf, cdkEnvironmentOf, type VerifyTarget } from './VerifyTarget.js';

const STOP_WAIT_MILLIS = 30_000;

/**
 * A CDK command ended by {@link CdkRunner.stop} (a Ctrl-C): what the user asked for, so the
 * command prints it as one line, not as a failure with a stack trace.
 *
 * @example
 * ```ts
 * await cdk.run(['deploy', stackName]).catch((error) => { if (!(error instanceof CdkStoppedError)) throw error; });
 * ```
 */
export class CdkStoppedError extends CommandError {
  override readonly name = 'CdkStoppedError';
}

/**
 * Runs CDK commands for a target one at a time, each in its own process group (so a terminal's
 * Ctrl-C does not reach it: the command decides when it stops), and can stop the one running.
 *
 * @example
 * ```ts
 * const cdk = new CdkRunner({ kind: 'emulator', endpoint }, projectRoot);
 * await cdk.run(['deploy', 'SqsInboxReference', '--require-approval', 'never']);
 * ```
 */
export class CdkRunner {
  readonly #target: VerifyTarget;
  readonly #projectDir: string;
  #child: ChildProcess | undefined;
  #stopping: ChildProcess | undefined;
  #stopped = false;

  constructor(target: VerifyTarget, projectDir: string) {
    this.#target = target;
    this.#projectDir = projectDir;
  }

  /**
   * Runs `cdk <args>` (cdklocal on an emulator); rejects when it exits other than 0. Once
   * {@link CdkRunner.stop} was called, only a `destroy` runs: anything else rejects at once (a
   * deploy must not start after a Ctrl-C that came as the previous command ended).
   */
  run(args: readonly string[]): Promise<void> {
    const command = cdkCommandOf(this.#target);
    if (this.#stopped && args[0] !== 'destroy') {
      return Promise.reject(
        new CdkStoppedError(`${basename(command)} ${args[0]} not started: stopping`),
      );
    }
    const child = spawn(command, args, {
      cwd: this.#projectDir,
      env: cdkEnvironmentOf(this.#target),
      stdio: ['ignore', 'inherit', 'inherit'],
      detached: true,
    });
    this.#child = trackChild(child, { processGroup: true });
    return new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', (code, signal) => {
        if (this.#child === child) this.#child = undefined;
        if (code === 0) resolve();
        else if (this.#stopping === child)
          reject(new CdkStoppedError(`${basename(command)} ${args[0]} stopped`));
        else reject(new Error(`${command} ${args[0]} exited with ${code ?? signal}`));
      });
    });
  }

  /**
   * Stops the running command, if any: SIGINT to its group (cdk stops its own work), SIGKILL
   * after 30 s; no command but a destroy starts after. Resolves once it exited: `true` if a
   * command was running.
   */
  async stop(): Promise<boolean> {
    this.#stopped = true;
    const child = this.#child;
    if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return false;
    this.#stopping = child;
    const exited = once(child, 'exit');
    signalGroup(child.pid, 'SIGINT');
    const timer = setTimeout(() => signalGroup(child.pid ?? 0, 'SIGKILL'), STOP_WAIT_MILLIS);
    await exited;
    clearTimeout(timer);
    return true;
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}
