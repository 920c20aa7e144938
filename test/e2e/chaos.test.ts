import { describe, expect, it, onTestFailed } from 'vitest';
import { runScript } from '../support/runScript.js';

const chaos = (args: string[]) => runScript('scripts/chaos.ts', args);

/** The first figure of the report row that starts with `label`. */
const count = (output: string, label: string) =>
  Number(new RegExp(`^\\s+${label}\\s+(\\d+)`, 'm').exec(output)?.[1]);

const CRASH_POINTS = [
  '1 before the transaction is sent',
  '2 after commit, before the batch response',
  '3 mid-batch, some records committed',
  '4 slow handler past its visibility timeout',
  '5 two consumers holding copies at once',
  '6 hanging handler, batch answered at its deadline',
  '7 step effect done, its journal write not sent',
  '8 step journaled, the handler not gone on',
  '9 during a lease heartbeat',
  '10 lease lapsed in a freeze, taken over',
  '11 relay sent its batch, answer not out',
  '12 relay mid-batch, some messages sent',
  '13 commit with outgoing messages, answer unread',
];
const INVARIANTS = [
  'at least 100 crashes, at every crash point',
  'copies raced: kills while another consumer held the event (points 4, 5), and copies stopped by the inbox condition itself',
  'every batch with a hanging handler answered before its function timeout, the hung record reported failed (point 6)',
  'every worker exit was an injected SIGKILL',
  'all messages settled (queues drained)',
  'each inbox key committed exactly one transaction (probe counter = 1 per inbox entry)',
  'counter (no condition of its own): each total = sum of its distinct events',
  'counter: every event committed, nothing in its DLQ',
  'steps: no step ran again after its journal write (by a later attempt or by the one that wrote it)',
  'steps: no commit by a worker that had lost its lease (each commit is the last claim’s)',
  'lease taken over in a freeze: every later write of the frozen worker refused (point 10)',
  'no SKU below zero at any moment sampled during the run',
  'each balance = sum of its distinct payments',
  'exactly one ledger entry per payment',
  'no SKU below zero',
  'reserved + available = seeded stock',
  'each order reserved or rejected exactly once',
  'every event its upstream delivered twice (same envelope, new SQS message) applied once',
  'notifier: one receipt per notified payment, with its content (S3, If-None-Match)',
  'notifier: one notification row per committed event, naming an email of that event and its receipt',
  "notifier: one email per event, extra ones only where an attempt sent it and never journaled it, each with the event's reference",
  'every malformed message in a DLQ with its reason',
  'nothing lost: every event sent is committed (inbox entry) or in a DLQ with its reason',
  'no valid event dead-lettered: the DLQs hold only malformed and conflicting messages',
  'operator redrive with `sqs-inbox dlq redrive --apply`: committed events deleted from their DLQ unsent, the others sent back, none left',
  'every event the operator redrove was applied exactly once (probe counter = 1), committed or not when it reached the DLQ',
  'every credited payment published in its transaction (an outbox item per credit)',
  'nothing lost between the hops: every published message relayed and committed by the notifier, none dead-lettered by the relay',
  "every copy the relay sent of a message (re-sends included) carried the message's stable outbox id",
];

function expectAHealthyRun(output: string): void {
  const crashes = CRASH_POINTS.map((label) => count(output, label));
  expect(crashes.every((n) => n >= 1)).toBe(true);
  expect(crashes.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(100);
  const faults = ['throttling', '5xx', 'timeout', 'lost response', 'late execution'].map((kind) =>
    count(output, kind),
  );
  expect(faults.every((n) => n > 0)).toBe(true);
  expect(count(output, 'TransactionConflict')).toBeGreaterThan(0);
  const duplicateShare = Number(/duplicate copies: ([\d.]+) % of events/.exec(output)?.[1]);
  expect(duplicateShare).toBeGreaterThanOrEqual(20);
  expect(output).not.toMatch(/^\s+FAIL/m);
  for (const invariant of INVARIANTS) expect(output).toContain(`PASS  ${invariant}`);
  expect(output).toContain('all invariants hold');
}

describe('npm run chaos (bounded: 100 crashes)', () => {
  it("kills consumers and the outbox relay at all thirteen crash points (four inside the notifier's steps, two in the relay) and redrives events from their DLQs with the sqs-inbox command, with AWS faults injected, on the emulator, and every invariant holds", async () => {
    const { code, output } = await chaos(['--crashes', '100', '--seed', '11', '--timeout', '420']);
    onTestFailed(() => console.log(output));

    expectAHealthyRun(output);
    expect(code).toBe(0);
  }, 480_000);

  it('does the same with DynamoDB on DynamoDB Local, the official engine', async () => {
    const { code, output } = await chaos([
      '--crashes',
      '100',
      '--seed',
      '12',
      '--timeout',
      '420',
      '--dynamodb',
      'dynamodb-local',
    ]);
    onTestFailed(() => console.log(output));

    expect(output).toContain('DynamoDB: DynamoDB Local; SQS: MiniStack');
    expectAHealthyRun(output);
    expect(code).toBe(0);
  }, 480_000);

  it('rejects a bad option with a message naming it', async () => {
    const { code, output } = await chaos(['--fault-rate', '0.9']);

    expect(output).toContain('--fault-rate must be a number in [0, 0.5] (given 0.9)');
    expect(code).not.toBe(0);
  });
});
