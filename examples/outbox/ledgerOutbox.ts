import { createBatchProcessor, inboxConfigFromEnvironment } from 'sqs-inbox';
import { z } from 'zod';

const PaymentCaptured = z.object({
  eventId: z.string(),
  accountId: z.string(),
  paymentId: z.string(),
  amountCents: z.number().int().positive(),
});

const inbox = inboxConfigFromEnvironment();
const accounts = inbox.table('accounts');
const credited = inbox.destination('credited');

export const handler = createBatchProcessor(
  async ({ body }, tx) => {
    tx.update({
      TableName: accounts,
      Key: { accountId: body.accountId },
      UpdateExpression: 'ADD balanceCents :amount',
      ExpressionAttributeValues: { ':amount': body.amountCents },
    });
    // Written to the outbox in the same transaction: sent if and only if the credit commits,
    // with an id that is the same on every attempt of this payment.
    tx.publish({
      destination: credited,
      body: { type: 'PaymentCredited', paymentId: body.paymentId, amountCents: body.amountCents },
    });
  },
  { ...inbox.options, schema: PaymentCaptured, key: ({ body }) => body.eventId },
).process;
