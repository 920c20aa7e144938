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
import { OrderPlaced, reserveOrder } from './orderPlaced.js';

const logger = new Logger();
const metrics = new Metrics();
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const tables = { stock: requireEnv('STOCK_TABLE_NAME'), orders: requireEnv('ORDERS_TABLE_NAME') };

/** Inventory consumer (standard queue): reserves an order's stock, or records its rejection, once. */
export const handler = middy<SQSEvent, SQSBatchResponse>()
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics))
  .use(
    inboxMiddleware({
      ...inboxSettings(),
      store: new DynamoDBInboxStore({ tableName: requireEnv('INBOX_TABLE_NAME'), client }),
      schema: OrderPlaced,
      key: ({ body }) => body.eventId,
      logger,
      metrics,
      handler: reserveOrder(tables, client),
    }),
  );
