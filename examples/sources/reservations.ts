import { createBatchProcessor, inboxConfigFromEnvironment } from 'sqs-inbox';
import { z } from 'zod';

// The payload only: SNS's Message, EventBridge's detail. The envelope is `message.envelope`.
const OrderPlaced = z.object({
  orderId: z.string(),
  sku: z.string(),
  quantity: z.number().int().positive(),
});

const inbox = inboxConfigFromEnvironment();
const stock = inbox.table('stock');

// No `key`: the SNS MessageId and the EventBridge event id key the inbox, so a delivery that
// SNS or EventBridge retries, or a DLQ redrive, is applied once.
export const handler = createBatchProcessor(
  async ({ body }, tx) => {
    tx.update({
      TableName: stock,
      Key: { sku: body.sku },
      UpdateExpression: 'ADD reserved :quantity',
      ExpressionAttributeValues: { ':quantity': body.quantity },
    });
  },
  { ...inbox.options, schema: OrderPlaced },
).process;
