import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { type SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { copyOf, InboxTest, redeliveryOf, sqsRecord } from 'sqs-inbox/testing';
import { describe, expect, it } from 'vitest';
import { notifierConsumer } from '../../../functions/notifier/paymentNotification.js';
import { createConsumerProcessor } from '../../../functions/shared/createInboxHandler.js';

/**
 * SES and S3 kept in memory (the kit models DynamoDB and SQS only; test/integration/notifier.test.ts
 * runs the same steps on the emulator): SES keeps each email's text, S3 each object, and refuses a
 * `PutObject` with `If-None-Match: *` on an existing key with a 412, as S3 does.
 */
function servicesInMemory() {
  const emails: string[] = [];
  const objects = new Map<string, string>();
  const ses = {
    send: async (command: SendEmailCommand) => {
      if (!(command instanceof SendEmailCommand)) throw new Error('not a SendEmailCommand');
      emails.push(command.input.Content?.Simple?.Body?.Text?.Data ?? '');
      return { MessageId: `ses-${emails.length}` };
    },
  };
  const s3 = {
    send: async (command: PutObjectCommand) => {
      if (!(command instanceof PutObjectCommand)) throw new Error('not a PutObjectCommand');
      const { Key = '', Body, IfNoneMatch } = command.input;
      if (IfNoneMatch === '*' && objects.has(Key))
        throw Object.assign(new Error('At least one of the pre-conditions did not hold'), {
          name: 'PreconditionFailed',
          $metadata: { httpStatusCode: 412 },
        });
      objects.set(Key, String(Body));
      return {};
    },
  };
  const services = {
    ses: ses as unknown as SESv2Client,
    s3: s3 as unknown as S3Client,
    receiptsBucket: 'receipts',
    sender: 'receipts@shop.example',
  };
  return { services, emails, objects };
}

function notifierOnTheKit() {
  const inbox = new InboxTest({
    consumer: 'notifier',
    tables: [{ tableName: 'notifications', partitionKey: 'eventId' }],
  });
  const { services, emails, objects } = servicesInMemory();
  const notifier = createConsumerProcessor(notifierConsumer(services), {
    inbox: inbox.inboxConfig(),
    client: inbox.dynamo.documentClient,
  });
  const notification = () => inbox.dynamo.item('notifications', { eventId: 'evt-1' });
  return { inbox, notifier, emails, objects, notification };
}

const paymentNotification = sqsRecord({
  eventId: 'evt-1',
  accountId: 'acc-1',
  paymentId: 'pay-1',
  amountCents: 1999,
  currency: 'EUR',
  email: 'payer@example.com',
});
/** Past the lease of the invocation that died: SQS delivers the message again after it. */
const AFTER_THE_LEASE_MILLIS = 5 * 60_000;

describe('the reference notifier (functions/notifier) on sqs-inbox/testing, SES and S3 in memory', () => {
  it('sends one email and writes one receipt per payment, and records both; a copy is a duplicate', async () => {
    const { inbox, notifier, emails, objects, notification } = notifierOnTheKit();
    const first = await inbox.run(notifier, [paymentNotification]);
    const copy = await inbox.run(notifier, [copyOf(paymentNotification)]);
    expect(first.records[0]?.stepsRun).toEqual(['email', 'receipt']);
    expect(copy.records[0]?.status).toBe('duplicate');
    expect(emails).toEqual([expect.stringContaining('We received 19.99 EUR for account acc-1.')]);
    expect([...objects.keys()]).toEqual(['receipts/pay-1.json']);
    expect(notification()).toEqual({
      eventId: 'evt-1',
      paymentId: 'pay-1',
      emailMessageId: 'ses-1',
      receiptKey: 'receipts/pay-1.json',
    });
  });

  it('replays the email after a crash that followed its journal write, and writes the receipt', async () => {
    const { inbox, notifier, emails, objects, notification } = notifierOnTheKit();
    await inbox.run(notifier, [paymentNotification], { crash: { afterStep: 'email' } });
    await inbox.clock.advanceMillis(AFTER_THE_LEASE_MILLIS);
    const run = await inbox.run(notifier, [redeliveryOf(paymentNotification)]);
    expect(run.records[0]).toMatchObject({
      status: 'processed',
      stepsReplayed: ['email'],
      stepsRun: ['receipt'],
    });
    expect(emails).toHaveLength(1);
    expect(objects.size).toBe(1);
    expect(notification()).toMatchObject({ emailMessageId: 'ses-1' });
  });

  it('sends the email again, with the same reference, when the crash lost its journal write', async () => {
    const { inbox, notifier, emails } = notifierOnTheKit();
    const crash = { afterStep: 'email', journaled: false };
    await inbox.run(notifier, [paymentNotification], { crash });
    await inbox.clock.advanceMillis(AFTER_THE_LEASE_MILLIS);
    await inbox.run(notifier, [redeliveryOf(paymentNotification)]);
    expect(emails).toHaveLength(2);
    expect(emails[1]).toBe(emails[0]);
  });

  it('takes the receipt an attempt wrote before it died for its own: S3 refuses the second write', async () => {
    const { inbox, notifier, objects, notification } = notifierOnTheKit();
    const crash = { afterStep: 'receipt', journaled: false };
    await inbox.run(notifier, [paymentNotification], { crash });
    await inbox.clock.advanceMillis(AFTER_THE_LEASE_MILLIS);
    const run = await inbox.run(notifier, [redeliveryOf(paymentNotification)]);
    expect(run.records[0]).toMatchObject({ status: 'processed', stepsRun: ['receipt'] });
    expect(objects.size).toBe(1);
    expect(notification()).toMatchObject({ receiptKey: 'receipts/pay-1.json' });
  });
});
