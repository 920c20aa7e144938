import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { DeadLetterAttribute, keyHash } from '../../src/constants/index.js';
import { DeadLetterSendError } from '../../src/errors.js';
import {
  createBatchProcessor,
  type InboxOptions,
  PermanentError,
  processSqsBatch,
  RecordStatus,
} from '../../src/index.js';
import { PaymentCaptured, payment, useLedger } from '../support/ledgerFixture.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';
import { withOptions } from '../support/withOptions.js';

const { aws, ledger } = useLedger();
let dlq: { url: string; arn: string };
let fifoDlq: { url: string; arn: string };

beforeAll(async () => {
  dlq = await aws.createQueue(aws.uniqueName('ledger-dlq'));
  fifoDlq = await aws.createQueue(`${aws.uniqueName('ledger-dlq')}.fifo`);
});

function options(
  overrides: Partial<InboxOptions<typeof PaymentCaptured>> = {},
): InboxOptions<typeof PaymentCaptured> {
  return withOptions<InboxOptions<typeof PaymentCaptured>>(
    {
      store: ledger.store,
      consumer: 'ledger',
      schema: PaymentCaptured,
      key: ({ body }) => body.eventId,
      observability: { logger: recordingLogger() },
      deadLetter: { queueUrl: dlq.url, client: aws.sqs },
    },
    overrides,
  );
}

/** Receives and deletes what the queue holds, so each test sees only its own messages. */
async function receiveAll(queueUrl: string) {
  const { Messages = [] } = await aws.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      MessageAttributeNames: ['All'],
      WaitTimeSeconds: 1,
    }),
  );
  for (const { ReceiptHandle } of Messages) {
    await aws.sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle }));
  }
  return Messages;
}

const rejectingHandler = async () => {
  throw new PermanentError('account acc-closed is closed');
};

describe('permanent failures with a dead-letter queue', () => {
  it('dead-letters a reason SQS would refuse as-is (an emoji across the 1,024-byte cut, a control character), cut on a code point and cleaned', async () => {
    // 1,023 UTF-16 units before the emoji: a cut at 1,024 units would leave half of it.
    const reason = `a\u0000b${'x'.repeat(1020)}💥 and more`;
    const event = payment({ accountId: 'acc-dlq-emoji' });
    const handler = async () => {
      throw new PermanentError(reason);
    };

    const [outcome] = await createBatchProcessor(handler, options()).processRecords(
      sqsEvent(sqsRecord(event)),
    );

    expect(outcome?.status).toBe(RecordStatus.DeadLettered);
    const [message] = await receiveAll(dlq.url);
    const stored = message?.MessageAttributes?.[DeadLetterAttribute.ErrorMessage]?.StringValue;
    expect(stored).toBe(`a\uFFFDb${'x'.repeat(1019)}`);
    expect(Buffer.byteLength(stored ?? '')).toBeLessThanOrEqual(1024);
  });

  it.each([
    {
      case: 'a PermanentError from the handler',
      body: payment({ accountId: 'acc-closed' }),
      error: 'PermanentError',
    },
    {
      case: 'a body failing the schema',
      body: { eventId: 'evt-bad', amountCents: -5 },
      error: 'SchemaValidationError',
    },
    { case: 'a body that is not JSON', body: '{"eventId": ', error: 'MessageParseError' },
  ])(
    'sends $case to the DLQ with attributes naming the error, then acknowledges it',
    async ({ body, error }) => {
      const record = sqsRecord(body);

      const response = await processSqsBatch(sqsEvent(record), rejectingHandler, options());

      expect(response.batchItemFailures).toEqual([]);
      const [message] = await receiveAll(dlq.url);
      expect(message?.Body).toBe(record.body);
      expect(message?.MessageAttributes?.[DeadLetterAttribute.Error]?.StringValue).toBe(error);
      expect(message?.MessageAttributes?.[DeadLetterAttribute.Consumer]?.StringValue).toBe(
        'ledger',
      );
      expect(message?.MessageAttributes?.[DeadLetterAttribute.OriginalMessageId]?.StringValue).toBe(
        record.messageId,
      );
      expect(message?.MessageAttributes?.[DeadLetterAttribute.ErrorMessage]?.StringValue).toMatch(
        /\S/,
      );
    },
  );

  it('sends a payload mismatch to the DLQ and leaves the first effect as it was', async () => {
    const event = payment({ accountId: 'acc-dlq-mismatch' });
    await processSqsBatch(sqsEvent(sqsRecord(event)), ledger.applyPayment, options());

    const altered = sqsRecord({ ...event, amountCents: 1 });
    const response = await processSqsBatch(sqsEvent(altered), ledger.applyPayment, options());

    expect(response.batchItemFailures).toEqual([]);
    const [message] = await receiveAll(dlq.url);
    expect(message?.MessageAttributes?.[DeadLetterAttribute.Error]?.StringValue).toBe(
      'PayloadMismatchError',
    );
    expect(message?.MessageAttributes?.[DeadLetterAttribute.KeyHash]?.StringValue).toBe(
      keyHash(event.eventId),
    );
    expect(await ledger.balanceOf('acc-dlq-mismatch')).toBe(event.amountCents);
  });

  it('keeps the message group on a FIFO dead-letter queue', async () => {
    const record = sqsRecord(payment(), { fifo: { groupId: 'acc-fifo-dlq' } });

    await processSqsBatch(
      sqsEvent(record),
      rejectingHandler,
      options({ deadLetter: { queueUrl: fifoDlq.url } }),
    );

    const { Messages = [] } = await aws.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: fifoDlq.url,
        MessageSystemAttributeNames: ['All'],
        WaitTimeSeconds: 1,
      }),
    );
    expect(Messages[0]?.Attributes?.MessageGroupId).toBe('acc-fifo-dlq');
    expect(Messages[0]?.Attributes?.MessageDeduplicationId).toBe(record.messageId);
  });

  it('reports the record failed, so nothing is lost, when the DLQ send fails', async () => {
    const missingQueue = dlq.url.replace(/[^/]+$/, 'no-such-queue-for-sqs-inbox');
    const processor = createBatchProcessor(
      rejectingHandler,
      options({ deadLetter: { queueUrl: missingQueue } }),
    );

    const [outcome] = await processor.processRecords(sqsEvent(sqsRecord(payment())));

    expect(outcome?.status).toBe(RecordStatus.Failed);
    expect(outcome?.error).toBeInstanceOf(DeadLetterSendError);
  });
});

describe('the dead-letter queue is only for permanent failures', () => {
  it('reports a retryable handler error as failed and leaves the DLQ empty', async () => {
    const quietDlq = await aws.createQueue(aws.uniqueName('quiet-dlq'));
    const record = sqsRecord(payment());
    let handlerRuns = 0;

    const response = await processSqsBatch(
      sqsEvent(record),
      async () => {
        handlerRuns++;
        throw new Error('downstream timeout');
      },
      options({ deadLetter: { queueUrl: quietDlq.url } }),
    );

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(handlerRuns).toBe(1);
    expect(await receiveAll(quietDlq.url)).toEqual([]);
  });

  it('runs a PermanentError handler once: permanent failures are not retried in the invocation', async () => {
    let handlerRuns = 0;

    await processSqsBatch(
      sqsEvent(sqsRecord(payment())),
      async () => {
        handlerRuns++;
        throw new PermanentError('no');
      },
      options(),
    );

    expect(handlerRuns).toBe(1);
    await receiveAll(dlq.url);
  });

  it('lets a FIFO group go on after one of its records is dead-lettered', async () => {
    const bodies = [
      payment({ accountId: 'acc-fifo-go-on' }),
      payment({ accountId: 'acc-fifo-go-on' }),
    ];
    const records = bodies.map((body) => sqsRecord(body, { fifo: { groupId: 'acc-fifo-go-on' } }));
    const first = bodies[0]?.paymentId;

    const outcomes = await createBatchProcessor(
      async (message, tx) => {
        if (message.body.paymentId === first) throw new PermanentError('rejected');
        await ledger.applyPayment(message, tx);
      },
      options({ deadLetter: { queueUrl: fifoDlq.url } }),
    ).processRecords(sqsEvent(...records));

    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      RecordStatus.DeadLettered,
      RecordStatus.Processed,
    ]);
    expect(await ledger.balanceOf('acc-fifo-go-on')).toBe(bodies[1]?.amountCents);
  });

  it('copies the original message attributes beside its own, within SQS’s ten', async () => {
    const record = {
      ...sqsRecord(payment()),
      messageAttributes: {
        tenant: {
          dataType: 'String',
          stringValue: 'acme',
          stringListValues: [],
          binaryListValues: [],
        },
        traceparent: {
          dataType: 'String',
          stringValue: '00-abc-01',
          stringListValues: [],
          binaryListValues: [],
        },
      },
    };

    await processSqsBatch(sqsEvent(record), rejectingHandler, options());

    const [message] = await receiveAll(dlq.url);
    expect(message?.MessageAttributes?.tenant?.StringValue).toBe('acme');
    expect(message?.MessageAttributes?.traceparent?.StringValue).toBe('00-abc-01');
    expect(message?.MessageAttributes?.[DeadLetterAttribute.Error]?.StringValue).toBe(
      'PermanentError',
    );
  });
});

describe('permanent failures without a dead-letter queue', () => {
  it('reports the record failed so the queue redrive policy takes over', async () => {
    const record = sqsRecord(payment());
    const logger = recordingLogger();

    const response = await processSqsBatch(
      sqsEvent(record),
      rejectingHandler,
      options({
        deadLetter: undefined,
        observability: { logger: logger },
      }),
    );

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(
      logger.lines.some((line) => line.level === 'error' && line.message.includes('redrive')),
    ).toBe(true);
  });
});
