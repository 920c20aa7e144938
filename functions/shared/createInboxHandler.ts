import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { DynamoDBInboxStore, inboxMiddleware } from 'sqs-inbox';
import type { ConsumerDefinition } from './ConsumerDefinition.js';
import { inboxSettings, requireEnv } from './environment.js';

/**
 * The reference consumers' Lambda handler: Powertools Logger and Metrics around the inbox
 * middleware, one DynamoDB document client per container, settings from the environment the
 * InboxConsumer construct sets. The definition's handler gets that client for its reads.
 */
export function createInboxHandler<TSchema extends StandardSchemaV1>(
  definition: ConsumerDefinition<TSchema>,
) {
  const logger = new Logger();
  const metrics = new Metrics();
  // A stalled request becomes a retryable TimeoutError well within the function's timeout, rather
  // than the invocation timing out and SQS retrying the whole batch.
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      requestHandler: {
        connectionTimeout: 2_000,
        requestTimeout: 5_000,
        throwOnRequestTimeout: true,
      },
    }),
  );
  return middy<SQSEvent, SQSBatchResponse>()
    .use(injectLambdaContext(logger))
    .use(logMetrics(metrics))
    .use(
      inboxMiddleware<TSchema>({
        ...inboxSettings(),
        store: new DynamoDBInboxStore({ tableName: requireEnv('INBOX_TABLE_NAME'), client }),
        schema: definition.schema,
        key: definition.key,
        logger,
        metrics,
        handler: definition.handler(requireEnv, client),
      }),
    );
}
