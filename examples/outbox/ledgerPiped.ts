import { createBatchProcessor, inboxConfigFromEnvironment } from 'sqs-inbox';
import { InboxEnvironment } from 'sqs-inbox/constants';
import { z } from 'zod';

const PaymentCaptured = z.object({
  eventId: z.string(),
  accountId: z.string(),
  paymentId: z.string(),
  amountCents: z.number().int().positive(),
});

const inbox = inboxConfigFromEnvironment();
const accounts = inbox.table('accounts');
// The pipe's one queue, set by OutboxPipe.publisherEnvironment(); any other is refused.
const credited = process.env[InboxEnvironment.OutboxPipeDestination];
if (!credited) throw new Error(`${InboxEnvironment.OutboxPipeDestination} is not set`);

export const handler = createBatchProcessor(
  async ({ body }, tx) => {
    tx.update({
      TableName: accounts,
      Key: { accountId: body.accountId },
      UpdateExpression: 'ADD balanceCents :amount',
      ExpressionAttributeValues: { ':amount': body.amountCents },
    });
    // No attributes and at most one message per group per transaction: what a pipe can send.
    tx.publish({
      destination: credited,
      body: { type: 'PaymentCredited', paymentId: body.paymentId, amountCents: body.amountCents },
    });
  },
  { ...inbox.options, schema: PaymentCaptured, key: ({ body }) => body.eventId },
).process;
