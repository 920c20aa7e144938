import { randomUUID } from 'node:crypto';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeadLetterSendError, MalformedEventError } from '../../src/errors.js';
import {
  createBatchProcessor,
  DynamoDBInboxStore,
  type MessageHandler,
  RecordStatus,
} from '../../src/index.js';
import { testAws } from '../harness/aws.js';
import { PaymentCaptured, payment } from '../support/ledgerFixture.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';

// Every kind of bad input, with its documented outcome: dead-lettered with the error's name, or
// a loud failure of the whole invocation. Either way nothing is lost: the message is in the DLQ
// or SQS redelivers it.
const aws = testAws();
let store: DynamoDBInboxStore;
let dlq: string;
let entries: string;

beforeAll(async () => {
  const [inbox, table] = await Promise.all([
    aws.createInboxTable(aws.uniqueName('bad-inbox')),
    aws.createTable(aws.uniqueName('bad-entries'), [['paymentId', 'HASH']]),
  ]);
  entries = table;
  store = new DynamoDBInboxStore({ tableName: inbox, client: aws.dynamodb });
  dlq = (await aws.createQueue(aws.uniqueName('bad-dlq'))).url;
});
afterAll(() => aws.cleanup());

const record: MessageHandler<PaymentCaptured> = ({ body }, tx) => {
  tx.put({
    TableName: entries,
    Item: { paymentId: body.paymentId, amountCents: body.amountCents },
  });
};
const oversizedTransaction: MessageHandler<PaymentCaptured> = ({ body }, tx) => {
  for (let i = 0; i < 100; i++)
    tx.put({ TableName: entries, Item: { paymentId: `${body.paymentId}-${i}` } });
};

function processor(handler: MessageHandler<PaymentCaptured> = record) {
  return createBatchProcessor(handler, {
    store,
    consumer: 'bad-input',
    schema: PaymentCaptured,
    key: ({ body }) => body.eventId,
    deadLetter: { queueUrl: dlq, client: aws.sqs },
    observability: { logger: recordingLogger() },
  });
}

async function takeDeadLetter(body: string) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const { Messages = [] } = await aws.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: dlq,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        MessageAttributeNames: ['All'],
      }),
    );
    for (const message of Messages) {
      await aws.sqs.send(
        new DeleteMessageCommand({ QueueUrl: dlq, ReceiptHandle: message.ReceiptHandle }),
      );
      if (message.Body === body) return message.MessageAttributes?.['inbox.error']?.StringValue;
    }
  }
  return undefined;
}

const event = () => payment({ accountId: `acc-${randomUUID()}` });

describe('bad input, table-driven', () => {
  it.each([
    { input: 'malformed JSON', body: () => '{"eventId": "evt-1", ', error: 'MessageParseError' },
    {
      input: 'a body failing the schema',
      body: () => JSON.stringify({ ...event(), amountCents: 0 }),
      error: 'SchemaValidationError',
    },
    {
      input: 'a missing key field',
      body: () => JSON.stringify({ ...event(), eventId: undefined }),
      error: 'SchemaValidationError',
    },
    {
      input: 'an unknown event type',
      body: () => JSON.stringify({ type: 'OrderShipped', orderId: 'o-1' }),
      error: 'SchemaValidationError',
    },
    {
      input: 'a JSON array instead of an event',
      body: () => '[1, 2, 3]',
      error: 'SchemaValidationError',
    },
  ])('dead-letters $input with $error and acknowledges it', async ({ body, error }) => {
    const raw = body();

    const [outcome] = await processor().processRecords(sqsEvent(sqsRecord(raw)));

    expect(outcome?.status).toBe(RecordStatus.DeadLettered);
    expect(await takeDeadLetter(raw)).toBe(error);
  });

  it('reports a body that is not valid Unicode (a lone surrogate) failed when SQS refuses it in the DLQ, so the redrive policy keeps it', async () => {
    const raw = '{"eventId": "\ud800"}';

    const [outcome] = await processor().processRecords(sqsEvent(sqsRecord(raw)));

    expect(outcome?.status).toBe(RecordStatus.Failed);
    expect(outcome?.error).toBeInstanceOf(DeadLetterSendError);
    expect(outcome?.error).toHaveProperty('cause');
  });

  it('dead-letters the same key with a different body as PayloadMismatchError, keeping the first effect', async () => {
    const first = event();
    await processor().process(sqsEvent(sqsRecord(first)));
    const altered = JSON.stringify({ ...first, amountCents: first.amountCents + 1 });

    const [outcome] = await processor().processRecords(sqsEvent(sqsRecord(altered)));

    expect(outcome?.status).toBe(RecordStatus.DeadLettered);
    expect(await takeDeadLetter(altered)).toBe('PayloadMismatchError');
    const { Item } = await aws.documentClient.send(
      new GetCommand({
        TableName: entries,
        Key: { paymentId: first.paymentId },
        ConsistentRead: true,
      }),
    );
    expect(Item).toMatchObject({ amountCents: first.amountCents });
  });

  it('dead-letters a message whose transaction exceeds the limits as TransactionLimitError', async () => {
    const raw = JSON.stringify(event());

    const [outcome] = await processor(oversizedTransaction).processRecords(
      sqsEvent(sqsRecord(raw)),
    );

    expect(outcome?.status).toBe(RecordStatus.DeadLettered);
    expect(await takeDeadLetter(raw)).toBe('TransactionLimitError');
  });

  it('processes an oversized but valid message (1 MiB, the SQS maximum): only its hash is stored', async () => {
    const big = { ...event(), note: 'x'.repeat(1024 * 1024 - 300) };

    const [outcome] = await processor().processRecords(sqsEvent(sqsRecord(big)));

    expect(outcome?.status).toBe(RecordStatus.Processed);
  });

  it('answers an empty batch with no failures', async () => {
    expect(await processor().process(sqsEvent())).toEqual({ batchItemFailures: [] });
  });

  it.each([
    { input: 'a non-SQS event', event: { source: 'aws.events', detail: {} } },
    {
      input: 'a record without a messageId',
      event: { Records: [{ ...sqsRecord('{}'), messageId: '' }] },
    },
    { input: 'undefined', event: undefined },
  ])(
    'fails the whole invocation on $input, so nothing is acknowledged by mistake',
    async ({ event: input }) => {
      await expect(processor().process(input)).rejects.toBeInstanceOf(MalformedEventError);
    },
  );
});
