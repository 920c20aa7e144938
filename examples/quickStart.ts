import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { DynamoDBInboxStore, inboxMiddleware } from 'sqs-inbox';
import { z } from 'zod';

const PaymentCaptured = z.object({
  eventId: z.string(),
  accountId: z.string(),
  amountCents: z.number().int().positive(),
});

export const handler = middy<SQSEvent, SQSBatchResponse>().use(
  inboxMiddleware({
    store: new DynamoDBInboxStore({ tableName: process.env.INBOX_TABLE_NAME ?? 'inbox' }),
    consumer: 'ledger',
    schema: PaymentCaptured,
    key: ({ body }) => body.eventId,
    deadLetterQueueUrl: process.env.DLQ_URL,
    handler: async ({ body }, tx) => {
      tx.update({
        TableName: 'accounts',
        Key: { accountId: body.accountId },
        UpdateExpression: 'ADD balanceCents :amount',
        ExpressionAttributeValues: { ':amount': body.amountCents },
      });
    },
  }),
);
