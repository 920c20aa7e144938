import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { OperationLock, operationLockPk } from '../../../src/aws/OperationLock.js';
import { SqsRedriveQueue } from '../../../src/aws/SqsRedriveQueue.js';
import { keyHash } from '../../../src/core/loggedKey.js';
import { redriveDeadLetters } from '../../../src/operations/redriveDeadLetters.js';
import { deadLetterPayments, deadLetterQueues } from '../../support/deadLetterPayments.js';
import { useLedger } from '../../support/ledgerFixture.js';
import {
  auditRecordOf,
  LEDGER_TTL_SECONDS,
  ledgerReading,
  ledgerRedrive,
} from '../../support/ledgerRedrive.js';
import { sqsInbox, standardAwsEnvironment } from '../../support/operatorCli.js';
import { receiveMessages } from '../../support/receiveMessages.js';

const { aws, ledger } = useLedger();
/** In every body: no output or record may carry it. */
const MARKER = `marker-${randomUUID()}`;

/** A DLQ of `count` library dead letters that never committed, and the queue they came from. */
async function deadLetters(count: number) {
  const { dlq, source } = await deadLetterQueues(aws, 'audit');
  const letters = await deadLetterPayments(aws, { dlq, source }, count, {
    body: (event) => JSON.stringify({ ...event, note: MARKER }),
    originalMessageId: (n) => `original-${n}`,
  });
  const keys = letters.map(({ event }) => event.eventId);
  const redrive = ledgerRedrive(ledger, dlq, { queue: source });
  return { dlq, source, keys, redrive };
}

const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('the audit of an applied redrive', () => {
  it('records the caller, the arguments, the counts and a line per message, in the inbox table and as JSON lines, without bodies or keys', async () => {
    const s = await deadLetters(2);
    const env = { ...standardAwsEnvironment(aws), AWS_ENDPOINT_URL_STS: aws.endpoints.sqs };
    const run = await sqsInbox([...s.redrive, '--apply', '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    const lines = jsonLines(run.stderr);
    const started = lines.find((line) => line.outcome === 'running');
    const ended = lines.find((line) => line.record === 'operation' && line.outcome !== 'running');
    const messages = lines.filter((line) => line.record === 'message');
    expect(started?.caller).toMatch(/^arn:aws:(iam|sts)::000000000000:/);
    expect(ended).toMatchObject({
      kind: 'dlq-redrive',
      outcome: 'done',
      consumer: 'ledger',
      queueArn: s.dlq.arn,
      // What followed `dlq redrive`.
      arguments: [...s.redrive.slice(2), '--apply', '--json'],
      counts: { messages: 2, sent: 2, deleted: 2, kept: 0 },
    });
    expect(messages.map((line) => line.keyHash).sort()).toEqual(s.keys.map(keyHash).sort());
    for (const line of messages) {
      expect(line).toMatchObject({ decision: 'retry', action: 'sent', consumer: 'ledger' });
      expect(line.newMessageId).toEqual(expect.any(String));
      expect(line.originalMessageId).toMatch(/^original-/);
    }
    const record = await auditRecordOf(aws, ledger, String(started?.operationId));
    expect(record).toMatchObject({ caller: started?.caller, outcome: 'done' });
    expect(record?.messages).toEqual(messages);
    expect(record?.expiresAt).toBeGreaterThan(Date.now() / 1000 + 80 * 86_400);
    const everything = JSON.stringify(record) + run.stdout + run.stderr;
    expect(everything).not.toContain(MARKER);
    for (const key of s.keys) expect(everything).not.toContain(key);
  });

  it('records the caller as unknown, with a warning, when STS does not answer, and still redrives', async () => {
    const s = await deadLetters(1);
    const env = { ...standardAwsEnvironment(aws), AWS_ENDPOINT_URL_STS: 'http://127.0.0.1:9' };
    const run = await sqsInbox([...s.redrive, '--apply', '--jsonl'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('the caller could not be read');
    const [message] = jsonLines(run.stdout).filter((line) => line.record === 'message');
    expect(message).toMatchObject({
      decision: 'retry',
      action: 'sent',
      operationId: expect.any(String),
    });
    expect(await auditRecordOf(aws, ledger, String(message?.operationId))).toMatchObject({
      caller: 'unknown',
      outcome: 'done',
    });
  });

  it('does not start when the table refuses its start record: nothing sent, deleted or held, no lock left, exit 3 naming what to fix', async () => {
    const s = await deadLetters(1);
    // A real refusal: the record carries the command line, and DynamoDB refuses an item over
    // 400 KB. The reasons include the messages' own, so a run that went on would send them.
    const oversized = Array.from({ length: 4 }, (_, n) => ['--reason', `${n}`.repeat(110_000)]);
    const args = [...s.redrive, '--reason', 'TransientStoreError', ...oversized.flat(), '--apply'];
    const run = await sqsInbox(args, standardAwsEnvironment(aws));
    expect(run.code, run.stderr).toBe(3);
    const [line, ...more] = run.stderr.split('\n').filter((text) => text.startsWith('sqs-inbox:'));
    expect(more).toEqual([]);
    expect(line).toContain(
      `the redrive did not start: its audit record could not be written to ${ledger.tables.inbox} (ValidationException`,
    );
    expect(line).toContain('nothing was sent or deleted');
    expect(await receiveMessages(aws.sqs, s.source.url)).toEqual([]);
    // Still in the DLQ, and visible at once: the run held no message.
    expect((await receiveMessages(aws.sqs, s.dlq.url)).length).toBe(1);
    const { Item } = await aws.documentClient.send(
      new GetCommand({
        TableName: ledger.tables.inbox,
        Key: { pk: operationLockPk('dlq', s.dlq.arn) },
        ConsistentRead: true,
      }),
    );
    expect(Item).toBeUndefined();
  });

  it('writes no record of a dry run', async () => {
    const s = await deadLetters(1);
    const run = await sqsInbox([...s.redrive, '--json'], standardAwsEnvironment(aws));
    const { operationId } = JSON.parse(run.stdout) as { operationId: string };
    expect(await auditRecordOf(aws, ledger, operationId)).toBeUndefined();
    expect(jsonLines(run.stderr)).toEqual([]);
  });
});

describe("the redrive's lock", () => {
  it('refuses a run while another run holds the lock, naming it, and sends nothing', async () => {
    const s = await deadLetters(1);
    await aws.documentClient.send(
      new PutCommand({
        TableName: ledger.tables.inbox,
        Item: {
          pk: operationLockPk('dlq', s.dlq.arn),
          owner: 'another-run',
          leaseUntilMillis: Date.now() + 600_000,
        },
      }),
    );
    const run = await sqsInbox([...s.redrive, '--apply'], standardAwsEnvironment(aws));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`another run of the redrive holds the lock of ${s.dlq.arn}`);
    expect(await receiveMessages(aws.sqs, s.source.url)).toEqual([]);
  });

  it('stops a run whose lease lapsed while another run took the lock: nothing more sent, what it held visible again', async () => {
    const s = await deadLetters(3);
    const queue = await SqsRedriveQueue.open(aws.sqs, s.dlq.url);
    const lockPk = operationLockPk('dlq', queue.arn);
    const leaseMillis = 1_500;
    const other = new OperationLock(aws.documentClient, ledger.tables.inbox, lockPk, 'other');
    let tookOver: boolean | undefined;
    const wait = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));
    const summary = await redriveDeadLetters({
      queue,
      reading: ledgerReading(ledger.store),
      ttlSeconds: LEDGER_TTL_SECONDS,
      operationId: 'stalled-run',
      apply: true,
      lock: new OperationLock(aws.documentClient, ledger.tables.inbox, lockPk, 'stalled-run'),
      lockLeaseMillis: leaseMillis,
      // One send a second: the run waits before its second send however slowly the first went
      // on a loaded machine (at 5/s a first message slower than 200 ms left no wait to stall).
      ratePerSecond: 1,
      runtime: {
        now: () => Date.now(),
        // The run's first wait (before its second send) stalls past its lease, and meanwhile
        // another run takes the lock.
        sleep: async (millis) => {
          await wait(millis);
          if (tookOver !== undefined) return;
          await wait(leaseMillis + 200);
          tookOver = await other.acquire(Date.now(), 600_000);
        },
      },
    });
    expect(tookOver).toBe(true);
    expect(summary).toMatchObject({ stoppedBy: 'lock-lost', sent: 1, kept: 1, messages: 2 });
    expect(summary.lockLost).toContain('another run took its lock');
    const { Item } = await aws.documentClient.send(
      new GetCommand({ TableName: ledger.tables.inbox, Key: { pk: lockPk }, ConsistentRead: true }),
    );
    expect(Item?.owner).toBe('other');
    const left = await receiveMessages(aws.sqs, s.dlq.url);
    expect(left.length).toBe(3 - summary.sent);
  });
});
