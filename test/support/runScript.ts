import { projectRoot } from '../../tools/emulator/paths.js';
import { type CommandResult, run } from './run.js';

/**
 * Runs a project script (`npx tsx <script> <args>`) as a user would, on emulators of its own
 * (`AWS_ENDPOINT_URL` cleared), and collects its output and exit code. Its process group is
 * killed when the test ends, so a timed-out run leaves no workers or emulators.
 */
export function runScript(script: string, args: readonly string[]): Promise<CommandResult> {
  return run('npx', ['tsx', script, ...args], {
    cwd: projectRoot,
    env: { AWS_ENDPOINT_URL: '' },
    timeoutMillis: 1_800_000,
    killOnTestEnd: true,
  });
}
