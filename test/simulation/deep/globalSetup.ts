import { spawn } from 'node:child_process';
import { mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { projectRoot } from '../../../tools/emulator/paths.js';

/**
 * Seeds of the default mix the deep tier runs, with the regression corpus: as many as fit beside
 * the conformance and end-to-end tiers, so that CI stays within its 30 minutes
 * (`npm run sim -- --seeds 100000 --corpus` runs more on demand).
 */
export const SIMULATION_SEEDS = 50_000;

/** Where the background simulation writes its output, and the file its exit code lands in. */
export interface SimulationRun {
  readonly logPath: string;
  readonly exitPath: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    simulationRun: SimulationRun;
  }
}

/**
 * Starts `npm run sim -- --seeds <SIMULATION_SEEDS> --corpus` when the test run starts, with its workers at
 * the lowest CPU priority: it uses the CPU the emulator tests leave idle, and the
 * `simulation-deep` project (ordered last) only waits for its answer. Stopped at the end of the run if still going.
 */
export default function setup(project: TestProject): () => void {
  const logs = join(projectRoot, '.cache', 'logs');
  mkdirSync(logs, { recursive: true });
  const logPath = join(logs, `simulation-${process.pid}.log`);
  const exitPath = `${logPath}.exit`;
  // A file left by an earlier run under the same process id would answer for this one.
  rmSync(exitPath, { force: true });
  const output = openSync(logPath, 'w');
  const child = spawn(
    'npm',
    [
      'run',
      '--silent',
      'sim',
      '--',
      '--seeds',
      String(SIMULATION_SEEDS),
      '--corpus',
      '--nice',
      '19',
    ],
    { cwd: projectRoot, stdio: ['ignore', output, output] },
  );
  child.once('exit', (code, signal) => writeFileSync(exitPath, String(code ?? signal)));
  // A command that cannot start answers at once, instead of leaving the test to its timeout.
  child.once('error', (error) => writeFileSync(exitPath, `spawn failed: ${error.message}`));
  project.provide('simulationRun', { logPath, exitPath });
  return () => {
    if (child.exitCode === null) child.kill('SIGTERM');
  };
}
