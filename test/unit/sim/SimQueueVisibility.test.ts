import { describe, expect, it } from 'vitest';
import { Prng } from '../../../tools/sim/kernel/Prng.js';
import { SimQueue } from '../../../tools/sim/sqs/SimQueue.js';
import { thrown } from './simFixture.js';

const HOUR_MILLIS = 3_600_000;

function queueOf(fifo = false, name = 'source'): SimQueue {
  return new SimQueue({
    name: fifo ? `${name}.fifo` : name,
    fifo,
    visibilityTimeoutMillis: 30_000,
    random: new Prng(1),
  });
}

/** A queue holding one message, received at 0: its handle. */
function received(queue = queueOf()) {
  queue.send({ body: 'm1' }, 0);
  const handle = queue.receive(1, 0)[0]?.receiptHandle;
  if (handle === undefined) throw new Error('nothing received');
  return { queue, handle };
}

const bodies = (queue: SimQueue, nowMillis: number) =>
  queue.receive(10, nowMillis).map((message) => message.body);

describe('SimQueue ChangeMessageVisibility', () => {
  it('hides the message for the new timeout counted from the call, and 0 makes it visible at once', () => {
    const { queue, handle } = received();

    queue.changeVisibility(handle, 5, 10_000);
    expect(bodies(queue, 14_999)).toEqual([]);
    expect(bodies(queue, 15_000)).toEqual(['m1']);

    const again = queue.messages[0]?.receiptHandle ?? '';
    queue.changeVisibility(again, 0, 16_000);
    expect(bodies(queue, 16_000)).toEqual(['m1']);
  });

  it('records each change applied with its message, time and new visibility, and nothing for a refused one', () => {
    const { queue, handle } = received();

    queue.changeVisibility(handle, 7, 2_000);
    thrown(() => queue.changeVisibility(handle, 43_201, 3_000));

    expect(queue.visibilityChanges).toEqual([
      { messageId: 'source-1', atMillis: 2_000, visibleAtMillis: 9_000 },
    ]);
  });

  it('refuses a timeout outside 0–43200 seconds with InvalidParameterValue', () => {
    const { queue, handle } = received();

    for (const seconds of [-1, 43_201, 1.5]) {
      expect(thrown(() => queue.changeVisibility(handle, seconds, 0))).toMatchObject({
        name: 'InvalidParameterValue',
        message: expect.stringContaining('Must be between 0 and 43200'),
      });
    }
    queue.changeVisibility(handle, 43_200, 0);
    expect(queue.messages[0]?.visibleAtMillis).toBe(12 * HOUR_MILLIS);
  });

  it('refuses to hide a message more than 12 hours in all since its receive, with AWS’s message', () => {
    const { queue, handle } = received();
    queue.changeVisibility(handle, 43_200, 0);

    expect(thrown(() => queue.changeVisibility(handle, 43_200, 1_000))).toMatchObject({
      name: 'InvalidParameterValue',
      message: expect.stringContaining(
        'Total VisibilityTimeout for the message is beyond the limit [43200 seconds]',
      ),
    });
    queue.changeVisibility(handle, 43_199, 1_000);
    expect(queue.messages[0]?.visibleAtMillis).toBe(12 * HOUR_MILLIS);
  });

  it('counts the 12 hours from the latest receive, not the first', () => {
    const { queue } = received();
    const later = queue.receive(1, 30_000)[0]?.receiptHandle ?? '';

    queue.changeVisibility(later, 43_200, 30_000);
    expect(queue.messages[0]?.visibleAtMillis).toBe(30_000 + 12 * HOUR_MILLIS);
  });

  it('refuses a handle whose message was received again since, or deleted, as AWS does, and leaves the message alone', () => {
    const { queue, handle } = received();
    const latest = queue.receive(1, 30_000)[0]?.receiptHandle ?? '';
    const notAvailable = {
      name: 'InvalidParameterValue',
      message: expect.stringContaining(
        'Message does not exist or is not available for visibility timeout change.',
      ),
    };

    expect(thrown(() => queue.changeVisibility(handle, 0, 31_000))).toMatchObject(notAvailable);
    expect(queue.messages[0]?.visibleAtMillis).toBe(60_000);
    queue.delete(latest, false);
    expect(thrown(() => queue.changeVisibility(latest, 0, 32_000))).toMatchObject(notAvailable);
  });

  it('refuses a handle it never issued with ReceiptHandleIsInvalid', () => {
    const { queue } = received();
    const other = queueOf(false, 'other');
    other.send({ body: 'elsewhere' }, 0);
    const foreign = other.receive(1, 0)[0]?.receiptHandle ?? '';

    for (const handle of ['garbage', foreign]) {
      expect(thrown(() => queue.changeVisibility(handle, 0, 0)).name).toBe(
        'ReceiptHandleIsInvalid',
      );
    }
  });

  it('changes nothing for a handle whose timeout ran out, the message not received since (AWS; MiniStack hides it again)', () => {
    const { queue, handle } = received();

    queue.changeVisibility(handle, 10, 30_000);
    expect(queue.messages[0]?.visibleAtMillis).toBe(30_000);
    expect(queue.visibilityChanges).toEqual([]);
    expect(bodies(queue, 30_000)).toEqual(['m1']);
  });

  it('tells its listeners when a change brings a message back sooner, not when it pushes it later', () => {
    const { queue, handle } = received();
    const told: number[] = [];
    queue.onVisibleSooner(() => told.push(told.length));

    queue.changeVisibility(handle, 60, 1_000);
    expect(told).toEqual([]);
    queue.changeVisibility(handle, 2, 1_000);
    expect(told).toEqual([0]);
  });

  it('FIFO: a group stays blocked while its delayed head is in flight, its released followers come back with it, in order', () => {
    const queue = queueOf(true);
    for (const body of ['a1', 'a2', 'a3']) {
      queue.send({ body, groupId: 'a', deduplicationId: body }, 0);
    }
    const [head, ...followers] = queue.receive(10, 0);

    queue.changeVisibility(head?.receiptHandle ?? '', 3, 0);
    for (const follower of followers) queue.changeVisibility(follower.receiptHandle ?? '', 0, 0);

    expect(bodies(queue, 2_999)).toEqual([]);
    expect(bodies(queue, 3_000)).toEqual(['a1', 'a2', 'a3']);
  });
});
