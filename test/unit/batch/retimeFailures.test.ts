import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { InboxMetric } from '../../../src/constants/index.js';
import { LeaseHeldError, PermanentError } from '../../../src/errors.js';
import {
  createBatchProcessor,
  DynamoDBInboxStore,
  redriveUnsafeMessageIdKey,
} from '../../../src/index.js';
import { InMemoryDynamoDB } from '../../../src/testing/index.js';
import type { RetrySettings } from '../../../src/types.js';
import { fakeSqsClient } from '../../support/fakeSqsClient.js';
import { countingMetrics, recordingLogger, sqsEvent, sqsRecord } from '../../support/sqsRecords.js';

const NOW = 1_800_000_000_000;
const DLQ = 'https://sqs.us-east-1.amazonaws.com/000000000000/orders-dlq';

const visibilityCalls = (calls: ReturnType<typeof fakeSqsClient>['calls']) =>
  calls.filter(({ name }) => name === 'ChangeMessageVisibilityBatchCommand');

function processorFor(
  handler: (message: { readonly body: unknown }) => Promise<void>,
  settings: {
    retry?: RetrySettings;
    client: SQSClient;
    maxReceiveCount?: number;
    runtime?: object;
  },
) {
  const logger = recordingLogger();
  const metrics = countingMetrics();
  const processor = createBatchProcessor(handler, {
    store: new DynamoDBInboxStore({ tableName: 'inbox', client: inboxTable().documentClient }),
    consumer: 'unit',
    key: redriveUnsafeMessageIdKey,
    ...(settings.retry ? { retry: settings.retry } : {}),
    deadLetter: {
      queueUrl: DLQ,
      client: settings.client,
      maxReceiveCount: settings.maxReceiveCount ?? 10,
    },
    runtime: { now: () => NOW, random: () => 1, ...settings.runtime },
    performance: { precheck: 'off' },
    observability: { logger, metrics },
  });
  return { processor, logger, metrics };
}
const inboxTable = () =>
  new InMemoryDynamoDB({ now: () => NOW }).createTable({
    tableName: 'inbox',
    partitionKey: 'pk',
    timeToLiveAttribute: 'expiresAt',
  });

/** A runtime timer that fires only when the test calls what it kept. */
const manualTimer = (timers: Array<() => void>) => (_millis: number, fire: () => void) => {
  timers.push(fire);
  return () => {};
};
const failing = async () => {
  throw new Error('the partner API is down');
};
const backoff = { backoff: { firstDelaySeconds: 5, maxDelaySeconds: 60 } };

describe('a processor with retry', () => {
  it('changes no visibility at all without the retry group: the queue timeout times the retry, as before', async () => {
    const { calls, client } = fakeSqsClient();
    const { processor } = processorFor(failing, { client });
    const response = await processor.process(sqsEvent(sqsRecord({ n: 1 }, { receiveCount: 3 })));
    expect(response.batchItemFailures).toHaveLength(1);
    expect(calls).toEqual([]);
  });

  it('gives a retryable failure its backoff delay by receive count, reports it failed, logs and counts the delay', async () => {
    const { calls, client } = fakeSqsClient();
    const { processor, logger, metrics } = processorFor(failing, { client, retry: backoff });
    const record = sqsRecord({ n: 1 }, { receiveCount: 3 });

    const response = await processor.process(sqsEvent(record));

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(visibilityCalls(calls).map(({ input }) => input.Entries)).toEqual([
      [{ Id: '0', ReceiptHandle: record.receiptHandle, VisibilityTimeout: 20 }],
    ]);
    expect(metrics.count(InboxMetric.RetryDelaySeconds)).toBe(20);
    const line = logger.lines.find(({ message }) => message === 'message retry delayed');
    expect(line?.extra).toEqual({
      consumer: 'unit',
      messageId: record.messageId,
      delaySeconds: 20,
      cause: 'backoff',
    });
  });

  it("times a copy refused by a live lease by the lease's end plus the margin, even without backoff", async () => {
    const { calls, client } = fakeSqsClient();
    const held = async () => {
      throw new LeaseHeldError(NOW + 7_300, 'holder');
    };
    const { processor, metrics } = processorFor(held, { client, retry: {} });

    await processor.process(sqsEvent(sqsRecord({ n: 1 }, { receiveCount: 1 })));

    expect(visibilityCalls(calls).map(({ input }) => input.Entries)).toEqual([
      [expect.objectContaining({ VisibilityTimeout: 10 })],
    ]);
    expect(metrics.count(InboxMetric.LeaseHeldRetimed)).toBe(1);
  });

  it('leaves a last receive and a PermanentError whose dead-letter send failed (a fake SQS error) to the queue timeout', async () => {
    const { calls, client } = fakeSqsClient((name) =>
      name === 'SendMessageCommand' ? new Error('the DLQ is gone') : {},
    );
    const { processor } = processorFor(failing, { client, retry: backoff, maxReceiveCount: 3 });
    const lastReceive = sqsRecord({ n: 1 }, { receiveCount: 3 });

    const response = await processor.process(sqsEvent(lastReceive));
    expect(response.batchItemFailures).toHaveLength(1);
    const permanent = processorFor(
      async () => {
        throw new PermanentError('unknown account');
      },
      { client, retry: backoff },
    );
    await permanent.processor.process(sqsEvent(sqsRecord({ n: 2 })));

    expect(visibilityCalls(calls)).toEqual([]);
  });

  it('leaves a PermanentError without a dead-letter queue to the queue timeout and its redrive policy', async () => {
    const { calls, client } = fakeSqsClient();
    const processor = createBatchProcessor(
      async () => {
        throw new PermanentError('unknown account');
      },
      {
        store: new DynamoDBInboxStore({ tableName: 'inbox', client: inboxTable().documentClient }),
        consumer: 'unit',
        key: redriveUnsafeMessageIdKey,
        retry: { ...backoff, client },
        runtime: { now: () => NOW, random: () => 1 },
        performance: { precheck: 'off' },
        observability: { logger: recordingLogger(), metrics: false },
      },
    );
    const record = sqsRecord({ n: 1 }, { receiveCount: 2 });

    const response = await processor.process(sqsEvent(record));

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(calls).toEqual([]);
  });

  it('delays a failed FIFO head and releases the records skipped behind it in the same call', async () => {
    const { calls, client } = fakeSqsClient();
    const { processor } = processorFor(failing, { client, retry: backoff });
    const fifo = { groupId: 'g' };
    const records = [1, 2, 3].map((n) => sqsRecord({ n }, { fifo, receiveCount: 2 }));

    await processor.process(sqsEvent(...records));

    expect(visibilityCalls(calls).map(({ input }) => input.Entries)).toEqual([
      records.map((record, index) => ({
        Id: String(index),
        ReceiptHandle: record.receiptHandle,
        VisibilityTimeout: index === 0 ? 10 : 0,
      })),
    ]);
  });

  it('releases only the followers of a delayed FIFO head: a group whose head keeps the queue timeout keeps its followers in flight too', async () => {
    const { calls, client } = fakeSqsClient();
    const held = async ({ body }: { readonly body: unknown }) => {
      const { group } = body as { group: string };
      if (group === 'held') throw new LeaseHeldError(NOW + 7_300, 'holder');
      throw new Error('the partner API is down');
    };
    const { processor } = processorFor(held, { client, retry: {} });
    const records = ['held', 'held', 'down', 'down'].map((group, n) =>
      sqsRecord({ group, n }, { fifo: { groupId: group } }),
    );
    const [heldHead, heldFollower] = records;

    const response = await processor.process(sqsEvent(...records));

    expect(response.batchItemFailures).toHaveLength(4);
    expect(visibilityCalls(calls).map(({ input }) => input.Entries)).toEqual([
      [
        { Id: '0', ReceiptHandle: heldHead?.receiptHandle, VisibilityTimeout: 10 },
        { Id: '1', ReceiptHandle: heldFollower?.receiptHandle, VisibilityTimeout: 0 },
      ],
    ]);
  });

  it('leaves a record SQS refused to change (a fake refusing the entry) reported failed, logged once for the batch and counted', async () => {
    const { client } = fakeSqsClient((name) =>
      name === 'ChangeMessageVisibilityBatchCommand'
        ? {
            Failed: [
              { Id: '0', Code: 'ReceiptHandleIsInvalid' },
              { Id: '1', Code: 'ReceiptHandleIsInvalid' },
            ],
          }
        : {},
    );
    const { processor, logger, metrics } = processorFor(failing, { client, retry: backoff });

    const response = await processor.process(sqsEvent(sqsRecord({ n: 1 }), sqsRecord({ n: 2 })));

    expect(response.batchItemFailures).toHaveLength(2);
    const warned = logger.lines.filter(({ message }) =>
      message.startsWith('visibility changes failed'),
    );
    expect(warned.map(({ extra }) => extra)).toEqual([
      { consumer: 'unit', failed: 2, codes: { ReceiptHandleIsInvalid: 2 } },
    ]);
    expect(metrics.count(InboxMetric.VisibilityChangesFailed)).toBe(2);
    expect(metrics.count(InboxMetric.RetryDelaySeconds)).toBe(0);
  });

  it('changes no visibility when the batch answered at its deadline', async () => {
    const { calls, client } = fakeSqsClient();
    const timers: Array<() => void> = [];
    const { processor } = processorFor(() => new Promise<void>(() => {}), {
      client,
      retry: backoff,
      runtime: { startTimer: manualTimer(timers) },
    });
    const context = { getRemainingTimeInMillis: () => 60_000 } as Context;

    const answer = processor.process(sqsEvent(sqsRecord({ n: 1 })), context);
    await new Promise((resolve) => setTimeout(resolve, 10));
    for (const fire of timers) fire();

    expect((await answer).batchItemFailures).toHaveLength(1);
    expect(visibilityCalls(calls)).toEqual([]);
  });

  it('abandons a visibility change still running at the deadline (a fake SQS that never answers), and answers', async () => {
    const timers: Array<() => void> = [];
    let sent = () => {};
    const hanging = {
      send: () => {
        sent();
        return new Promise(() => {});
      },
    } as unknown as SQSClient;
    const { processor, metrics } = processorFor(failing, {
      client: hanging,
      retry: backoff,
      runtime: { startTimer: manualTimer(timers) },
    });
    const context = { getRemainingTimeInMillis: () => 60_000 } as Context;
    const calling = new Promise<void>((resolve) => (sent = resolve));

    const answer = processor.process(sqsEvent(sqsRecord({ n: 1 })), context);
    await calling;
    for (const fire of timers) fire();

    expect((await answer).batchItemFailures).toHaveLength(1);
    expect(metrics.count(InboxMetric.VisibilityChangesFailed)).toBe(1);
  });
});
