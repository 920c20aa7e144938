import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, inject, it } from 'vitest';
import { projectRoot } from '../../tools/emulator/paths.js';
import { run } from '../support/run.js';
import { SIMULATION_SEEDS } from './globalSetup.js';

/** The background run's exit code and output, once it ended (it started with the test run). */
async function backgroundRun(): Promise<{ code: string; output: string }> {
  const { logPath, exitPath } = inject('simulationRun');
  while (!existsSync(exitPath)) await sleep(1_000);
  return { code: readFileSync(exitPath, 'utf8'), output: readFileSync(logPath, 'utf8') };
}

function sim(args: readonly string[]) {
  return run('npm', ['run', '--silent', 'sim', '--', ...args], {
    cwd: projectRoot,
    timeoutMillis: 300_000,
    killOnTestEnd: true,
  });
}

describe('npm run sim', () => {
  it(`passes ${SIMULATION_SEEDS.toLocaleString('en-US')} seeded worlds of the default mix and the regression corpus`, async () => {
    const result = await backgroundRun();

    const summary = result.output.match(
      /^([\d,]+) passed, ([\d,]+) failed — ([\d,]+) seeds\/s.*$/m,
    );
    console.log(`[simulation] ${summary?.[0] ?? result.output.slice(-2000)}`);
    expect(result.output).not.toMatch(/determinism guard/);
    expect(summary?.[2]).toBe('0');
    expect(Number(summary?.[1]?.replaceAll(',', ''))).toBeGreaterThanOrEqual(SIMULATION_SEEDS);
    expect(result.code).toBe('0');
  });

  it('replays a seed in a new process with the same trace, and prints it', async () => {
    const [first, second] = await Promise.all([sim(['--seed', '4242']), sim(['--seed', '4242'])]);

    expect(first?.code).toBe(0);
    expect(first?.output).toMatch(/^\s+\d+\.\d{3}s lambda-1 /m);
    expect(first?.output).toMatch(/^trace hash: [0-9a-f]{8}$/m);
    expect(second?.output).toBe(first?.output);
  });
});
