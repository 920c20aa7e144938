import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { createBatchProcessor, inboxConfigFromEnvironment } from 'sqs-inbox';
import type { ConsumerDefinition } from './ConsumerDefinition.js';

/**
 * The reference consumers' Lambda handler: the batch processor as middy's base handler, with
 * Powertools Logger and Metrics around it, one DynamoDB document client per container, and the
 * settings of the InboxConsumer construct read by `inboxConfigFromEnvironment` at cold start.
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
  const inbox = inboxConfigFromEnvironment({ dynamoDBClient: client });
  const destination = (name: string) => inbox.destinations[name];
  const processor = createBatchProcessor(definition.handler(inbox.table, client, destination), {
    ...inbox.options,
    schema: definition.schema,
    key: definition.key,
    observability: { logger: logger, metrics: metrics },
  });
  return middy(processor.process).use(injectLambdaContext(logger)).use(logMetrics(metrics));
}
