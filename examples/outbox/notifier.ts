import { createBatchProcessor, inboxConfigFromEnvironment } from 'sqs-inbox';
import { z } from 'zod';

const PaymentCredited = z.object({
  type: z.literal('PaymentCredited'),
  paymentId: z.string(),
  amountCents: z.number().int().positive(),
});

const inbox = inboxConfigFromEnvironment();
const notices = inbox.table('notices');

// No `key`: the outbox id keys the inbox, so a message the relay sends twice is applied once.
export const handler = createBatchProcessor(
  async ({ body }, tx) => {
    tx.put({
      TableName: notices,
      Item: { paymentId: body.paymentId, amountCents: body.amountCents },
      ConditionExpression: 'attribute_not_exists(paymentId)',
    });
  },
  { ...inbox.options, schema: PaymentCredited },
).process;
