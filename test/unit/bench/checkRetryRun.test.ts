import { describe, expect, it } from 'vitest';
import {
  type RetryRunObservation,
  retryRunProblems,
  type SentMessage,
  secondsToCommit,
} from '../../../bench/checkRetryRun.js';
import { InboxStatus } from '../../../src/constants/index.js';

const SENT_AT = Date.parse('2026-11-27T10:00:00.000Z');
const sent: SentMessage[] = Array.from({ length: 4 }, (_, i) => ({
  payment: {
    eventId: `evt-${i}`,
    accountId: `acc-${i}`,
    paymentId: `pay-${i}`,
    amountCents: 100 + i,
  },
  messageId: `m-${i}`,
  sentAtMillis: SENT_AT,
}));

/** What a right run leaves: each message committed once by itself, the queues empty. */
function rightRun(): RetryRunObservation {
  return {
    inboxEntries: sent.map(({ payment, messageId }, i) => ({
      key: payment.eventId,
      status: InboxStatus.Completed,
      messageId,
      processedAt: new Date(SENT_AT + 1_000 * (i + 1)).toISOString(),
    })),
    accounts: sent.map(({ payment }) => ({
      accountId: payment.accountId,
      balanceCents: payment.amountCents,
    })),
    entries: sent.map(({ payment }) => ({ ...payment })),
    queueDepth: 0,
    deadLettered: 0,
  };
}

describe('the bench:retry run check', () => {
  it('finds nothing wrong with a run that committed each message once', () => {
    expect(retryRunProblems(sent, rightRun())).toEqual([]);
  });

  it('tells a message lost: no inbox entry, no credit, no ledger entry', () => {
    const run = rightRun();
    const lost = {
      ...run,
      inboxEntries: run.inboxEntries.slice(1),
      accounts: run.accounts.slice(1),
      entries: run.entries.slice(1),
    };
    expect(retryRunProblems(sent, lost)).toEqual([
      '3 inbox entries, expected 4',
      'not committed by the message sent: evt-0 (none)',
      'balances wrong: acc-0 holds nothing, expected 100',
      '3 ledger entries, expected 4',
    ]);
  });

  it('tells a payment credited twice', () => {
    const run = rightRun();
    const twice = {
      ...run,
      accounts: [
        { accountId: 'acc-2', balanceCents: 204 },
        ...run.accounts.filter((a) => a.accountId !== 'acc-2'),
      ],
    };
    expect(retryRunProblems(sent, twice)).toEqual([
      'balances wrong: acc-2 holds 204, expected 102',
    ]);
  });

  it('tells a message whose entry failed, or that another message committed', () => {
    const run = rightRun();
    const [first, second, ...rest] = run.inboxEntries;
    const wrong = {
      ...run,
      inboxEntries: [
        { ...first, status: InboxStatus.Failed },
        { ...second, messageId: 'm-other' },
        ...rest,
      ] as RetryRunObservation['inboxEntries'],
    };
    expect(retryRunProblems(sent, wrong)).toEqual([
      'not committed by the message sent: evt-0 (FAILED); evt-1 (COMPLETED)',
    ]);
  });

  it('tells messages left in the queue or moved to the DLQ', () => {
    const run = { ...rightRun(), queueDepth: 1, deadLettered: 2 };
    expect(retryRunProblems(sent, run)).toEqual([
      '1 messages still in the queue',
      '2 messages in the DLQ',
    ]);
  });

  it("measures each committed message from its send to its entry's processedAt", () => {
    const run = rightRun();
    expect(secondsToCommit(sent, run.inboxEntries)).toEqual([1, 2, 3, 4]);
    const oneFailed = [
      { ...run.inboxEntries[0], status: InboxStatus.Failed },
      ...run.inboxEntries.slice(1),
    ];
    expect(secondsToCommit(sent, oneFailed as RetryRunObservation['inboxEntries'])).toEqual([
      2, 3, 4,
    ]);
  });
});
