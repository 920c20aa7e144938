import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { OperationLock, operationLockPk } from '../../../src/aws/OperationLock.js';
import { SqsRedriveQueue } from '../../../src/aws/SqsRedriveQueue.js';
import { RedriveLockedError } from '../../../src/operations/RunLease.js';
import { type RedriveRun, redriveDeadLetters } from '../../../src/operations/redriveDeadLetters.js';
import { deadLetterPayments, deadLetterQueues } from '../../support/deadLetterPayments.js';
import { useLedger } from '../../support/ledgerFixture.js';
import { LEDGER_TTL_SECONDS, ledgerReading } from '../../support/ledgerRedrive.js';
import { receiveMessages } from '../../support/receiveMessages.js';

const { aws, ledger } = useLedger();

/** A DLQ of `count` never-committed ledger payments, and a redrive of it holding its lock. */
async function scene(count: number) {
  const { source, dlq } = await deadLetterQueues(aws, 'lease');
  await deadLetterPayments(aws, { dlq, source }, count);
  const queue = await SqsRedriveQueue.open(aws.sqs, dlq.url);
  const lockPk = operationLockPk('dlq', queue.arn);
  const lockOf = (owner: string) =>
    new OperationLock(aws.documentClient, ledger.tables.inbox, lockPk, owner);
  const run = (operationId: string, runtime: RedriveRun['runtime']) =>
    redriveDeadLetters({
      queue,
      reading: ledgerReading(ledger.store),
      ttlSeconds: LEDGER_TTL_SECONDS,
      operationId,
      apply: true,
      lock: lockOf(operationId),
      runtime,
    });
  return { source, dlq, lockPk, lockOf, run };
}

describe('the lock of a redrive killed outright', () => {
  it('refuses the next run while the killed run’s lease lasts, and lets it take the lock two minutes after the last renewal', async () => {
    const s = await scene(2);
    const takenAtMillis = Date.now();
    // Killed outright in its first wait (after its first send), as SIGKILL stops a process:
    // it never releases its lock.
    let killed: () => void = () => {};
    const waiting = new Promise<void>((resolve) => {
      killed = resolve;
    });
    void s.run('killed-run', {
      now: () => takenAtMillis,
      sleep: () => {
        killed();
        return new Promise<void>(() => {});
      },
    });
    await waiting;
    const { Item } = await aws.documentClient.send(
      new GetCommand({
        TableName: ledger.tables.inbox,
        Key: { pk: s.lockPk },
        ConsistentRead: true,
      }),
    );
    expect(Item).toMatchObject({ owner: 'killed-run', leaseUntilMillis: takenAtMillis + 120_000 });
    const at = (millis: number) => ({ now: () => millis, sleep: async () => {} });

    await expect(s.run('too-soon', at(takenAtMillis + 119_000))).rejects.toBeInstanceOf(
      RedriveLockedError,
    );
    const summary = await s.run('after-the-lease', at(takenAtMillis + 121_000));

    // The killed run's second message stays hidden until its hold lapses: this run sees none.
    expect(summary).toMatchObject({ sent: 0, kept: 0 });
    expect(summary.stoppedBy).toBeUndefined();
    expect(await receiveMessages(aws.sqs, s.source.url)).toHaveLength(1);
  });
});

describe('the lock of a redrive that waits', () => {
  it('is renewed while the run waits for its rate, so no other run takes it during a wait longer than the lease', async () => {
    const s = await scene(2);
    const rival = s.lockOf('rival');
    const startMillis = Date.now();
    let clockMillis = startMillis;
    let rivalTook = false;
    const summary = await redriveDeadLetters({
      ...(await runOf(s)),
      // One send every 5 minutes: the wait before the second outlasts a two-minute lease.
      ratePerSecond: 1 / 300,
      runtime: {
        now: () => clockMillis,
        // Another run tries the lock after every wait, at the waiting run's time.
        sleep: async (millis) => {
          clockMillis += millis;
          rivalTook ||= await rival.acquire(clockMillis, 120_000);
        },
      },
    });

    // The run did wait out its rate (else no rival ever tried), and the rival never got in.
    expect(clockMillis - startMillis).toBeGreaterThanOrEqual(300_000);
    expect(rivalTook).toBe(false);
    expect(summary).toMatchObject({ sent: 2, kept: 0 });
    expect(summary.stoppedBy).toBeUndefined();
    const { Item } = await aws.documentClient.send(
      new GetCommand({
        TableName: ledger.tables.inbox,
        Key: { pk: s.lockPk },
        ConsistentRead: true,
      }),
    );
    expect(Item).toBeUndefined();
  });
});

/** The run of `s`, as {@link scene} makes it, to be given its own rate and clock. */
async function runOf(s: Awaited<ReturnType<typeof scene>>) {
  return {
    queue: await SqsRedriveQueue.open(aws.sqs, s.dlq.url),
    reading: ledgerReading(ledger.store),
    ttlSeconds: LEDGER_TTL_SECONDS,
    operationId: 'waiting-run',
    apply: true,
    lock: s.lockOf('waiting-run'),
  };
}
