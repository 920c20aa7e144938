import { setTimeout as sleep } from 'node:timers/promises';
import {
  ChangeMessageVisibilityCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { InboxMetric } from '../../src/constants/index.js';
import {
  type BatchProcessor,
  createBatchProcessor,
  type InboxOptions,
  type MessageHandler,
} from '../../src/index.js';
import { startQueueMapping, toRecord } from '../../tools/local/LocalEventSourceMapping.js';
import { useLedger } from '../support/ledgerFixture.js';
import { countingMetrics, recordingLogger, sqsEvent } from '../support/sqsRecords.js';

const { aws, ledger } = useLedger();

type Queue = { url: string; arn: string };
type Body = { id: string };

/**
 * The event source mapping, locally ({@link startQueueMapping}), noting when each message id
 * was received, until `done()` or `timeoutMillis`; then it lets the batches in flight finish.
 */
async function runMapping(
  processor: BatchProcessor,
  queue: Queue,
  done: () => boolean,
  timeoutMillis = 60_000,
): Promise<Map<string, number[]>> {
  const receivedAt = new Map<string, number[]>();
  const received = ({ MessageId = '' }: Message) =>
    receivedAt.set(MessageId, [...(receivedAt.get(MessageId) ?? []), Date.now()]);
  const source = { queueUrl: queue.url, queueArn: queue.arn, batchSize: 10, maxConcurrency: 5 };
  const mapping = startQueueMapping(processor, { consumer: 'retry', ...source }, aws.sqs, {
    received,
  });
  const until = Date.now() + timeoutMillis;
  while (!done() && Date.now() < until) await sleep(50);
  await mapping.drain();
  return receivedAt;
}

const intervalsSeconds = (times: readonly number[]) =>
  times.slice(1).map((at, n) => (at - (times[n] ?? at)) / 1000);

function processorFor(handler: MessageHandler<unknown>, options: Partial<InboxOptions> = {}) {
  const metrics = countingMetrics();
  const logger = recordingLogger();
  const processor = createBatchProcessor(handler, {
    store: ledger.store,
    consumer: aws.uniqueName('retry'),
    key: ({ body }) => (body as Body).id,
    runtime: { random: () => 1 },
    observability: { logger, metrics },
    ...options,
  });
  return { processor, metrics, logger };
}

/** A handler failing transiently `failures` times, then committing. */
function flaky(failures: number) {
  let runs = 0;
  return async () => {
    runs += 1;
    if (runs <= failures) throw new Error(`the partner API is down (run ${runs})`);
  };
}

const send = (queue: Queue, id: string) =>
  aws.sqs.send(
    new SendMessageCommand({ QueueUrl: queue.url, MessageBody: JSON.stringify({ id }) }),
  );

describe('retry on the emulator', () => {
  it('receives a message failing transiently 3 times at growing intervals (1, 2, 4 s), then commits it once', async () => {
    const queue = await aws.createQueue(aws.uniqueName('retry-backoff'), {
      VisibilityTimeout: '30',
    });
    const { processor, metrics } = processorFor(flaky(3), {
      retry: { backoff: { firstDelaySeconds: 1, maxDelaySeconds: 8 }, client: aws.sqs },
    });
    await send(queue, aws.uniqueName('payment'));

    const receivedAt = await runMapping(
      processor,
      queue,
      () => metrics.count(InboxMetric.Processed) === 1,
    );

    const [times = []] = [...receivedAt.values()];
    const intervals = intervalsSeconds(times);
    console.log(
      `[retry] backoff on: receive intervals ${intervals.map((s) => `${s.toFixed(1)} s`).join(', ')}`,
    );
    expect(intervals).toHaveLength(3);
    expect(metrics.count(InboxMetric.Processed)).toBe(1);
    expect(metrics.count(InboxMetric.RetryDelaySeconds)).toBe(1 + 2 + 4);
    // Each wait at least its delay, and far below the queue's 30 s: no fixed rhythm.
    intervals.forEach((seconds, n) => {
      expect(seconds).toBeGreaterThanOrEqual(2 ** n - 0.3);
      expect(seconds).toBeLessThan(20);
    });
    expect(intervals[2]).toBeGreaterThan(intervals[0] ?? Number.POSITIVE_INFINITY);
  });

  it("keeps the old rhythm without retry: each failure waits the queue's visibility timeout", async () => {
    const queue = await aws.createQueue(aws.uniqueName('retry-off'), { VisibilityTimeout: '3' });
    const { processor, metrics } = processorFor(flaky(2));
    await send(queue, aws.uniqueName('payment'));

    const receivedAt = await runMapping(
      processor,
      queue,
      () => metrics.count(InboxMetric.Processed) === 1,
    );

    const intervals = intervalsSeconds([...receivedAt.values()][0] ?? []);
    console.log(
      `[retry] off: receive intervals ${intervals.map((s) => `${s.toFixed(1)} s`).join(', ')}`,
    );
    expect(intervals).toHaveLength(2);
    for (const seconds of intervals) expect(seconds).toBeGreaterThanOrEqual(2.7);
    expect(metrics.count(InboxMetric.RetryDelaySeconds)).toBe(0);
  });

  it("brings a copy refused by a live lease back within the holder's lease and margin, not the visibility timeout, as a duplicate", async () => {
    const queue = await aws.createQueue(aws.uniqueName('retry-lease'), { VisibilityTimeout: '30' });
    const { processor, metrics } = processorFor(
      async (message) => {
        await message.step('charge', () => sleep(3_000));
      },
      {
        retry: { leaseHeldMarginSeconds: 1, client: aws.sqs },
        reliability: { leaseMillis: 4_000 },
        // Lease owners are drawn from runtime.random: a constant would make the copies one owner.
        runtime: {},
      },
    );
    const id = aws.uniqueName('payment');
    await send(queue, id);
    // The copy a second later, in a batch of its own, while the first runs its step.
    const copy = sleep(1_000).then(() => send(queue, id));
    const settled = () =>
      metrics.count(InboxMetric.Processed) + metrics.count(InboxMetric.Duplicates) === 2;

    const receivedAt = await runMapping(processor, queue, settled);
    await copy;

    const refused = [...receivedAt.values()].find((times) => times.length === 2) ?? [];
    const [back = Number.POSITIVE_INFINITY] = intervalsSeconds(refused);
    console.log(
      `[retry] lease-held copy came back after ${back.toFixed(1)} s (lease 4 s, stored with 5 s for clock skew, + margin 1 s; visibility 30 s)`,
    );
    expect(metrics.count(InboxMetric.LeaseHeldRetimed)).toBe(1);
    expect(metrics.count(InboxMetric.Processed)).toBe(1);
    expect(metrics.count(InboxMetric.Duplicates)).toBe(1);
    expect(back).toBeLessThan(4 + 5 + 1 + 5);
  });

  it('leaves a record whose visibility SQS refuses (a stale receipt handle) reported failed, logged once and counted', async () => {
    const queue = await aws.createQueue(aws.uniqueName('retry-stale'), { VisibilityTimeout: '30' });
    const { processor, metrics, logger } = processorFor(flaky(1), {
      retry: { backoff: { firstDelaySeconds: 5, maxDelaySeconds: 60 }, client: aws.sqs },
    });
    await send(queue, aws.uniqueName('payment'));
    const receive = async () => {
      const { Messages = [] } = await aws.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queue.url,
          WaitTimeSeconds: 2,
          MessageSystemAttributeNames: ['All'],
        }),
      );
      return Messages;
    };
    const [first] = await receive();
    await aws.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queue.url,
        ReceiptHandle: first?.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    await receive(); // a new receive: the first handle is stale

    const response = await processor.process(sqsEvent(toRecord(first ?? {}, queue.arn)));

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: first?.MessageId }]);
    const warned = logger.lines.filter(({ message }) =>
      message.startsWith('visibility changes failed'),
    );
    expect(warned.map(({ extra }) => extra?.failed)).toEqual([1]);
    console.log(`[retry] refused change: ${JSON.stringify(warned[0]?.extra?.codes)}`);
    expect(metrics.count(InboxMetric.VisibilityChangesFailed)).toBe(1);
    expect(metrics.count(InboxMetric.RetryDelaySeconds)).toBe(0);
  });
});
