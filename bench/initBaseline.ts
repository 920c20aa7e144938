/**
 * The reference handler less sqs-inbox: the same Powertools logger and metrics, middy, DynamoDB
 * clients (built at import as `functions/shared/createInboxHandler.ts` builds them) and zod
 * schema, and a handler that validates and writes through the document client itself. `npm run bench:init` measures its
 * init next to the ledger's, so that the difference is the library's own share.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { SQSEvent } from 'aws-lambda';
import { z } from 'zod';

const PaymentCaptured = z.object({
  eventId: z.string().min(1),
  accountId: z.string().min(1),
  paymentId: z.string().min(1),
  amountCents: z.number().int().positive(),
});

const logger = new Logger();
const metrics = new Metrics();
const client = DynamoDBDocumentClient.from(
  new DynamoDBClient({
    requestHandler: {
      connectionTimeout: 2_000,
      requestTimeout: 5_000,
      throwOnRequestTimeout: true,
    },
  }),
);

/** Applies each record's payment with one transaction, no deduplication. */
export const handler = middy(async (event: SQSEvent) => {
  await Promise.all(
    event.Records.map((record) => {
      const body = PaymentCaptured.parse(JSON.parse(record.body));
      return client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: process.env.ACCOUNTS_TABLE,
                Key: { accountId: body.accountId },
                UpdateExpression: 'ADD balanceCents :amount',
                ExpressionAttributeValues: { ':amount': body.amountCents },
              },
            },
          ],
        }),
      );
    }),
  );
  return { batchItemFailures: [] };
})
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics));
