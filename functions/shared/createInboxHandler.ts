import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import {
  type BatchProcessor,
  createBatchProcessor,
  type InboxEnvironmentConfig,
  type InboxOptions,
  inboxConfigFromEnvironment,
} from 'sqs-inbox';
import type { ConsumerDefinition } from './ConsumerDefinition.js';

/**
 * Where a consumer runs: the construct's settings and the client of its own reads. A container
 * reads them from its environment; a test gives the kit's (`sqs-inbox/testing`).
 */
export interface ConsumerSettings {
  readonly inbox: InboxEnvironmentConfig;
  readonly client: DynamoDBDocumentClient;
}

/**
 * The reference consumers' Lambda handler: the batch processor as middy's base handler, with
 * Powertools Logger and Metrics around it, one DynamoDB document client per container, and the
 * settings of the InboxConsumer construct read by `inboxConfigFromEnvironment` at cold start
 * (or `settings`, given).
 *
 * @example
 * ```ts
 * export const handler = createInboxHandler(ledgerConsumer);
 * ```
 */
export function createInboxHandler<TSchema extends StandardSchemaV1>(
  definition: ConsumerDefinition<TSchema>,
  settings: ConsumerSettings = settingsFromEnvironment(),
) {
  const logger = new Logger();
  const metrics = new Metrics();
  const processor = createConsumerProcessor(definition, settings, { logger, metrics });
  return middy(processor.process).use(injectLambdaContext(logger)).use(logMetrics(metrics));
}

/**
 * The consumer's batch processor over `settings`: what {@link createInboxHandler} runs, with the
 * settings' own observability unless `observability` is given.
 *
 * @example
 * ```ts
 * const ledger = createConsumerProcessor(ledgerConsumer, { inbox: inbox.inboxConfig(), client });
 * ```
 */
export function createConsumerProcessor<TSchema extends StandardSchemaV1>(
  definition: ConsumerDefinition<TSchema>,
  { inbox, client }: ConsumerSettings,
  observability?: InboxOptions<TSchema>['observability'],
): BatchProcessor {
  const destination = (name: string) => inbox.destinations[name];
  return createBatchProcessor(definition.handler(inbox.table, client, destination), {
    ...inbox.options,
    schema: definition.schema,
    key: definition.key,
    ...(observability ? { observability } : {}),
  });
}

function settingsFromEnvironment(): ConsumerSettings {
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
  return { inbox: inboxConfigFromEnvironment({ dynamoDBClient: client }), client };
}
