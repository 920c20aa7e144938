import { createBatchProcessor, inboxConfigFromEnvironment } from 'sqs-inbox';
import { z } from 'zod';

const PaymentCaptured = z.object({
  eventId: z.string(),
  accountId: z.string(),
  amountCents: z.number().int().positive(),
});

// What the InboxConsumer construct set: inbox table, consumer, TTL, DLQ, business tables.
// A missing variable fails the cold start, before any message is read.
const inbox = inboxConfigFromEnvironment();
const accounts = inbox.table('accounts');

export const handler = createBatchProcessor(
  async ({ body }, tx) => {
    tx.update({
      TableName: accounts,
      Key: { accountId: body.accountId },
      UpdateExpression: 'ADD balanceCents :amount',
      ExpressionAttributeValues: { ':amount': body.amountCents },
    });
  },
  { ...inbox.options, schema: PaymentCaptured, key: ({ body }) => body.eventId },
).process;
