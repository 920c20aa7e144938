import type { SQSRecord } from 'aws-lambda';
import type { RedriveQueue } from './RedriveQueue.js';

/** How long a received message stays hidden at a time while a run holds it. */
export const HOLD_SECONDS = 300;

/**
 * How a reader keeps what it holds hidden: its clock (the runtime's), and how long each hold
 * lasts (tests shorten it). Without a clock a hold is not extended and lapses after
 * `holdSeconds`.
 */
export interface HoldOptions {
  readonly now?: () => number;
  readonly holdSeconds?: number;
}

/**
 * Receives a DLQ's messages one batch at a time, each message once, holding every one until
 * `releaseAll`. A hold is extended (ChangeMessageVisibility) once a third of it has passed, at
 * each receive and each message handed out, so a run longer than one hold keeps what it holds
 * hidden: a kept message does not come round again, and a kept FIFO message keeps its group
 * behind it. A message seen again all the same (an extension failed) is held under its new
 * receipt, not handed out twice. It ends after two receives in a row bring nothing new, or once
 * `stop()` says so. Reading is receiving: every message's receive count rises.
 *
 * @example
 * ```ts
 * const reader = receiveAll(queue, () => false, { now: runtime.now });
 * for await (const record of reader.records()) judge(record);
 * await reader.releaseAll();
 * ```
 */
export function receiveAll(
  queue: RedriveQueue,
  stop: () => boolean = () => false,
  options: HoldOptions = {},
) {
  const holdSeconds = options.holdSeconds ?? HOLD_SECONDS;
  // In the order the holds began: each (re)hold goes to the end, and on the runtime's clock, which
  // does not run back, the holds due to be extended are the first ones.
  const held = new Map<string, Hold>();
  const hold = (record: SQSRecord, sinceMillis: number) => {
    held.delete(record.messageId);
    held.set(record.messageId, { record, sinceMillis });
  };
  const extendDue = async () => {
    if (options.now === undefined) return;
    const nowMillis = options.now();
    const due = dueHolds(held.values(), nowMillis - (holdSeconds * 1000) / 3);
    for (let n = 0; n < due.length; n += 10) {
      const batch = due.slice(n, n + 10);
      // Refused or unanswered: tried again at the next message while the hold lasts; a hold
      // that lapses all the same only lets the message be seen again by this run (the lock
      // keeps other runs out), and it is not handed out twice.
      await queue
        .hide(
          batch.map((extended) => extended.record),
          holdSeconds,
        )
        .then(
          () => {
            // Not one forgotten or released meanwhile, nor one held anew under a new receipt.
            for (const extended of batch) {
              const { messageId } = extended.record;
              if (held.get(messageId) === extended) hold(extended.record, nowMillis);
            }
          },
          () => {},
        );
    }
  };
  return {
    async *records(): AsyncGenerator<SQSRecord> {
      let quiet = 0;
      while (quiet < 2 && !stop()) {
        await extendDue();
        const receivedMillis = options.now?.() ?? 0;
        const batch = await queue.receive(holdSeconds);
        const fresh = batch.filter((record) => !held.has(record.messageId));
        for (const record of batch) hold(record, receivedMillis);
        quiet = fresh.length === 0 ? quiet + 1 : 0;
        for (const record of fresh) {
          if (stop()) return;
          await extendDue();
          yield record;
        }
      }
    },
    /** Forgets a message the run deleted. */
    forget(record: SQSRecord): void {
      held.delete(record.messageId);
    },
    /** Makes every message still held visible again. */
    async releaseAll(): Promise<void> {
      const records = [...held.values()].map((hold) => hold.record);
      held.clear();
      for (let n = 0; n < records.length; n += 10) await queue.release(records.slice(n, n + 10));
    },
  };
}

/** A message the reader holds hidden, under the receipt it holds it by, since a time. */
interface Hold {
  readonly record: SQSRecord;
  readonly sinceMillis: number;
}

/** The first holds, in order, that began at or before `latestMillis`: those due. */
function dueHolds(holds: Iterable<Hold>, latestMillis: number): Hold[] {
  const due: Hold[] = [];
  for (const hold of holds) {
    if (hold.sinceMillis > latestMillis) break;
    due.push(hold);
  }
  return due;
}

/**
 * Reads every visible message of a queue once ({@link receiveAll}), hands each to `visit`, and
 * makes them all visible again at the end, also when `visit` throws. Deletes nothing.
 *
 * @example
 * ```ts
 * await readEach(queue, (record) => { seen.push(record.messageId); });
 * ```
 */
export async function readEach(
  queue: RedriveQueue,
  visit: (record: SQSRecord) => Promise<void> | void,
  stop: () => boolean = () => false,
  options: HoldOptions = {},
): Promise<void> {
  const reader = receiveAll(queue, stop, options);
  try {
    for await (const record of reader.records()) await visit(record);
  } finally {
    await reader.releaseAll();
  }
}
