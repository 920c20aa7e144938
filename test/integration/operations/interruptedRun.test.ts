import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { projectRoot } from '../../../tools/emulator/paths.js';
import { sendLibraryDeadLetter } from '../../support/deadLetterScene.js';
import { payment, useLedger } from '../../support/ledgerFixture.js';
import { sqsInbox, standardAwsEnvironment } from '../../support/operatorCli.js';
import { takeMessages } from '../../support/receiveMessages.js';

const { aws, ledger } = useLedger();
const TTL_SECONDS = 1_987_200;
const DEAD_LETTERS = 6;

/** A DLQ of never-committed ledger payments, each one the redrive sends back. */
async function scene() {
  const [source, dlq] = await Promise.all([
    aws.createQueue(aws.uniqueName('interrupted-source')),
    aws.createQueue(aws.uniqueName('interrupted-dlq')),
  ]);
  for (let n = 0; n < DEAD_LETTERS; n++) {
    const event = payment();
    await sendLibraryDeadLetter(aws, dlq, {
      body: JSON.stringify(event),
      reason: 'TransientStoreError',
      consumer: 'ledger',
      source,
      key: event.eventId,
    });
  }
  const flags = [
    ...['ledger', '--table', ledger.tables.inbox, '--dlq', dlq.url],
    ...['--ttl-seconds', String(TTL_SECONDS), '--key-from', 'field:eventId'],
  ];
  return { source, dlq, flags };
}

/**
 * `sqs-inbox dlq redrive --apply --jsonl --rate 1` whose reader goes away after its first
 * line, as `… | head -1` does: its stdout is closed under it.
 */
function redriveReadOnce(flags: readonly string[]) {
  const args = ['dlq', 'redrive', ...flags, '--apply', '--jsonl', '--rate', '1'];
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', ...args], {
    cwd: projectRoot,
    env: {
      PATH: process.env.PATH,
      HOME: mkdtempSync(join(tmpdir(), 'sqs-inbox-cli-home-')),
      AWS_EC2_METADATA_DISABLED: 'true',
      ...standardAwsEnvironment(aws),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdout.once('data', () => child.stdout.destroy());
  return new Promise<{ code: number | null; stderr: string }>((resolve) => {
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('a dlq redrive whose output is closed under it', () => {
  it('stops after the message in hand with one line and releases its lock and what it held: the next run finishes the rest at once', async () => {
    const { source, dlq, flags } = await scene();

    const first = await redriveReadOnce(flags);

    expect(first.code).not.toBe(0);
    expect(first.stderr).toContain('the output was closed');
    expect(first.stderr).not.toMatch(/\n\s+at /);
    const second = await sqsInbox(
      ['dlq', 'redrive', ...flags, '--apply', '--json'],
      standardAwsEnvironment(aws),
    );
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toMatch(/another redrive/);
    expect(await takeMessages(aws.sqs, source.url, DEAD_LETTERS + 1, 3_000)).toHaveLength(
      DEAD_LETTERS,
    );
    expect(await aws.receive(dlq.url)).toHaveLength(0);
  }, 120_000);
});
