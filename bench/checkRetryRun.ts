import { InboxStatus } from '../src/constants/index.js';
import type { InboxEntry } from '../src/types.js';
import { balanceProblems, entryProblems, summarize } from './checkLedger.js';
import type { Payment } from './workload.js';

/** A message `bench:retry` sent: its payment, its SQS message id, and when SQS had it. */
export interface SentMessage {
  readonly payment: Payment;
  readonly messageId: string;
  /** When the `SendMessageBatch` that carried it answered. */
  readonly sentAtMillis: number;
}

/** What a run left: the inbox, the ledger's two tables, and the two queues' depths. */
export interface RetryRunObservation {
  readonly inboxEntries: ReadonlyArray<
    Pick<InboxEntry, 'key' | 'status' | 'messageId' | 'processedAt'>
  >;
  /** The accounts table's items (`accountId`, `balanceCents`). */
  readonly accounts: ReadonlyArray<Record<string, unknown>>;
  /** The ledger table's items, one per payment applied. */
  readonly entries: ReadonlyArray<Record<string, unknown>>;
  /** Messages the source queue still holds, visible or in flight. */
  readonly queueDepth: number;
  /** Messages the DLQ holds. */
  readonly deadLettered: number;
}

/**
 * What is wrong with a `bench:retry` run, empty when it is right: every message sent committed
 * once — its inbox entry `COMPLETED` by that message, its account credited its amount once, its
 * ledger entry written —, no inbox entry for anything else, the queue empty and nothing in the
 * DLQ. A run with any problem printed no figure worth reading.
 *
 * @example
 * ```ts
 * const problems = retryRunProblems(sent, await observe(tables, queues));
 * if (problems.length > 0) throw new CommandError(problems.join('; '));
 * ```
 */
export function retryRunProblems(
  sent: readonly SentMessage[],
  observed: RetryRunObservation,
): string[] {
  const payments = sent.map((message) => message.payment);
  return [
    ...commitProblems(sent, observed.inboxEntries),
    ...balanceProblems(payments, observed.accounts),
    ...entryProblems(payments, observed.entries),
    ...(observed.queueDepth > 0 ? [`${observed.queueDepth} messages still in the queue`] : []),
    ...(observed.deadLettered > 0 ? [`${observed.deadLettered} messages in the DLQ`] : []),
  ];
}

function commitProblems(
  sent: readonly SentMessage[],
  inboxEntries: RetryRunObservation['inboxEntries'],
): string[] {
  const byKey = new Map(inboxEntries.map((entry) => [entry.key, entry]));
  const uncommitted = sent
    .filter(({ payment, messageId }) => {
      const entry = byKey.get(payment.eventId);
      return entry?.status !== InboxStatus.Completed || entry.messageId !== messageId;
    })
    .map(({ payment }) => `${payment.eventId} (${byKey.get(payment.eventId)?.status ?? 'none'})`);
  const count =
    inboxEntries.length === sent.length
      ? []
      : [`${inboxEntries.length} inbox entries, expected ${sent.length}`];
  return [...count, ...summarize('not committed by the message sent', uncommitted)];
}

/**
 * Each message's time from its send to its commit (the inbox entry's `processedAt`), in
 * seconds; a message not committed has none.
 *
 * @example
 * ```ts
 * const seconds = secondsToCommit(sent, observed.inboxEntries); // e.g. [12.1, 12.1, 12.2, …]
 * ```
 */
export function secondsToCommit(
  sent: readonly SentMessage[],
  inboxEntries: RetryRunObservation['inboxEntries'],
): number[] {
  const committedAt = new Map(
    inboxEntries
      .filter((entry) => entry.status === InboxStatus.Completed && entry.processedAt)
      .map((entry) => [entry.key, Date.parse(entry.processedAt ?? '')]),
  );
  return sent.flatMap(({ payment, sentAtMillis }) => {
    const at = committedAt.get(payment.eventId);
    return at === undefined ? [] : [(at - sentAtMillis) / 1000];
  });
}
