import { spawn } from 'node:child_process';
import { trackChild } from './shutdown.js';

/**
 * Runs a command to its end, its output shown (or collected with `capture`), in a process group
 * of its own that {@link trackChild} kills if this command is stopped. Resolves with the exit
 * code and what it printed on stdout when captured; never rejects on a non-zero exit.
 *
 * @example
 * ```ts
 * const { code } = await runChild('npm', ['pack', '--json'], { cwd: projectRoot, capture: true });
 * ```
 */
export function runChild(
  command: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly capture?: boolean },
): Promise<{ readonly code: number; readonly stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = trackChild(
      spawn(command, args, {
        cwd: options.cwd,
        stdio: ['ignore', options.capture ? 'pipe' : 'inherit', 'inherit'],
        detached: true,
      }),
      { processGroup: true },
    );
    let stdout = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), stdout }));
  });
}
