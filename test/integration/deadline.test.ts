import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createBatchProcessor,
  DynamoDBInboxStore,
  type MessageHandler,
  RecordDeadlineError,
  RecordStatus,
} from '../../src/index.js';
import { toRecord } from '../../tools/local/LocalEventSourceMapping.js';
import { PaymentCaptured, payment, useLedger } from '../support/ledgerFixture.js';
import { letRedrivePolicyMove, queueWithRedrivePolicy, receiveOne } from '../support/redrive.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';

const { aws, ledger } = useLedger();
const lambdaContext = (remainingMillis: number) =>
  ({ getRemainingTimeInMillis: () => remainingMillis }) as unknown as Context;

/** The test ledger's processor with a deadline margin, on the shared store unless given one. */
function ledgerProcessor(
  handler: MessageHandler<PaymentCaptured>,
  deadlineMarginMillis: number,
  store = ledger.store,
) {
  return createBatchProcessor(handler, {
    store,
    consumer: 'deadline',
    schema: PaymentCaptured,
    key: ({ body }) => body.eventId,
    deadlineMarginMillis,
    logger: recordingLogger(),
  });
}

/** A client whose next TransactWriteItems waits `delayMillis` before it is sent. */
function clientWithLateCommit(delayMillis: number) {
  return clientWithLate('TransactWriteItemsCommand', delayMillis);
}

/** A client whose next request of one command waits `delayMillis` before it is sent. */
function clientWithLate(commandName: string, delayMillis: number) {
  const client = new DynamoDBClient({
    endpoint: aws.endpoints.dynamodb,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  let delayed = false;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === commandName && !delayed) {
        delayed = true;
        await sleep(delayMillis);
      }
      return next(args);
    },
    { step: 'initialize', name: 'lateCommit', priority: 'high' },
  );
  return client;
}

/**
 * A processor for records on their last receive (`maxReceiveCount` 3) with a DLQ and no
 * deadline margin, on the shared store unless `overrides` say otherwise.
 */
function lastReceiveProcessor(
  deadLetterQueueUrl: string,
  handler: MessageHandler<unknown>,
  overrides: {
    store?: DynamoDBInboxStore;
    precheck?: boolean;
    logger?: ReturnType<typeof recordingLogger>;
  } = {},
) {
  return createBatchProcessor(handler, {
    store: ledger.store,
    consumer: 'deadline',
    key: ({ messageId }) => messageId,
    maxReceiveCount: 3,
    deadLetterQueueUrl,
    sqsClient: aws.sqs,
    deadlineMarginMillis: 0,
    logger: recordingLogger(),
    ...overrides,
  });
}

const release: Array<() => void> = [];
afterAll(() => {
  for (const resolve of release) resolve();
});

describe('a batch with a record that hangs', () => {
  it('answers before the Lambda timeout: the hanging record is reported failed, the others are acknowledged', async () => {
    const accountId = `acc-hang-${Math.random()}`;
    const [hanging, ...healthy] = [
      payment({ accountId }),
      payment({ accountId }),
      payment({ accountId }),
    ];
    let signalled: unknown;
    const processor = ledgerProcessor(async (message, tx) => {
      if (message.body.eventId === hanging?.eventId) {
        message.signal.addEventListener('abort', () => {
          signalled = message.signal.reason;
        });
        await new Promise<void>((resolve) => release.push(resolve)); // never, during the test
      }
      await ledger.applyPayment(message, tx);
    }, 500);
    const records = [hanging, ...healthy].map((event) => sqsRecord(event));
    const started = performance.now();

    const response = await processor.process(sqsEvent(...records), lambdaContext(2_000));
    const elapsedMillis = performance.now() - started;

    expect(elapsedMillis).toBeLessThan(2_000);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: records[0]?.messageId }]);
    expect(signalled).toBeInstanceOf(RecordDeadlineError);
    expect(await ledger.balanceOf(accountId)).toBe(2 * (healthy[0]?.amountCents ?? 0));
  });
});

describe('a record whose commit lands after the deadline', () => {
  it.each([
    {
      order: 'after its redelivered copy committed',
      copyAtMillis: 1_100,
      copy: RecordStatus.Processed,
    },
    {
      order: 'before its redelivered copy runs',
      copyAtMillis: 2_500,
      copy: RecordStatus.Duplicate,
    },
  ])('is applied exactly once when it lands $order', async ({ copyAtMillis, copy: expected }) => {
    const client = clientWithLateCommit(1_500);
    const event = payment({ accountId: `acc-late-${Math.random()}` });
    const record = sqsRecord(event);
    const processor = ledgerProcessor(
      ledger.applyPayment,
      1_000,
      new DynamoDBInboxStore({ tableName: ledger.tables.inbox, client }),
    );
    const started = performance.now();

    const [first] = await processor.processRecords(sqsEvent(record), lambdaContext(2_000));
    await sleep(Math.max(0, copyAtMillis - (performance.now() - started)));
    const [copy] = await processor.processRecords(
      sqsEvent({ ...record, messageId: `${record.messageId}-again` }),
    );
    await sleep(Math.max(0, 2_000 - (performance.now() - started)));

    expect(first?.status).toBe(RecordStatus.Failed);
    expect(first?.error).toBeInstanceOf(RecordDeadlineError);
    expect(copy?.status).toBe(expected);
    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
    client.destroy();
  });

  it('does not start its commit once the deadline has passed (a handler that finishes late commits nothing)', async () => {
    const event = payment({ accountId: `acc-slow-${Math.random()}` });
    const processor = ledgerProcessor(async (message, tx) => {
      await sleep(1_300);
      await ledger.applyPayment(message, tx);
    }, 1_000);

    const [outcome] = await processor.processRecords(
      sqsEvent(sqsRecord(event)),
      lambdaContext(2_000),
    );
    await sleep(800);

    expect(outcome?.error).toBeInstanceOf(RecordDeadlineError);
    expect(await ledger.balanceOf(event.accountId)).toBe(0);
    expect(await ledger.inboxEntry('deadline', event.eventId)).toBeUndefined();
  });

  it('is never dead-lettered when it fails after the batch answered, even on its last receive', async () => {
    const dlq = await aws.createQueue(aws.uniqueName('deadline-dlq'));
    const processor = lastReceiveProcessor(dlq.url, async () => {
      await sleep(300);
      throw new Error('the partner API timed out');
    });

    const [outcome] = await processor.processRecords(
      sqsEvent(sqsRecord({ n: 1 }, { receiveCount: 3 })),
      lambdaContext(100),
    );
    await sleep(500);

    expect(outcome?.error).toBeInstanceOf(RecordDeadlineError);
    expect(await aws.receive(dlq.url)).toHaveLength(0);
  });

  it('on its last receive, still running at the deadline, reaches the DLQ by the redrive policy without inbox.error, and its reason is logged at ERROR under the messageId the move keeps', async () => {
    const queues = await queueWithRedrivePolicy(aws, false, 1);
    await aws.sqs.send(new SendMessageCommand({ QueueUrl: queues.source.url, MessageBody: '{}' }));
    const received = await receiveOne(aws.sqs, queues.source.url);
    if (!received) throw new Error('the message did not arrive');
    const logger = recordingLogger();
    const processor = createBatchProcessor(
      async () => {
        await sleep(300);
      },
      {
        store: ledger.store,
        consumer: 'deadline',
        key: ({ messageId }) => messageId,
        maxReceiveCount: 1,
        deadLetterQueueUrl: queues.dlq.url,
        sqsClient: aws.sqs,
        deadlineMarginMillis: 0,
        logger,
      },
    );

    const [outcome] = await processor.processRecords(
      sqsEvent(toRecord(received, queues.source.arn)),
      lambdaContext(100),
    );
    const moved = await letRedrivePolicyMove(aws.sqs, queues);

    expect(outcome?.error).toBeInstanceOf(RecordDeadlineError);
    expect(moved.MessageId).toBe(received.MessageId);
    expect(moved.MessageAttributes?.['inbox.error']).toBeUndefined();
    const line = logger.lines.find((entry) => entry.level === 'error');
    expect(line?.message).toContain('redrive policy moves it to the dead-letter queue');
    expect(line?.extra).toMatchObject({
      messageId: received.MessageId,
      error: expect.any(RecordDeadlineError),
    });
  });

  it('is never dead-lettered when the batch answers while its failure is being settled (the inbox read answering late)', async () => {
    const dlq = await aws.createQueue(aws.uniqueName('deadline-dlq'));
    // The read before dead-lettering (whether the key committed) answers after the deadline.
    const client = clientWithLate('GetItemCommand', 400);
    const logger = recordingLogger();
    const processor = lastReceiveProcessor(
      dlq.url,
      async () => {
        throw new Error('the partner API refused');
      },
      {
        store: new DynamoDBInboxStore({ tableName: ledger.store.tableName, client }),
        precheck: false,
        logger,
      },
    );

    const [outcome] = await processor.processRecords(
      sqsEvent(sqsRecord({ n: 2 }, { receiveCount: 3 })),
      lambdaContext(100),
    );
    await sleep(800);

    expect(outcome).toMatchObject({ status: RecordStatus.Failed });
    expect(await aws.receive(dlq.url)).toHaveLength(0);
    // On its last receive: the redrive policy moves it without a reason, which this line holds.
    expect(logger.lines.find((line) => line.level === 'error')?.message).toContain(
      'the redrive policy moves it to the dead-letter queue without a reason',
    );
  });
});
