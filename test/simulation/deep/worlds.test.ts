import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, inject, it } from 'vitest';
import { expectWorldsPassed } from '../support/simCommand.js';
import { SIMULATION_SEEDS } from './globalSetup.js';

/** The background run's exit code and output, once it ended (it started with the test run). */
async function backgroundRun(): Promise<{ code: string; output: string }> {
  const { logPath, exitPath } = inject('simulationRun');
  while (!existsSync(exitPath)) await sleep(1_000);
  return { code: readFileSync(exitPath, 'utf8'), output: readFileSync(logPath, 'utf8') };
}

describe('npm run sim', () => {
  it(`passes ${SIMULATION_SEEDS.toLocaleString('en-US')} seeded worlds of the default mix and the regression corpus`, async () => {
    expectWorldsPassed(await backgroundRun(), SIMULATION_SEEDS);
  });
});
