/**
 * One suite, two SQSs: the project's emulator (MiniStack) in real time and the simulation's
 * queues (tools/sim/sqs) in simulated time, with the same assertions on each, so the
 * simulation's visibility changes are held to what the emulator does. Where MiniStack differs
 * from AWS (no range or 12-hour check, a refused handle's error code, an expired handle that
 * hides its message again), the simulation follows AWS and the test is marked "known-different
 * on MiniStack": expected to fail there, so it tells when MiniStack changes. Windows are a few
 * seconds, with bounds loose enough for the emulator's real clock.
 */
import {
  ChangeMessageVisibilityBatchCommand,
  type ChangeMessageVisibilityBatchRequestEntry,
  ChangeMessageVisibilityCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caught } from '../support/dynamoTargets.js';
import { type ReceivedMessage, type SqsConnection, sqsTargets } from '../support/sqsTargets.js';

const POLL_MILLIS = 100;

describe.each(sqsTargets())('SQS visibility changes on $name', (target) => {
  /** A test MiniStack fails where it differs from AWS: expected to fail on MiniStack. */
  const knownDifferentOnMiniStack = target.name.startsWith('MiniStack') ? it.fails : it;
  let sqs: SqsConnection;
  beforeAll(() => {
    sqs = target.connect();
  });
  afterAll(() => sqs.close());

  /** A queue holding `bodies`, all received once: the queue and what the receive gave. */
  const receivedOnce = async (bodies: string[], visibilityTimeoutSeconds = 30, fifo = false) => {
    const url = await sqs.createQueue({ fifo, visibilityTimeoutSeconds });
    await sqs.send(url, bodies, fifo ? 'g1' : undefined);
    const received = await sqs.receive(url);
    expect(received.map((m) => m.body)).toEqual(bodies);
    return { url, received, handle: received[0]?.receiptHandle ?? '' };
  };
  const change = (QueueUrl: string, ReceiptHandle: string, VisibilityTimeout: number) =>
    sqs.sqs.send(
      new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle, VisibilityTimeout }),
    );
  const changeBatch = (QueueUrl: string, Entries: ChangeMessageVisibilityBatchRequestEntry[]) =>
    sqs.sqs.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl, Entries }));
  /** Polls until a receive gives messages or `withinMillis` passed: them, and when (from `fromMillis`). */
  const receiveWithin = async (url: string, fromMillis: number, withinMillis: number) => {
    let messages: ReceivedMessage[] = [];
    while (messages.length === 0 && sqs.nowMillis() - fromMillis < withinMillis) {
      await sqs.sleep(POLL_MILLIS);
      messages = await sqs.receive(url);
    }
    return {
      bodies: messages.map((m) => m.body),
      handles: messages.map((m) => m.receiptHandle),
      afterMillis: sqs.nowMillis() - fromMillis,
    };
  };

  it('hides the message for the timeout a change gives, counted from the change', async () => {
    const { url, handle } = await receivedOnce(['m1'], 1);
    const changedAtMillis = sqs.nowMillis();
    await change(url, handle, 3);

    const back = await receiveWithin(url, changedAtMillis, 6_000);
    expect(back.bodies).toEqual(['m1']);
    expect(back.afterMillis).toBeGreaterThanOrEqual(2_900);
    expect(back.afterMillis).toBeLessThan(4_500);
  });

  it('makes the message receivable at once with a timeout of 0', async () => {
    const { url, handle } = await receivedOnce(['m1']);
    await change(url, handle, 0);

    expect((await sqs.receive(url)).map((m) => m.body)).toEqual(['m1']);
  });

  it('FIFO: a delayed head blocks its group; followers released with 0 come back with it, in order', async () => {
    const { url, received } = await receivedOnce(['a1', 'a2', 'a3'], 30, true);
    const changedAtMillis = sqs.nowMillis();
    const entries = received.map((m, n) => ({
      Id: `e${n}`,
      ReceiptHandle: m.receiptHandle,
      VisibilityTimeout: n === 0 ? 2 : 0,
    }));
    const { Failed = [] } = await changeBatch(url, entries);
    expect(Failed).toEqual([]);

    expect(await sqs.receive(url)).toEqual([]);
    const back = await receiveWithin(url, changedAtMillis, 5_000);
    expect(back.bodies).toEqual(['a1', 'a2', 'a3']);
    expect(back.afterMillis).toBeGreaterThanOrEqual(1_900);
  });

  /** A message received twice (the first timeout ran out), hidden 30 s by the latest: its queue and first handle. */
  const receivedTwice = async () => {
    const { url, handle: stale } = await receivedOnce(['m1'], 1);
    const again = await receiveWithin(url, sqs.nowMillis(), 4_000);
    expect(again.bodies).toEqual(['m1']);
    await change(url, again.handles[0] ?? '', 30);
    return { url, stale };
  };

  it('refuses a handle whose message was received again since, leaving the message hidden', async () => {
    const { url, stale } = await receivedTwice();

    await expect(change(url, stale, 0)).rejects.toThrow();
    expect(await sqs.receive(url)).toEqual([]);
  });

  knownDifferentOnMiniStack(
    'refuses a handle whose message was received again since with InvalidParameterValue (known-different on MiniStack, which answers ReceiptHandleIsInvalid)',
    async () => {
      const { url, stale } = await receivedTwice();

      expect((await caught(change(url, stale, 0))).name).toBe('InvalidParameterValue');
    },
  );

  knownDifferentOnMiniStack(
    'refuses the handle of a deleted message with InvalidParameterValue (known-different on MiniStack, which answers ReceiptHandleIsInvalid)',
    async () => {
      const { url, handle } = await receivedOnce(['m1']);
      await sqs.delete(url, handle);

      expect((await caught(change(url, handle, 10))).name).toBe('InvalidParameterValue');
    },
  );

  it('refuses a handle the queue never issued with ReceiptHandleIsInvalid', async () => {
    const { url } = await receivedOnce(['m1']);

    expect((await caught(change(url, 'not-a-handle', 10))).name).toBe('ReceiptHandleIsInvalid');
  });

  knownDifferentOnMiniStack(
    'changes nothing with a handle whose timeout ran out, the message not received since (known-different on MiniStack, which hides the message again)',
    async () => {
      const { url, handle } = await receivedOnce(['m1'], 1);
      await sqs.sleep(1_500);
      await change(url, handle, 30);

      expect((await sqs.receive(url)).map((m) => m.body)).toEqual(['m1']);
    },
  );

  knownDifferentOnMiniStack(
    'refuses a timeout over 43200 seconds with InvalidParameterValue (known-different on MiniStack, which takes it)',
    async () => {
      const { url, handle } = await receivedOnce(['m1']);

      expect((await caught(change(url, handle, 43_201))).name).toBe('InvalidParameterValue');
    },
  );

  knownDifferentOnMiniStack(
    'refuses to hide a message more than 12 hours in all since its receive (known-different on MiniStack, which takes it)',
    async () => {
      const { url, handle } = await receivedOnce(['m1']);
      await sqs.sleep(1_100);

      const refused = await caught(change(url, handle, 43_200));
      expect(refused.name).toBe('InvalidParameterValue');
      expect(refused.message).toContain(
        'Total VisibilityTimeout for the message is beyond the limit',
      );
    },
  );

  it('applies each entry of a batch on its own and lists the refused ones in Failed with Id, Code and SenderFault', async () => {
    const { url, handle } = await receivedOnce(['m1']);

    const result = await changeBatch(url, [
      { Id: 'good', ReceiptHandle: handle, VisibilityTimeout: 0 },
      { Id: 'bad', ReceiptHandle: 'not-a-handle', VisibilityTimeout: 0 },
    ]);

    expect(result.Successful).toEqual([{ Id: 'good' }]);
    expect(result.Failed).toEqual([
      { Id: 'bad', Code: 'ReceiptHandleIsInvalid', SenderFault: true, Message: expect.any(String) },
    ]);
    expect((await sqs.receive(url)).map((m) => m.body)).toEqual(['m1']);
  });

  it.each([
    { entries: 11, ids: 'distinct', error: 'TooManyEntriesInBatchRequest' },
    { entries: 2, ids: 'repeated', error: 'BatchEntryIdsNotDistinct' },
    { entries: 0, ids: 'distinct', error: 'EmptyBatchRequest' },
  ])(
    'refuses a whole batch of $entries entries with $ids Ids: $error',
    async ({ entries, ids, error }) => {
      const { url, handle } = await receivedOnce(['m1']);
      const batch = Array.from({ length: entries }, (_, n) => ({
        Id: ids === 'repeated' ? 'same' : `e${n}`,
        ReceiptHandle: handle,
        VisibilityTimeout: 0,
      }));

      expect((await caught(changeBatch(url, batch))).name).toBe(error);
      expect(await sqs.receive(url)).toEqual([]);
    },
  );
});
