import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateEmailIdentityCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  emailSubject,
  notifierConsumer,
  type PaymentNotification,
  receiptKey,
} from '../../functions/notifier/paymentNotification.js';
import {
  InboxStatus,
  inboxPk,
  LEASE_LIMITS,
  stepIdempotencyKey,
} from '../../src/constants/index.js';
import { createBatchProcessor, DynamoDBInboxStore, RecordStatus } from '../../src/index.js';
import { testAws } from '../harness/aws.js';
import { recordingLogger, sqsEvent, sqsRecord } from '../support/sqsRecords.js';

const aws = testAws();
const local = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
};
const ses = new SESv2Client({ ...local, endpoint: aws.endpoints.sqs });
const s3 = new S3Client({ ...local, endpoint: aws.endpoints.sqs, forcePathStyle: true });
const sender = `receipts-${randomUUID().slice(0, 8)}@shop.example`;
const tables = { inbox: aws.uniqueName('inbox'), notifications: aws.uniqueName('notifications') };
let bucket = '';

beforeAll(async () => {
  bucket = aws.uniqueName('receipts');
  await Promise.all([
    aws.createInboxTable(tables.inbox),
    aws.createTable(tables.notifications, [['eventId', 'HASH']]),
    s3.send(new CreateBucketCommand({ Bucket: bucket })),
    ses.send(new CreateEmailIdentityCommand({ EmailIdentity: sender })),
  ]);
});
afterAll(() => aws.cleanup());

/** The emails MiniStack's SES has sent for one event (matched by the subject's event id). */
async function emailsOf(eventId: string): Promise<Array<{ Subject?: string; BodyText?: string }>> {
  const response = await fetch(`${aws.endpoints.sqs}/_ministack/ses/messages`);
  const { messages } = (await response.json()) as {
    messages: Record<string, Array<{ Subject?: string; BodyText?: string }>>;
  };
  return Object.values(messages)
    .flat()
    .filter((message) => message.Subject?.includes(`(${eventId})`));
}

/** A DynamoDB client whose journal write of `stepName` fails `times` times with a 500. */
/**
 * A client on which every write that would journal `stepName` fails with a 5xx: the step's own
 * journal write, and the release that carries its result in hand. Nothing of the step reaches
 * the entry, as if the attempt crashed right after the effect.
 */
function clientLosingJournalOf(stepName: string) {
  const client = new DynamoDBClient({ ...local, endpoint: aws.endpoints.dynamodb, maxAttempts: 1 });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = (args as { input?: { ExpressionAttributeNames?: Record<string, string> } })
        .input;
      const names = Object.values(input?.ExpressionAttributeNames ?? {});
      if (context.commandName === 'UpdateItemCommand' && names.includes(stepName)) {
        throw Object.assign(new Error('We encountered an internal error.'), {
          name: 'InternalServerError',
          $fault: 'server',
          $metadata: { httpStatusCode: 500 },
        });
      }
      return next(args);
    },
    { step: 'initialize', name: 'failJournal' },
  );
  return client;
}

function notifier(client?: DynamoDBClient, runtime?: { now: () => number }) {
  const definition = notifierConsumer({ ses, s3, receiptsBucket: bucket, sender });
  const store = new DynamoDBInboxStore({ tableName: tables.inbox, client: client ?? aws.dynamodb });
  return createBatchProcessor(
    definition.handler(() => tables.notifications, aws.documentClient),
    {
      store,
      consumer: 'notifier',
      schema: definition.schema,
      key: definition.key,
      ...(runtime === undefined ? {} : { runtime }),
      reliability: { transactionAttempts: 1 },
      observability: { logger: recordingLogger() },
    },
  );
}

/** Later than the stopped attempt's lease (60 s without a Lambda context) and its skew allowance. */
const afterTheLeaseLapsed = {
  now: () => Date.now() + 60_000 + LEASE_LIMITS.clockSkewMillis + 1_000,
};

function notification(): PaymentNotification {
  return {
    eventId: `evt-${randomUUID()}`,
    accountId: 'acc-1',
    paymentId: `pay-${randomUUID()}`,
    amountCents: 1250,
    currency: 'EUR',
    email: 'payer@example.com',
  };
}

describe('the notifier: an email through SES and a receipt in S3, in steps', () => {
  it('sends one email and writes one receipt per event, however often the event is delivered', async () => {
    const event = notification();

    const outcomes = [];
    for (let i = 0; i < 3; i++)
      outcomes.push(...(await notifier().processRecords(sqsEvent(sqsRecord(event)))));

    expect(outcomes.map((o) => o.status)).toEqual([
      RecordStatus.Processed,
      RecordStatus.Duplicate,
      RecordStatus.Duplicate,
    ]);
    const emails = await emailsOf(event.eventId);
    expect(emails).toHaveLength(1);
    expect(emails[0]?.Subject).toBe(emailSubject(event));
    const receipt = await s3.send(
      new GetObjectCommand({ Bucket: bucket, Key: receiptKey(event.paymentId) }),
    );
    expect(JSON.parse((await receipt.Body?.transformToString()) ?? '')).toMatchObject({
      eventId: event.eventId,
      amountCents: 1250,
    });
    const { Item } = await aws.documentClient.send(
      new GetCommand({ TableName: tables.notifications, Key: { eventId: event.eventId } }),
    );
    expect(Item).toMatchObject({ receiptKey: receiptKey(event.paymentId) });
  });

  it('does not send the email again when the receipt failed and the event is retried', async () => {
    const event = notification();
    const failing = notifierConsumer({ ses, s3, receiptsBucket: `${bucket}-missing`, sender });
    const failingProcessor = createBatchProcessor(
      failing.handler(() => tables.notifications, aws.documentClient),
      {
        store: new DynamoDBInboxStore({ tableName: tables.inbox, client: aws.dynamodb }),
        consumer: 'notifier',
        schema: failing.schema,
        key: failing.key,
        observability: { logger: recordingLogger() },
      },
    );

    const [first] = await failingProcessor.processRecords(sqsEvent(sqsRecord(event)));
    const [retried] = await notifier().processRecords(sqsEvent(sqsRecord(event)));

    expect(first?.status).toBe(RecordStatus.Failed);
    expect(retried?.status).toBe(RecordStatus.Processed);
    expect(await emailsOf(event.eventId)).toHaveLength(1);
    const entry = await new DynamoDBInboxStore({
      tableName: tables.inbox,
      client: aws.dynamodb,
    }).find(inboxPk('notifier', event.eventId));
    expect(entry).toMatchObject({
      status: InboxStatus.Completed,
      attempts: 2,
      lastError: { name: 'NoSuchBucket' },
    });
  });

  it('sends the email again, with the same reference, when the attempt stopped between the email and its journal write (injected 5xx on that write and on the release carrying it)', async () => {
    const event = notification();

    const [first] = await notifier(clientLosingJournalOf('email')).processRecords(
      sqsEvent(sqsRecord(event)),
    );
    const [retried] = await notifier(undefined, afterTheLeaseLapsed).processRecords(
      sqsEvent(sqsRecord(event)),
    );

    expect(first?.status).toBe(RecordStatus.Failed);
    expect(retried?.status).toBe(RecordStatus.Processed);
    const emails = await emailsOf(event.eventId);
    expect(emails).toHaveLength(2);
    const reference = `Reference: ${stepIdempotencyKey('notifier', event.eventId, 'email')}`;
    expect(emails.map((email) => email.BodyText?.includes(reference))).toEqual([true, true]);
  });

  it('keeps one receipt when the attempt stopped between the receipt and its journal write: the rewrite is refused and counts as written (injected 5xx on that write and on the release carrying it)', async () => {
    const event = notification();

    const [first] = await notifier(clientLosingJournalOf('receipt')).processRecords(
      sqsEvent(sqsRecord(event)),
    );
    const [retried] = await notifier(undefined, afterTheLeaseLapsed).processRecords(
      sqsEvent(sqsRecord(event)),
    );

    expect(first?.status).toBe(RecordStatus.Failed);
    expect(retried?.status).toBe(RecordStatus.Processed);
    expect(await emailsOf(event.eventId)).toHaveLength(1);
    const receipt = await s3.send(
      new GetObjectCommand({ Bucket: bucket, Key: receiptKey(event.paymentId) }),
    );
    expect(receipt.ETag).toBeDefined();
  });
});
