import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, onTestFinished } from 'vitest';
import { operationRecordPk } from '../../../src/aws/OperationRecords.js';
import { projectRoot } from '../../../tools/emulator/paths.js';
import { sendLibraryDeadLetter } from '../../support/deadLetterScene.js';
import { payment, useLedger } from '../../support/ledgerFixture.js';
import { sqsInbox, standardAwsEnvironment } from '../../support/operatorCli.js';
import { takeMessages } from '../../support/receiveMessages.js';

const { aws, ledger } = useLedger();
const TTL_SECONDS = 1_987_200;
const DEAD_LETTERS = 6;

/**
 * A DLQ of never-committed ledger payments, each one the redrive sends back; with `keptFirst`,
 * first a payment that failed permanently, which the redrive keeps.
 */
async function scene(keptFirst = false) {
  const [source, dlq] = await Promise.all([
    aws.createQueue(aws.uniqueName('interrupted-source')),
    aws.createQueue(aws.uniqueName('interrupted-dlq')),
  ]);
  if (keptFirst) {
    const event = payment();
    await sendLibraryDeadLetter(aws, dlq, {
      body: JSON.stringify(event),
      reason: 'SchemaValidationError',
      consumer: 'ledger',
      source,
      key: event.eventId,
    });
  }
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
 * `sqs-inbox dlq redrive --apply --jsonl --rate 1` as a child process, `interrupt`ed after its
 * first stdout line: its stdout closed under it (as `… | head -1` does), or a signal sent.
 */
function redriveInterrupted(flags: readonly string[], interrupt: 'close-stdout' | NodeJS.Signals) {
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
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdout.on('data', (chunk) => {
    const first = stdout === '';
    stdout += chunk;
    if (!first) return;
    if (interrupt === 'close-stdout') child.stdout.destroy();
    else child.kill(interrupt);
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function recordOf(operationId: string) {
  const { Item } = await aws.documentClient.send(
    new GetCommand({
      TableName: ledger.tables.inbox,
      Key: { pk: operationRecordPk(operationId) },
      ConsistentRead: true,
    }),
  );
  return Item;
}

describe('a dlq redrive whose output is closed under it', () => {
  it('stops after the message in hand with one line and releases its lock and what it held: the next run finishes the rest at once', async () => {
    const { source, dlq, flags } = await scene();

    const first = await redriveInterrupted(flags, 'close-stdout');

    expect(first.code).not.toBe(0);
    expect(first.stderr).toContain('the output was closed');
    expect(first.stderr).not.toMatch(/\n\s+at /);
    const second = await sqsInbox(
      ['dlq', 'redrive', ...flags, '--apply', '--json'],
      standardAwsEnvironment(aws),
    );
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toMatch(/another run of the redrive holds the lock/);
    expect(await takeMessages(aws.sqs, source.url, DEAD_LETTERS + 1, 3_000)).toHaveLength(
      DEAD_LETTERS,
    );
    expect(await aws.receive(dlq.url)).toHaveLength(0);
  }, 120_000);
});

describe('a dlq redrive stopped by SIGINT', () => {
  it('stops after the message in hand, records the run stopped by the signal, exits 130, and releases its lock: the next run sends the rest at once', async () => {
    // The kept message first: a run stopped with a message kept would otherwise exit 1.
    const { source, flags } = await scene(true);

    const first = await redriveInterrupted(flags, 'SIGINT');

    expect(first.code, first.stderr).toBe(130);
    const lines = first.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const summary = lines.at(-1);
    expect(summary).toMatchObject({ stoppedBy: 'signal', kept: 1 });
    expect(Number(summary?.sent)).toBeLessThan(DEAD_LETTERS);
    expect(await recordOf(String(summary?.operationId))).toMatchObject({
      outcome: 'stopped',
      stoppedBy: 'signal',
      counts: { sent: summary?.sent },
    });
    const startedMillis = Date.now();
    const second = await sqsInbox(
      ['dlq', 'redrive', ...flags, '--apply', '--json'],
      standardAwsEnvironment(aws),
    );
    expect(second.code, second.stderr).toBe(1);
    expect(second.stderr).not.toMatch(/another run of the redrive holds the lock/);
    expect(JSON.parse(second.stdout)).toMatchObject({
      sent: DEAD_LETTERS - Number(summary?.sent),
      kept: 1,
    });
    // At once: nothing the first run held stayed hidden, so no wait for a hold to lapse.
    expect(Date.now() - startedMillis).toBeLessThan(60_000);
    expect(await takeMessages(aws.sqs, source.url, DEAD_LETTERS + 1, 3_000)).toHaveLength(
      DEAD_LETTERS,
    );
  }, 120_000);
});
