import { spawn } from 'node:child_process';
import { onTestFinished } from 'vitest';

/** What a command printed, and how it ended. */
export interface CommandResult {
  readonly code: number | null;
  readonly output: string;
}

/**
 * Runs a command in its own process group and collects its output; never rejects on a non-zero
 * exit, so a test can assert on it. The group is killed after `timeoutMillis`, and, with
 * `killOnTestEnd`, when the test ends, so a run cut short leaves no workers or emulators.
 */
export function run(
  command: string,
  args: readonly string[],
  options: {
    cwd: string;
    env?: NodeJS.ProcessEnv;
    /** Whether the command inherits this process's environment under `env`; default true. */
    inheritEnv?: boolean;
    timeoutMillis?: number;
    killOnTestEnd?: boolean;
  },
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.inheritEnv === false ? { ...options.env } : { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const kill = () => {
      if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
    };
    const timer = setTimeout(kill, options.timeoutMillis ?? 300_000);
    if (options.killOnTestEnd) onTestFinished(kill);
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Throws with the command's output unless it exited 0. */
export async function runOrThrow(...args: Parameters<typeof run>): Promise<string> {
  const result = await run(...args);
  if (result.code !== 0) {
    throw new Error(`${args[0]} ${args[1].join(' ')} exited ${result.code}:\n${result.output}`);
  }
  return result.output;
}
