import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, inject, it } from 'vitest';

/** The background run's exit code and output, once it ended (it started with the test run). */
async function backgroundRun(): Promise<{ code: string; output: string }> {
  const { logPath, exitPath } = inject('simulationRun');
  while (!existsSync(exitPath)) await sleep(1_000);
  return { code: readFileSync(exitPath, 'utf8'), output: readFileSync(logPath, 'utf8') };
}

const { seeds } = inject('simulationRun');

describe('npm run sim', () => {
  it(`passes ${seeds.toLocaleString('en-US')} seeded worlds of the default mix and the regression corpus`, async () => {
    const result = await backgroundRun();

    const summary = result.output.match(
      /^([\d,]+) passed, ([\d,]+) failed — ([\d,]+) seeds\/s.*$/m,
    );
    console.log(`[simulation] ${summary?.[0] ?? result.output.slice(-2000)}`);
    expect(result.output).not.toMatch(/determinism guard/);
    expect(summary?.[2]).toBe('0');
    expect(Number(summary?.[1]?.replaceAll(',', ''))).toBeGreaterThanOrEqual(seeds);
    expect(result.code).toBe('0');
  });
});
