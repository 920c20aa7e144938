import { createBatchProcessor, inboxConfigFromEnvironment } from 'sqs-inbox';
import { z } from 'zod';

const OrderPlaced = z.object({
  orderId: z.string(),
  amountCents: z.number().int().positive(),
});

const inbox = inboxConfigFromEnvironment();
const orders = inbox.table('orders');

export const handler = createBatchProcessor(
  async ({ body, step }, tx) => {
    // Runs once per order: journaled on the inbox entry, replayed on a retry or redrive, and
    // sent with the same Idempotency-Key every time, so the PSP closes the one window left.
    const { chargeId } = await step('charge', async ({ idempotencyKey, signal }) => {
      const response = await fetch('https://psp.example/v1/charges', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
        body: JSON.stringify({ amount: body.amountCents, reference: body.orderId }),
        signal,
      });
      if (!response.ok) throw new Error(`the PSP answered ${response.status}`);
      const charge = (await response.json()) as { id: string };
      return { chargeId: charge.id };
    });
    // Committed with the inbox entry, fenced by the lease, in one transaction.
    tx.update({
      TableName: orders,
      Key: { orderId: body.orderId },
      UpdateExpression: 'SET chargeId = :chargeId',
      ExpressionAttributeValues: { ':chargeId': chargeId },
    });
  },
  { ...inbox.options, schema: OrderPlaced, key: ({ body }) => body.orderId },
).process;
