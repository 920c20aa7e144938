import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { type SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import type { MessageHandler } from 'sqs-inbox';
import { z } from 'zod';
import type { ConsumerDefinition } from '../shared/ConsumerDefinition.js';

/** A captured payment to notify its payer of: one email and one receipt object per event. */
export const PaymentNotification = z.object({
  eventId: z.string().min(1),
  accountId: z.string().min(1),
  paymentId: z.string().min(1),
  amountCents: z.number().int().positive(),
  currency: z.string().regex(/^[A-Z]{3}$/, 'a 3-letter ISO 4217 code such as EUR'),
  email: z.string().email(),
});
export type PaymentNotification = z.infer<typeof PaymentNotification>;

/** Where the notifier's effects go: SES for the email, S3 for the receipt. */
export interface NotifierServices {
  readonly ses: SESv2Client;
  readonly s3: S3Client;
  /** The bucket receipts are written to, as `receipts/<paymentId>.json`. */
  readonly receiptsBucket: string;
  /** The verified SES identity emails are sent from. */
  readonly sender: string;
}

/** The notifier's business table by its logical name (the construct's `businessTables` key). */
export const NotifierTable = { Notifications: 'notifications' } as const;

/**
 * The S3 key of a payment's receipt. By payment, not event id: an event id reused for another
 * payment (a producer's bug the inbox refuses while the first entry lives) must not find the
 * first payment's receipt and take it for its own.
 */
export const receiptKey = (paymentId: string) => `receipts/${paymentId}.json`;

/** The subject of an event's email: the event id makes each email countable per event. */
export const emailSubject = (body: Pick<PaymentNotification, 'eventId' | 'paymentId'>) =>
  `Payment ${body.paymentId} received (${body.eventId})`;

/**
 * Notifies the payer of a payment: an email through SES (a downstream that deduplicates
 * nothing: an email sent and not journaled before a crash is sent again) and a receipt object
 * in S3 written with `If-None-Match: *` (a conditional write: a second write is refused, and
 * that refusal means the receipt is there), each in its own step; then records the
 * notification in the inbox transaction.
 */
export function notifyPayment(
  services: NotifierServices,
  notificationsTable: string,
): MessageHandler<PaymentNotification> {
  return async ({ body, step }, tx) => {
    const email = await step('email', ({ idempotencyKey, signal }) =>
      sendEmail(services, body, idempotencyKey, signal),
    );
    const receipt = await step('receipt', ({ signal }) => writeReceipt(services, body, signal));
    tx.put({
      TableName: notificationsTable,
      Item: {
        eventId: body.eventId,
        paymentId: body.paymentId,
        emailMessageId: email.messageId,
        receiptKey: receipt.key,
      },
      ConditionExpression: 'attribute_not_exists(eventId)',
    });
  };
}

async function sendEmail(
  services: NotifierServices,
  body: PaymentNotification,
  idempotencyKey: string,
  signal: AbortSignal,
): Promise<{ messageId: string }> {
  const amount = `${(body.amountCents / 100).toFixed(2)} ${body.currency}`;
  const { MessageId } = await services.ses.send(
    new SendEmailCommand({
      FromEmailAddress: services.sender,
      Destination: { ToAddresses: [body.email] },
      Content: {
        Simple: {
          Subject: { Data: emailSubject(body) },
          Body: {
            Text: {
              // The step's key: the same in every copy of this email, to tell a resend apart.
              Data: `We received ${amount} for account ${body.accountId}.\nReference: ${idempotencyKey}`,
            },
          },
        },
      },
    }),
    { abortSignal: signal },
  );
  return { messageId: MessageId ?? '' };
}

async function writeReceipt(
  services: NotifierServices,
  body: PaymentNotification,
  signal: AbortSignal,
): Promise<{ key: string }> {
  const key = receiptKey(body.paymentId);
  const { email: _email, ...receipt } = body;
  try {
    await services.s3.send(
      new PutObjectCommand({
        Bucket: services.receiptsBucket,
        Key: key,
        Body: JSON.stringify(receipt),
        ContentType: 'application/json',
        IfNoneMatch: '*',
      }),
      { abortSignal: signal },
    );
  } catch (error) {
    // Written by an earlier attempt that stopped before its journal write: the receipt is there.
    if (!isPreconditionFailed(error)) throw error;
  }
  return { key };
}

function isPreconditionFailed(error: unknown): boolean {
  const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return name === 'PreconditionFailed' || $metadata?.httpStatusCode === 412;
}

/** The notifier consumer, keyed by `eventId`, with the services its steps use. */
export function notifierConsumer(
  services: NotifierServices,
): ConsumerDefinition<typeof PaymentNotification> {
  return {
    schema: PaymentNotification,
    key: ({ body }) => body.eventId,
    handler: (table) => notifyPayment(services, table(NotifierTable.Notifications)),
  };
}
