import { createBatchProcessor, DynamoDBInboxStore } from 'sqs-inbox';
import { z } from 'zod';

// After: the inbox entry and the balance commit in one TransactWriteItems.
const PaymentCaptured = z.object({
  eventId: z.string(),
  accountId: z.string(),
  amountCents: z.number().int().positive(),
});

export const handler = createBatchProcessor(
  async ({ body }, tx) => {
    tx.update({
      TableName: process.env.ACCOUNTS_TABLE_NAME ?? '',
      Key: { accountId: body.accountId },
      UpdateExpression: 'ADD balanceCents :amount',
      ExpressionAttributeValues: { ':amount': body.amountCents },
    });
  },
  {
    store: new DynamoDBInboxStore({ tableName: process.env.INBOX_TABLE_NAME ?? '' }),
    consumer: 'ledger',
    key: ({ body }) => body.eventId,
    schema: PaymentCaptured,
    deadLetter: { queueUrl: process.env.DEAD_LETTER_QUEUE_URL ?? '', maxReceiveCount: 5 },
  },
).process;
