import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { DynamoDBInboxStore, inboxMiddleware } from 'sqs-inbox';
import { inboxSettings, requireEnv } from '../shared/environment.js';
import { applyPayment, PaymentCaptured } from './paymentCaptured.js';

const logger = new Logger();
const metrics = new Metrics();
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const tables = {
  accounts: requireEnv('ACCOUNTS_TABLE_NAME'),
  entries: requireEnv('LEDGER_ENTRIES_TABLE_NAME'),
};

/** Ledger consumer (FIFO, group = account): one balance credit and one ledger entry per payment. */
export const handler = middy<SQSEvent, SQSBatchResponse>()
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics))
  .use(
    inboxMiddleware({
      ...inboxSettings(),
      store: new DynamoDBInboxStore({ tableName: requireEnv('INBOX_TABLE_NAME'), client }),
      schema: PaymentCaptured,
      key: ({ body }) => body.eventId,
      logger,
      metrics,
      handler: applyPayment(tables, client),
    }),
  );
