import { expect } from 'vitest';
import { projectRoot } from '../../../tools/emulator/paths.js';
import { type CommandResult, run } from '../../support/run.js';

/**
 * Runs `npm run sim -- <args>` as a contributor would; its process group is killed when the test
 * ends. The bound is generous (a loaded machine), not a speed target.
 */
export function sim(args: readonly string[]): Promise<CommandResult> {
  return run('npm', ['run', '--silent', 'sim', '--', ...args], {
    cwd: projectRoot,
    timeoutMillis: 1_200_000,
    killOnTestEnd: true,
  });
}

/**
 * Asserts that a run of `npm run sim -- --seeds <seeds> --corpus` passed every world, with no
 * world that traced differently when run again, and prints its summary line.
 */
export function expectWorldsPassed(
  result: { readonly code: number | string | null; readonly output: string },
  seeds: number,
): void {
  const summary = result.output.match(/^([\d,]+) passed, ([\d,]+) failed — ([\d,]+) seeds\/s.*$/m);
  console.log(`[simulation] ${summary?.[0] ?? result.output.slice(-2000)}`);
  expect(result.output).not.toMatch(/determinism guard/);
  expect(summary?.[2]).toBe('0');
  expect(Number(summary?.[1]?.replaceAll(',', ''))).toBeGreaterThanOrEqual(seeds);
  expect(String(result.code)).toBe('0');
}
