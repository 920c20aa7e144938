import { setTimeout as sleep } from 'node:timers/promises';
import {
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { DeadLetterAttribute } from '../../src/constants/index.js';
import { type BatchProcessor, createBatchProcessor, RecordStatus } from '../../src/index.js';
import { toRecord } from '../../tools/local/LocalEventSourceMapping.js';
import { useLedger } from '../support/ledgerFixture.js';
import { queueWithRedrivePolicy } from '../support/redrive.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';

const { aws, ledger } = useLedger();

type Step = { id: string; fail?: boolean };

/** One poll as the event source mapping does it: receive, process, delete what succeeded. */
async function pollOnce(processor: BatchProcessor, queue: { url: string; arn: string }) {
  const { Messages = [] } = await aws.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queue.url,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 2,
      MessageSystemAttributeNames: ['All'],
    }),
  );
  const response = await processor.process(
    sqsEvent(...Messages.map((m) => toRecord(m, queue.arn))),
  );
  const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
  for (const message of Messages.filter((m) => !failed.has(m.MessageId ?? ''))) {
    await aws.sqs.send(
      new DeleteMessageCommand({ QueueUrl: queue.url, ReceiptHandle: message.ReceiptHandle }),
    );
  }
  return Messages.length;
}

describe('a message that keeps failing, on its last receive (maxReceiveCount)', () => {
  it('is dead-lettered by the library with its reason, and its healthy FIFO followers go on in order — none is moved by SQS', async () => {
    const queues = await queueWithRedrivePolicy(aws, true, 2);
    const applied: string[] = [];
    const processor = createBatchProcessor<never>(
      async ({ body }) => {
        const step = body as unknown as Step;
        if (step.fail) throw new Error('the partner API is down');
        applied.push(step.id);
      },
      {
        store: ledger.store,
        consumer: 'last-receive',
        key: ({ body }) => (body as unknown as Step).id,
        deadLetter: { maxReceiveCount: 2, queueUrl: queues.dlq.url, client: aws.sqs },
        observability: { logger: recordingLogger() },
      },
    );
    const send = (step: Step) =>
      aws.sqs.send(
        new SendMessageCommand({
          QueueUrl: queues.source.url,
          MessageBody: JSON.stringify(step),
          MessageGroupId: 'g',
          MessageDeduplicationId: step.id,
        }),
      );
    const run = `${Date.now()}`;
    for (const step of [
      { id: `m1-${run}`, fail: true },
      { id: `m2-${run}` },
      { id: `m3-${run}` },
    ]) {
      await send(step);
    }

    await pollOnce(processor, queues.source); // m1 fails, m2 and m3 wait behind it
    await sleep(1_200);
    await pollOnce(processor, queues.source); // m1's last receive
    await send({ id: `m4-${run}` });
    await sleep(1_200);
    while ((await pollOnce(processor, queues.source)) > 0) await sleep(1_200);

    expect(applied).toEqual([`m2-${run}`, `m3-${run}`, `m4-${run}`]);
    const Messages = await aws.receive(queues.dlq.url);
    expect(Messages.map((m) => JSON.parse(m.Body ?? '{}').id)).toEqual([`m1-${run}`]);
    expect(Messages[0]?.MessageAttributes?.[DeadLetterAttribute.Error]?.StringValue).toBe('Error');
    expect(Messages[0]?.MessageAttributes?.[DeadLetterAttribute.ErrorMessage]?.StringValue).toBe(
      'the partner API is down',
    );
  });

  it('is reported failed before its last receive, and a standard-queue record on its last receive gets its reason too', async () => {
    const dlq = await aws.createQueue(aws.uniqueName('last-receive-dlq'));
    const processor = createBatchProcessor(
      async () => {
        throw new Error('still down');
      },
      {
        store: ledger.store,
        consumer: 'last-receive',
        key: ({ messageId }) => messageId,
        deadLetter: { maxReceiveCount: 3, queueUrl: dlq.url, client: aws.sqs },
        observability: { logger: recordingLogger() },
      },
    );

    const outcomes = await processor.processRecords(
      sqsEvent(sqsRecord({ n: 1 }, { receiveCount: 2 }), sqsRecord({ n: 2 }, { receiveCount: 3 })),
    );

    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      RecordStatus.Failed,
      RecordStatus.DeadLettered,
    ]);
  });

  it('is acknowledged as a duplicate, not dead-lettered, when its key already committed with this body', async () => {
    const dlq = await aws.createQueue(aws.uniqueName('last-receive-committed-dlq'));
    let runs = 0;
    const processor = createBatchProcessor(
      async () => {
        runs++;
        if (runs > 1) throw new Error('the partner API is down');
      },
      {
        store: ledger.store,
        consumer: 'last-receive',
        key: ({ body }) => (body as { id: string }).id,
        performance: { precheck: 'off' },
        deadLetter: { maxReceiveCount: 3, queueUrl: dlq.url, client: aws.sqs },
        observability: { logger: recordingLogger() },
      },
    );
    const body = { id: `committed-${Math.random()}` };

    // Committed on an earlier receive, then never acknowledged (a crash before the delete).
    const [first] = await processor.processRecords(sqsEvent(sqsRecord(body, { receiveCount: 1 })));
    const [last] = await processor.processRecords(sqsEvent(sqsRecord(body, { receiveCount: 3 })));

    expect(first?.status).toBe(RecordStatus.Processed);
    expect(last?.status).toBe(RecordStatus.Duplicate);
    expect(await aws.receive(dlq.url)).toHaveLength(0);
  });
});
