import { spawn } from 'node:child_process';
import { onTestFinished } from 'vitest';
import { projectRoot } from '../../tools/emulator/paths.js';

/**
 * Runs a project script (`npx tsx <script> <args>`) as a user would, on emulators of its own
 * (`AWS_ENDPOINT_URL` cleared), and collects its output and exit code. It runs in a process
 * group that is killed when the test ends, so a timed-out run leaves no workers or emulators.
 */
export function runScript(
  script: string,
  args: readonly string[],
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['tsx', script, ...args], {
      cwd: projectRoot,
      env: { ...process.env, AWS_ENDPOINT_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    onTestFinished(() => {
      if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}
