import { describe, expect, it } from 'vitest';
import { Prng } from '../../../tools/sim/kernel/Prng.js';
import { SimQueue } from '../../../tools/sim/sqs/SimQueue.js';

function queues(fifo: boolean, maxReceiveCount = 2) {
  const random = new Prng(1);
  const suffix = fifo ? '.fifo' : '';
  const deadLetterQueue = new SimQueue({
    name: `dlq${suffix}`,
    fifo,
    visibilityTimeoutMillis: 30_000,
    random,
  });
  const queue = new SimQueue({
    name: `source${suffix}`,
    fifo,
    visibilityTimeoutMillis: 30_000,
    random,
    redrive: { deadLetterQueue, maxReceiveCount },
  });
  return { queue, deadLetterQueue };
}

describe('SimQueue', () => {
  it('hides a received message for the visibility timeout and counts its receives', () => {
    const { queue } = queues(false);
    queue.send({ body: 'm1' }, 0);

    const [first] = queue.receive(10, 0);
    expect(first?.receiveCount).toBe(1);
    expect(queue.receive(10, 29_999)).toEqual([]);
    const [again] = queue.receive(10, 30_000);

    if (again === undefined) throw new Error('the message did not come back');
    expect(again.messageId).toBe(first?.messageId);
    expect(queue.toRecord(again).attributes.ApproximateReceiveCount).toBe('2');
  });

  it('moves a message received maxReceiveCount times to the DLQ on the next receive, keeping its messageId', () => {
    const { queue, deadLetterQueue } = queues(false, 2);
    const sent = queue.send(
      { body: 'm1', attributes: { a: { DataType: 'String', StringValue: 'v' } } },
      0,
    );
    queue.receive(10, 0);
    queue.receive(10, 30_000);

    expect(queue.receive(10, 60_000)).toEqual([]);
    expect(deadLetterQueue.messages).toMatchObject([
      { messageId: sent?.messageId, body: 'm1', attributes: { a: { StringValue: 'v' } } },
    ]);
  });

  it('deletes by the latest receipt handle; with a stale one SQS may keep the message', () => {
    const { queue } = queues(false);
    queue.send({ body: 'm1' }, 0);
    const stale = queue.receive(10, 0)[0]?.receiptHandle ?? '';
    const latest = queue.receive(10, 30_000)[0]?.receiptHandle ?? '';

    queue.delete(stale, true);
    expect(queue.messages).toHaveLength(1);
    queue.delete(latest, true);
    expect(queue.messages).toHaveLength(0);
  });

  it('FIFO: delivers a group in order and blocks it while one of its messages is in flight', () => {
    const { queue } = queues(true, 5);
    queue.send({ body: 'a1', groupId: 'a', deduplicationId: 'a1' }, 0);
    queue.send({ body: 'b1', groupId: 'b', deduplicationId: 'b1' }, 0);
    queue.send({ body: 'a2', groupId: 'a', deduplicationId: 'a2' }, 0);

    const first = queue.receive(1, 0);
    expect(first.map((m) => m.body)).toEqual(['a1']);
    expect(queue.receive(10, 0).map((m) => m.body)).toEqual(['b1']);
    queue.delete(first[0]?.receiptHandle ?? '', false);
    expect(queue.receive(10, 0).map((m) => m.body)).toEqual(['a2']);
  });

  it('FIFO: drops a message whose deduplication id was sent in the last five minutes', () => {
    const { queue } = queues(true);

    expect(queue.send({ body: 'x', groupId: 'g', deduplicationId: 'd' }, 0)).toBeDefined();
    expect(queue.send({ body: 'x', groupId: 'g', deduplicationId: 'd' }, 299_999)).toBeUndefined();
    expect(queue.send({ body: 'x', groupId: 'g', deduplicationId: 'd' }, 300_000)).toBeDefined();
  });

  it('refuses, as SQS does, a FIFO message without a group or deduplication id and more than 10 attributes', () => {
    const { queue } = queues(true);
    const attributes = Object.fromEntries(
      Array.from({ length: 11 }, (_, n) => [`a${n}`, { DataType: 'String', StringValue: 'v' }]),
    );

    expect(() => queue.send({ body: 'm', deduplicationId: 'd' }, 0)).toThrow(/MessageGroupId/);
    expect(() => queue.send({ body: 'm', groupId: 'g' }, 0)).toThrow(
      expect.objectContaining({
        name: 'InvalidParameterValue',
        message: expect.stringMatching(/MessageDeduplicationId/),
      }),
    );
    expect(() =>
      queue.send({ body: 'm', groupId: 'g', deduplicationId: 'd', attributes }, 0),
    ).toThrow(/11 message attributes exceed the allowed maximum of 10/);
    expect(queue.messages).toEqual([]);
  });
});
