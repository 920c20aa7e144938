import type { InboxRuntime } from '../runtime/InboxRuntime.js';
import { describeDeadLetter } from './judgeDeadLetter.js';
import type { QueueDepth, RedriveQueue } from './RedriveQueue.js';
import { receiveAll } from './receiveAll.js';

/** What every report says about how it was made. */
export const REPORT_NOTE =
  'Reading a DLQ is receiving: each message read had its receive count raised by one and is ' +
  'visible again now. Nothing was deleted.';

/**
 * The messages of one reason from one source queue.
 *
 * @example
 * ```ts
 * console.log(`${group.count} × ${group.reason} from ${group.sourceQueueArn}`);
 * ```
 */
export interface DeadLetterGroup {
  /** `inbox.error`, or "no reason recorded" for a move by the redrive policy. */
  readonly reason: string;
  /** The source queue's ARN, or `unknown`. */
  readonly sourceQueueArn: string;
  readonly count: number;
  readonly oldestSentAt: string;
  readonly newestSentAt: string;
  /** When the DLQ's retention drops the oldest of them. */
  readonly oldestExpiresAt: string;
  /** Milliseconds left before it does (negative: due now). */
  readonly oldestExpiresInMillis: number;
  readonly maxReceiveCount: number;
}

/**
 * A DLQ's contents grouped by reason and source queue, with its approximate depth: what
 * `sqs-inbox dlq report` prints.
 *
 * @example
 * ```ts
 * const report = await reportDeadLetters({ queue, runtime: systemRuntime });
 * ```
 */
export interface DeadLetterReport {
  readonly queueArn: string;
  readonly fifo: boolean;
  readonly depth: QueueDepth;
  readonly messagesRead: number;
  /**
   * Whether some messages could not be read: a FIFO group shows its next messages only once
   * the earlier ones are deleted, and messages another reader holds are hidden.
   */
  readonly partial: boolean;
  readonly groups: readonly DeadLetterGroup[];
  readonly note: string;
}

/**
 * Reads every visible message of a DLQ once and groups it by reason and source queue. Deletes
 * nothing; every message read is visible again when it returns.
 *
 * @example
 * ```ts
 * const { groups } = await reportDeadLetters({ queue, runtime: systemRuntime });
 * ```
 */
export async function reportDeadLetters(input: {
  readonly queue: RedriveQueue;
  readonly runtime: Pick<InboxRuntime, 'now'>;
  readonly signal?: AbortSignal;
}): Promise<DeadLetterReport> {
  const { queue } = input;
  const depth = await queue.depth();
  const groups = new Map<string, GroupTally>();
  const reader = receiveAll(queue, () => input.signal?.aborted === true, {
    now: input.runtime.now,
  });
  let messagesRead = 0;
  try {
    for await (const record of reader.records()) {
      messagesRead++;
      const facts = describeDeadLetter(record);
      const source = facts.sourceQueueArn ?? 'unknown';
      const id = `${facts.reason}\u0000${source}`;
      const group = groups.get(id) ?? newGroup(facts.reason, source, facts.sentAt);
      group.count++;
      if (facts.sentAt < group.oldestSentAt) group.oldestSentAt = facts.sentAt;
      if (facts.sentAt > group.newestSentAt) group.newestSentAt = facts.sentAt;
      group.maxReceiveCount = Math.max(group.maxReceiveCount, facts.receiveCount);
      groups.set(id, group);
    }
  } finally {
    await reader.releaseAll();
  }
  const nowMillis = input.runtime.now();
  return {
    queueArn: queue.arn,
    fifo: queue.fifo,
    depth,
    messagesRead,
    partial: messagesRead < depth.visible,
    groups: [...groups.values()]
      .map((group) => withExpiry(group, depth.retentionSeconds, nowMillis))
      .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason)),
    note: REPORT_NOTE,
  };
}

type GroupTally = {
  reason: string;
  sourceQueueArn: string;
  count: number;
  oldestSentAt: string;
  newestSentAt: string;
  maxReceiveCount: number;
};

function newGroup(reason: string, sourceQueueArn: string, sentAt: string): GroupTally {
  return {
    reason,
    sourceQueueArn,
    count: 0,
    oldestSentAt: sentAt,
    newestSentAt: sentAt,
    maxReceiveCount: 0,
  };
}

function withExpiry(
  group: GroupTally,
  retentionSeconds: number,
  nowMillis: number,
): DeadLetterGroup {
  const expiresMillis = Date.parse(group.oldestSentAt) + retentionSeconds * 1000;
  return {
    ...group,
    oldestExpiresAt: new Date(expiresMillis).toISOString(),
    oldestExpiresInMillis: expiresMillis - nowMillis,
  };
}
