import { describe, expect, it } from 'vitest';
import { receiveAll } from '../../../src/operations/receiveAll.js';
import { Prng } from '../../../tools/sim/kernel/Prng.js';
import { SimQueue } from '../../../tools/sim/sqs/SimQueue.js';
import { SimRedriveQueue } from '../../../tools/sim/sqs/SimRedriveQueue.js';

const HOLD_SECONDS = 3;
/** A hold is extended once a third of it passed: at least two thirds of it are left then. */
const LEFT_AT_LEAST_MILLIS = (HOLD_SECONDS * 1000 * 2) / 3;

/** A simulated DLQ of `count` messages on a clock the test moves. */
function deadLetterQueue(count: number) {
  const clock = { nowMillis: 0 };
  const queue = new SimQueue({
    name: 'ledger-dlq',
    fifo: false,
    visibilityTimeoutMillis: 30_000,
    random: new Prng(1),
  });
  for (let n = 0; n < count; n++) queue.send({ body: `message-${n}` }, 0);
  const redriveQueue = new SimRedriveQueue(queue, [], () => clock.nowMillis, 0);
  // Each extension as it is asked for: when, and of which messages (in name order).
  const extensions: string[] = [];
  const hide = redriveQueue.hide.bind(redriveQueue);
  redriveQueue.hide = (records, visibilitySeconds) => {
    extensions.push(
      `${clock.nowMillis} ms: ${records
        .map((record) => record.body)
        .sort()
        .join(' ')}`,
    );
    return hide(records, visibilitySeconds);
  };
  return { clock, queue, redriveQueue, extensions };
}

describe('receiveAll, the holds of a reader on a simulated DLQ', () => {
  it('extends each hold once a third of it passed, by when it began: every message it holds stays hidden two thirds of a hold past each look', async () => {
    // Ten messages held at 0 ms, two at 900 ms; the ten are extended at 1000 ms, so at 1950 ms
    // only the two are due: the holds are extended by when they began, not by first receipt.
    const { clock, queue, redriveQueue, extensions } = deadLetterQueue(12);
    // The clock after the n-th message handed out (by the count, not the message: the queue
    // hands a batch out in any order).
    const moves = new Map([
      [10, 900],
      [11, 1_000],
      [12, 1_950],
    ]);
    const reader = receiveAll(redriveQueue, () => false, {
      now: () => clock.nowMillis,
      holdSeconds: HOLD_SECONDS,
    });
    const held = () => queue.messages.filter((message) => message.receiveCount > 0);
    const shortest = () =>
      Math.min(...held().map((message) => message.visibleAtMillis)) - clock.nowMillis;
    const seen: string[] = [];
    const shortestLeft: number[] = [];
    try {
      for await (const record of reader.records()) {
        seen.push(record.body);
        shortestLeft.push(shortest());
        clock.nowMillis = moves.get(seen.length) ?? clock.nowMillis;
      }
      shortestLeft.push(shortest());
    } finally {
      await reader.releaseAll();
    }

    expect(seen).toHaveLength(12);
    const names = (bodies: string[]) => [...bodies].sort().join(' ');
    expect(extensions).toEqual([
      `1000 ms: ${names(seen.slice(0, 10))}`,
      `1950 ms: ${names(seen.slice(10))}`,
    ]);
    expect(Math.min(...shortestLeft)).toBeGreaterThanOrEqual(LEFT_AT_LEAST_MILLIS);
    expect(held().every((message) => message.visibleAtMillis <= clock.nowMillis)).toBe(true);
  });
});
