import { spawn } from 'node:child_process';
import { describe, expect, it, onTestFailed } from 'vitest';
import { projectRoot } from '../harness/paths.js';

/** Runs `npm run chaos -- <args>` as a user would, on an emulator of its own. */
function chaos(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['tsx', 'scripts/chaos.ts', ...args], {
      cwd: projectRoot,
      env: { ...process.env, AWS_ENDPOINT_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
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

/** The first figure of the report row that starts with `label`. */
const count = (output: string, label: string) =>
  Number(new RegExp(`^\\s+${label}\\s+(\\d+)`, 'm').exec(output)?.[1]);

describe('npm run chaos (bounded: 100 crashes)', () => {
  it('kills consumers at all five crash points with AWS faults injected, and every invariant holds', async () => {
    const { code, output } = await chaos(['--crashes', '100', '--seed', '11']);
    onTestFailed(() => console.log(output));

    const crashes = [
      '1 before the transaction is sent',
      '2 after commit, before the batch response',
      '3 mid-batch, some records committed',
      '4 slow handler past its visibility timeout',
      '5 two consumers holding copies at once',
    ].map((label) => count(output, label));
    expect(crashes.every((n) => n >= 1)).toBe(true);
    expect(crashes.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(100);
    for (const kind of ['TransactionConflict', 'throttling', '5xx', 'timeout', 'lost response'])
      expect(count(output, kind)).toBeGreaterThan(0);
    const duplicateShare = Number(/duplicate copies: ([\d.]+) % of events/.exec(output)?.[1]);
    expect(duplicateShare).toBeGreaterThanOrEqual(20);
    expect(count(output, 'duplicates dropped by the inbox')).toBeGreaterThan(0);
    expect(output).not.toContain('FAIL');
    for (const invariant of [
      'every worker exit was an injected SIGKILL',
      'no SKU below zero at any moment sampled during the run',
      'all messages settled (queues drained)',
      'each balance = sum of its distinct payments',
      'exactly one ledger entry per payment',
      'no SKU below zero',
      'reserved + available = seeded stock',
      'each order reserved or rejected exactly once',
      'every malformed message in a DLQ with its reason',
      'nothing lost: every event sent is committed (inbox entry) or in a DLQ with its reason',
    ])
      expect(output).toContain(`PASS  ${invariant}`);
    expect(output).toContain('all invariants hold');
    expect(code).toBe(0);
  }, 600_000);

  it('rejects a bad option with a message naming it', async () => {
    const { code, output } = await chaos(['--fault-rate', '0.9']);

    expect(output).toContain('--fault-rate must be a number in [0, 0.5] (given 0.9)');
    expect(code).not.toBe(0);
  });
});
