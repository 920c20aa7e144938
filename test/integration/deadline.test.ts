import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { RecordDeadlineError } from '../../src/errors.js';
import {
  createBatchProcessor,
  DynamoDBInboxStore,
  type InboxOptions,
  type InboxRuntime,
  type MessageHandler,
  RecordStatus,
  TimerPurpose,
} from '../../src/index.js';
import { toRecord } from '../../tools/local/LocalEventSourceMapping.js';
import { eventually } from '../support/eventually.js';
import { latch } from '../support/latch.js';
import { PaymentCaptured, payment, useLedger } from '../support/ledgerFixture.js';
import {
  hasSettled,
  manualRuntime,
  SETTLE_BOUND_MILLIS,
  settlesWithin,
} from '../support/manualRuntime.js';
import { letRedrivePolicyMove, queueWithRedrivePolicy, receiveOne } from '../support/redrive.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';
import { withOptions } from '../support/withOptions.js';

const { aws, ledger } = useLedger();
const lambdaContext = (remainingMillis: number) =>
  ({ getRemainingTimeInMillis: () => remainingMillis }) as unknown as Context;

/**
 * The test ledger's processor with a deadline margin, on the shared store and the system's
 * runtime unless given others.
 */
function ledgerProcessor(
  handler: MessageHandler<PaymentCaptured>,
  deadlineMarginMillis: number,
  given: { store?: DynamoDBInboxStore; runtime?: Partial<InboxRuntime> } = {},
) {
  return createBatchProcessor(handler, {
    store: given.store ?? ledger.store,
    consumer: 'deadline',
    schema: PaymentCaptured,
    key: ({ body }) => body.eventId,
    ...(given.runtime ? { runtime: given.runtime } : {}),
    reliability: { deadlineMarginMillis: deadlineMarginMillis },
    observability: { logger: recordingLogger() },
  });
}

/**
 * A client whose first request of one command is held until the test lets it go: `reached`
 * resolves when it is held, `release()` sends it, `landed` settles once it answered.
 */
function clientHolding(commandName: string) {
  const client = new DynamoDBClient({
    endpoint: aws.endpoints.dynamodb,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  let held = false;
  const [reached, reach] = latch();
  const [gate, release] = latch();
  const [landed, land] = latch();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== commandName || held) return next(args);
      held = true;
      reach();
      await gate;
      return next(args).finally(land);
    },
    { step: 'initialize', name: 'holdRequest', priority: 'high' },
  );
  return { client, reached, release, landed };
}

/** Waits until `logger` holds a line containing `text`, within {@link SETTLE_BOUND_MILLIS}. */
const logged = (logger: ReturnType<typeof recordingLogger>, text: string) =>
  eventually(
    `a log line saying "${text}"`,
    async () => logger.lines.some((line) => line.message.includes(text)),
    (found) => found,
    SETTLE_BOUND_MILLIS,
  );

/**
 * A processor for records on their last receive (`maxReceiveCount` 3) with a DLQ and no
 * deadline margin, on the shared store unless `overrides` say otherwise.
 */
function lastReceiveProcessor(
  deadLetterQueueUrl: string,
  handler: MessageHandler<unknown>,
  overrides: Partial<InboxOptions> = {},
) {
  return createBatchProcessor(
    handler,
    withOptions<InboxOptions>(
      {
        store: ledger.store,
        consumer: 'deadline',
        key: ({ messageId }) => messageId,
        deadLetter: { maxReceiveCount: 3, queueUrl: deadLetterQueueUrl, client: aws.sqs },
        reliability: { deadlineMarginMillis: 0 },
        observability: { logger: recordingLogger() },
      },
      overrides,
    ),
  );
}

/**
 * A handler that waits, once started, until the test lets it finish, then runs `then`:
 * a record still running when the test fires the deadline.
 */
function gatedHandler(then: () => void) {
  const [started, start] = latch();
  const [finished, finish] = latch();
  const run = async () => {
    start();
    await finished;
    then();
  };
  return { run, started, finish };
}

const release: Array<() => void> = [];
afterAll(() => {
  for (const resolve of release) resolve();
});

describe('a batch with a record that hangs', () => {
  it('answers at its deadline, before the Lambda timeout: the hanging record is reported failed, the others are acknowledged', async () => {
    const accountId = `acc-hang-${Math.random()}`;
    const [hanging, ...healthy] = [
      payment({ accountId }),
      payment({ accountId }),
      payment({ accountId }),
    ];
    let signalled: unknown;
    const clock = manualRuntime();
    const processor = ledgerProcessor(
      async (message, tx) => {
        if (message.body.eventId === hanging?.eventId) {
          message.signal.addEventListener('abort', () => {
            signalled = message.signal.reason;
          });
          await new Promise<void>((resolve) => release.push(resolve)); // never, during the test
        }
        await ledger.applyPayment(message, tx);
      },
      500,
      { runtime: clock.runtime },
    );
    const records = [hanging, ...healthy].map((event) => sqsRecord(event));

    const answer = processor.process(sqsEvent(...records), lambdaContext(2_000));
    const deadline = await settlesWithin(
      'the deadline timer',
      clock.started(TimerPurpose.Deadline),
    );
    const healthyCents = 2 * (healthy[0]?.amountCents ?? 0);
    await eventually(
      'the healthy records to commit',
      () => ledger.balanceOf(accountId),
      (cents) => cents === healthyCents,
      SETTLE_BOUND_MILLIS,
    );
    const answeredBeforeDeadline = await hasSettled(answer);
    clock.fire(deadline);
    const response = await settlesWithin('the batch answering at its deadline', answer);

    // The Lambda's 2 s less the 500 ms margin: the batch answers before the function times out.
    expect(deadline.millis).toBe(1_500);
    expect(answeredBeforeDeadline).toBe(false);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: records[0]?.messageId }]);
    expect(signalled).toBeInstanceOf(RecordDeadlineError);
    expect(await ledger.balanceOf(accountId)).toBe(healthyCents);
  });
});

describe('a record whose commit lands after the deadline', () => {
  it.each([
    {
      order: 'after its redelivered copy committed',
      copyFirst: true,
      copy: RecordStatus.Processed,
    },
    { order: 'before its redelivered copy runs', copyFirst: false, copy: RecordStatus.Duplicate },
  ])('is applied exactly once when it lands $order', async ({ copyFirst, copy: expected }) => {
    const late = clientHolding('TransactWriteItemsCommand');
    const clock = manualRuntime();
    const event = payment({ accountId: `acc-late-${Math.random()}` });
    const record = sqsRecord(event);
    const processor = ledgerProcessor(ledger.applyPayment, 1_000, {
      store: new DynamoDBInboxStore({ tableName: ledger.tables.inbox, client: late.client }),
      runtime: clock.runtime,
    });
    const redelivered = () =>
      processor.processRecords(sqsEvent({ ...record, messageId: `${record.messageId}-again` }));

    const answer = processor.processRecords(sqsEvent(record), lambdaContext(2_000));
    // Its commit is on its way when the deadline passes.
    await settlesWithin('the late request at its gate', late.reached);
    clock.fire(await settlesWithin('the deadline timer', clock.started(TimerPurpose.Deadline)));
    const [first] = await settlesWithin('the batch answering at its deadline', answer);
    const [copy] = copyFirst ? await redelivered() : [];
    late.release();
    await late.landed;
    const [copyAfter] = copyFirst ? [] : await redelivered();

    expect(first?.status).toBe(RecordStatus.Failed);
    expect(first?.error).toBeInstanceOf(RecordDeadlineError);
    expect((copy ?? copyAfter)?.status).toBe(expected);
    expect(await ledger.balanceOf(event.accountId)).toBe(event.amountCents);
    late.client.destroy();
  });

  it('does not start its commit once the deadline has passed (a handler that finishes late commits nothing)', async () => {
    const event = payment({ accountId: `acc-slow-${Math.random()}` });
    const clock = manualRuntime();
    const logger = recordingLogger();
    const [started, inHandler] = latch();
    const [finished, finish] = latch();
    const processor = createBatchProcessor(
      async (message, tx) => {
        inHandler();
        await finished;
        await ledger.applyPayment(message, tx);
      },
      {
        store: ledger.store,
        consumer: 'deadline',
        schema: PaymentCaptured,
        key: ({ body }) => body.eventId,
        runtime: clock.runtime,
        reliability: { deadlineMarginMillis: 1_000 },
        observability: { logger: logger },
      },
    );

    const answer = processor.processRecords(sqsEvent(sqsRecord(event)), lambdaContext(2_000));
    await started;
    clock.fire(await settlesWithin('the deadline timer', clock.started(TimerPurpose.Deadline)));
    const [outcome] = await settlesWithin('the batch answering at its deadline', answer);
    finish();
    await logged(logger, 'record settled after its batch answered at the deadline');

    expect(outcome?.error).toBeInstanceOf(RecordDeadlineError);
    expect(await ledger.balanceOf(event.accountId)).toBe(0);
    expect(await ledger.inboxEntry('deadline', event.eventId)).toBeUndefined();
  });

  it('is never dead-lettered, nor its failure recorded on its entry, when it fails after the batch answered, even on its last receive', async () => {
    const dlq = await aws.createQueue(aws.uniqueName('deadline-dlq'));
    const clock = manualRuntime();
    const logger = recordingLogger();
    const handler = gatedHandler(() => {
      throw new Error('the partner API timed out');
    });
    const processor = lastReceiveProcessor(dlq.url, handler.run, {
      runtime: clock.runtime,
      observability: { logger },
    });

    const record = sqsRecord({ n: 1 }, { receiveCount: 3 });
    const answer = processor.processRecords(sqsEvent(record), lambdaContext(100));
    await settlesWithin('the handler starting', handler.started);
    clock.fire(await settlesWithin('the deadline timer', clock.started(TimerPurpose.Deadline)));
    const [outcome] = await settlesWithin('the batch answering at its deadline', answer);
    handler.finish();
    await logged(logger, 'record settled after its batch answered at the deadline');

    expect(outcome?.error).toBeInstanceOf(RecordDeadlineError);
    expect(await aws.receive(dlq.url)).toHaveLength(0);
    expect(await ledger.inboxEntry('deadline', record.messageId)).toBeUndefined();
  });

  it('on its last receive, still running at the deadline, reaches the DLQ by the redrive policy without inbox.error, and its reason is logged at ERROR under the messageId the move keeps', async () => {
    const queues = await queueWithRedrivePolicy(aws, false, 1);
    await aws.sqs.send(new SendMessageCommand({ QueueUrl: queues.source.url, MessageBody: '{}' }));
    const received = await receiveOne(aws.sqs, queues.source.url);
    if (!received) throw new Error('the message did not arrive');
    const logger = recordingLogger();
    const clock = manualRuntime();
    const handler = gatedHandler(() => {});
    const processor = createBatchProcessor(handler.run, {
      store: ledger.store,
      consumer: 'deadline',
      key: ({ messageId }) => messageId,
      runtime: clock.runtime,
      deadLetter: { maxReceiveCount: 1, queueUrl: queues.dlq.url, client: aws.sqs },
      reliability: { deadlineMarginMillis: 0 },
      observability: { logger: logger },
    });

    const answer = processor.processRecords(
      sqsEvent(toRecord(received, queues.source.arn)),
      lambdaContext(100),
    );
    await settlesWithin('the handler starting', handler.started);
    clock.fire(await settlesWithin('the deadline timer', clock.started(TimerPurpose.Deadline)));
    const [outcome] = await settlesWithin('the batch answering at its deadline', answer);
    handler.finish();
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
    const late = clientHolding('GetItemCommand');
    const clock = manualRuntime();
    const logger = recordingLogger();
    const processor = lastReceiveProcessor(
      dlq.url,
      async () => {
        throw new Error('the partner API refused');
      },
      {
        store: new DynamoDBInboxStore({ tableName: ledger.store.tableName, client: late.client }),
        performance: { precheck: 'off' },
        observability: { logger },
        runtime: clock.runtime,
      },
    );

    const answer = processor.processRecords(
      sqsEvent(sqsRecord({ n: 2 }, { receiveCount: 3 })),
      lambdaContext(100),
    );
    await settlesWithin('the late request at its gate', late.reached);
    clock.fire(await settlesWithin('the deadline timer', clock.started(TimerPurpose.Deadline)));
    const [outcome] = await settlesWithin('the batch answering at its deadline', answer);
    late.release();
    await late.landed;
    // On its last receive: the redrive policy moves it without a reason, which this line holds.
    await logged(logger, 'the redrive policy moves it to the dead-letter queue without a reason');

    expect(outcome).toMatchObject({ status: RecordStatus.Failed });
    expect(await aws.receive(dlq.url)).toHaveLength(0);
    expect(logger.lines.find((line) => line.level === 'error')?.message).toContain(
      'the redrive policy moves it to the dead-letter queue without a reason',
    );
    late.client.destroy();
  });
});
