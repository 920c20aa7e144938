import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';

// Before: Powertools batch + idempotency. The idempotency record and the balance are two writes.
const processor = new BatchProcessor(EventType.SQS);
const persistenceStore = new DynamoDBPersistenceLayer({
  tableName: process.env.IDEMPOTENCY_TABLE_NAME ?? '',
});
const config = new IdempotencyConfig({
  eventKeyJmesPath: 'powertools_json(body).eventId',
  payloadValidationJmesPath: 'powertools_json(body)',
  expiresAfterSeconds: 3600,
});
const documents = DynamoDBDocumentClient.from(new DynamoDBClient({}));

const creditAccount = makeIdempotent(
  async (record: SQSRecord) => {
    const payment = JSON.parse(record.body) as { accountId: string; amountCents: number };
    await documents.send(
      new UpdateCommand({
        TableName: process.env.ACCOUNTS_TABLE_NAME ?? '',
        Key: { accountId: payment.accountId },
        UpdateExpression: 'ADD balanceCents :amount',
        ExpressionAttributeValues: { ':amount': payment.amountCents },
      }),
    );
  },
  { persistenceStore, config },
);

export const handler = async (event: SQSEvent, context: Context) => {
  config.registerLambdaContext(context);
  return processPartialResponse(event, creditAccount, processor, { context });
};
