import { describe, expect, it, onTestFinished } from 'vitest';
import { SqsRedriveQueue } from '../../../src/aws/SqsRedriveQueue.js';
import {
  type DeadLetteredPayment,
  deadLetterPayments,
  deadLetterQueues,
} from '../../support/deadLetterPayments.js';
import { eventually } from '../../support/eventually.js';
import { useLedger } from '../../support/ledgerFixture.js';
import { auditRecordOf, ledgerRedrive } from '../../support/ledgerRedrive.js';
import { outputLines } from '../../support/messageLines.js';
import { sqsInbox, standardAwsEnvironment, startSqsInbox } from '../../support/operatorCli.js';
import { takeMessages } from '../../support/receiveMessages.js';

const { aws, ledger } = useLedger();
const DEAD_LETTERS = 6;

/**
 * A DLQ of never-committed ledger payments, each one the redrive sends back; with `keptFirst`,
 * first a payment that failed permanently, which the redrive keeps.
 */
async function scene(keptFirst = false) {
  const queues = await deadLetterQueues(aws, 'interrupted');
  if (keptFirst) await deadLetterPayments(aws, queues, 1, { reason: 'SchemaValidationError' });
  await deadLetterPayments(aws, queues, DEAD_LETTERS);
  return { ...queues, redrive: ledgerRedrive(ledger, queues.dlq) };
}

/**
 * `sqs-inbox dlq redrive --apply --jsonl --rate 1` as a child process, `interrupt`ed after its
 * first stdout line: its stdout closed under it (as `… | head -1` does), or a signal sent.
 */
function redriveInterrupted(
  redrive: readonly string[],
  interrupt: 'close-stdout' | NodeJS.Signals,
) {
  const running = startSqsInbox(
    [...redrive, '--apply', '--jsonl', '--rate', '1'],
    standardAwsEnvironment(aws),
  );
  running.child.stdout.once('data', () => {
    if (interrupt === 'close-stdout') running.child.stdout.destroy();
    else running.child.kill(interrupt);
  });
  return running.ended;
}

describe('a dlq redrive whose output is closed under it', () => {
  it('stops after the message in hand with one line and releases its lock and what it held: the next run finishes the rest at once', async () => {
    const { source, dlq, redrive } = await scene();

    const first = await redriveInterrupted(redrive, 'close-stdout');

    expect(first.code).not.toBe(0);
    expect(first.stderr).toContain('the output was closed');
    expect(first.stderr).not.toMatch(/\n\s+at /);
    const second = await sqsInbox([...redrive, '--apply', '--json'], standardAwsEnvironment(aws));
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
    const { source, redrive } = await scene(true);

    const first = await redriveInterrupted(redrive, 'SIGINT');

    expect(first.code, first.stderr).toBe(130);
    const summary = outputLines(first.stdout).at(-1);
    expect(summary).toMatchObject({ stoppedBy: 'signal', kept: 1 });
    expect(Number(summary?.sent)).toBeLessThan(DEAD_LETTERS);
    expect(await auditRecordOf(aws, ledger, String(summary?.operationId))).toMatchObject({
      outcome: 'stopped',
      stoppedBy: 'signal',
      counts: { sent: summary?.sent },
    });
    const startedMillis = Date.now();
    const second = await sqsInbox([...redrive, '--apply', '--json'], standardAwsEnvironment(aws));
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

/**
 * Letters arriving in `queues.dlq` every 300 ms, each added to `letters`, until the returned
 * stop is called or the test ends: a read of the DLQ never runs out of new messages, so only a
 * signal can end it.
 */
function lettersArriving(
  queues: Parameters<typeof deadLetterPayments>[1],
  letters: DeadLetteredPayment[],
): () => Promise<void> {
  let arriving = true;
  const arrivals = (async () => {
    while (arriving) {
      letters.push(...(await deadLetterPayments(aws, queues, 1)));
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  })();
  const stop = async () => {
    arriving = false;
    await arrivals;
  };
  onTestFinished(stop);
  return stop;
}

describe('sqs-inbox message --from-dlq stopped by a signal', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'stops reading the DLQ on %s, exits 130 without claiming the message absent, and leaves every letter visible again at once, none deleted or changed',
    async (signal) => {
      const queues = await deadLetterQueues(aws, 'message-interrupted');
      const letters = await deadLetterPayments(aws, queues, DEAD_LETTERS);
      const dlq = await SqsRedriveQueue.open(aws.sqs, queues.dlq.url);
      const running = startSqsInbox(
        [
          ...['message', 'ledger', '--table', ledger.tables.inbox, '--dlq', queues.dlq.url],
          ...['--key-from', 'field:eventId', '--from-dlq', 'an-id-no-letter-has'],
        ],
        standardAwsEnvironment(aws),
      );
      const stopArrivals = lettersArriving(queues, letters);

      await eventually(
        'the command to be reading the DLQ',
        () => dlq.depth(),
        (depth) => depth.inFlight > 0,
        30_000,
      );
      running.child.kill(signal);
      const ended = await running.ended;
      await stopArrivals();

      expect(ended.code, ended.stderr).toBe(130);
      expect(ended.stderr).toContain(`${signal}: stopping`);
      expect(ended.stderr).toContain(
        'stopped by a signal before message an-id-no-letter-has was found',
      );
      expect(ended.stderr).not.toContain('no message an-id-no-letter-has in the DLQ');
      expect(ended.stdout).toBe('');
      const left = await takeMessages(aws.sqs, queues.dlq.url, letters.length + 1, 5_000);
      const bodyOf = new Map(left.map((message) => [message.MessageId, message.Body]));
      expect(bodyOf).toEqual(
        new Map(letters.map(({ event, dlqMessageId }) => [dlqMessageId, JSON.stringify(event)])),
      );
    },
    120_000,
  );
});
