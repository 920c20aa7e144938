import type { SQSRecord } from 'aws-lambda';
import type { RedriveQueue } from './RedriveQueue.js';

/** How long a received message stays hidden while a run holds it. */
export const HOLD_SECONDS = 300;

/**
 * Receives a DLQ's messages one batch at a time, each message once, holding every one until
 * `releaseAll` (a message seen again after its hold lapsed is held under its new receipt, not
 * handed out twice). It ends after two receives in a row bring nothing new, or once `stop()`
 * says so. Reading is receiving: every message's receive count rises.
 *
 * @example
 * ```ts
 * const reader = receiveAll(queue);
 * for await (const record of reader.records()) judge(record);
 * await reader.releaseAll();
 * ```
 */
export function receiveAll(queue: RedriveQueue, stop: () => boolean = () => false) {
  const held = new Map<string, SQSRecord>();
  return {
    async *records(): AsyncGenerator<SQSRecord> {
      let quiet = 0;
      while (quiet < 2 && !stop()) {
        const batch = await queue.receive(HOLD_SECONDS);
        const fresh = batch.filter((record) => !held.has(record.messageId));
        for (const record of batch) held.set(record.messageId, record);
        quiet = fresh.length === 0 ? quiet + 1 : 0;
        for (const record of fresh) {
          if (stop()) return;
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
      const records = [...held.values()];
      held.clear();
      for (let n = 0; n < records.length; n += 10) await queue.release(records.slice(n, n + 10));
    },
  };
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
): Promise<void> {
  const reader = receiveAll(queue, stop);
  try {
    for await (const record of reader.records()) await visit(record);
  } finally {
    await reader.releaseAll();
  }
}
