import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { createBatchProcessor, inboxConfigFromEnvironment, PermanentError } from 'sqs-inbox';
import { z } from 'zod';

const Transfer = z.object({
  eventId: z.string(),
  accountId: z.string(),
  amountCents: z.number().int(), // negative for a debit
});

/** What the ledger reaches besides its inbox: DynamoDB for its reads, and an SMS gateway. */
export interface LedgerClients {
  readonly dynamo: DynamoDBDocumentClient;
  readonly sendSms: (sms: {
    accountId: string;
    text: string;
    idempotencyKey: string;
    signal: AbortSignal;
  }) => Promise<void>;
}

const defaultClients = (): LedgerClients => ({
  dynamo: DynamoDBDocumentClient.from(new DynamoDBClient({})),
  sendSms: async ({ idempotencyKey, signal, ...sms }) => {
    const response = await fetch('https://sms.example/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      body: JSON.stringify(sms),
      signal,
    });
    if (!response.ok) throw new Error(`the SMS gateway answered ${response.status}`);
  },
});

// A factory of its config: the deployed function calls it with none (handler.ts), a test with
// the kit's (`createLedger(inbox.inboxConfig(), …)`).
export function createLedger(inbox = inboxConfigFromEnvironment(), clients = defaultClients()) {
  const accounts = inbox.table('accounts');
  const booked = inbox.destination('booked');
  return createBatchProcessor(
    async ({ body, step }, tx) => {
      const { Item } = await clients.dynamo.send(
        new GetCommand({
          TableName: accounts,
          Key: { accountId: body.accountId },
          ConsistentRead: true,
        }),
      );
      const balanceCents = Number(Item?.balanceCents ?? 0);
      // A retry cannot fix it: dead-lettered at once, this message as the reason.
      if (balanceCents + body.amountCents < 0)
        throw new PermanentError(`transfer ${body.eventId} would overdraw ${body.accountId}`);
      await step('notify', ({ idempotencyKey, signal }) =>
        clients.sendSms({
          accountId: body.accountId,
          text: `${body.amountCents} cents booked`,
          idempotencyKey,
          signal,
        }),
      );
      tx.update({
        TableName: accounts,
        Key: { accountId: body.accountId },
        UpdateExpression: 'ADD balanceCents :amount',
        // A debit committed since the read fails this one, and SQS retries it.
        ConditionExpression: 'attribute_not_exists(balanceCents) OR balanceCents >= :floor',
        ExpressionAttributeValues: { ':amount': body.amountCents, ':floor': -body.amountCents },
      });
      tx.publish({ destination: booked, body: { type: 'TransferBooked', ...body } });
    },
    { ...inbox.options, schema: Transfer, key: ({ body }) => body.eventId },
  );
}
