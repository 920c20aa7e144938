import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import { createBatchProcessor, inboxConfigFromEnvironment } from 'sqs-inbox';
import { z } from 'zod';

const PaymentCaptured = z.object({
  eventId: z.string(),
  accountId: z.string(),
  amountCents: z.number().int().positive(),
});

const logger = new Logger();
const metrics = new Metrics();
const inbox = inboxConfigFromEnvironment();
const accounts = inbox.table('accounts');

// The library logs through Powertools Logger and counts through Powertools Metrics, which
// logMetrics flushes once per invocation: one sink, so no metric is written twice.
const processor = createBatchProcessor(
  async ({ body }, tx) => {
    tx.update({
      TableName: accounts,
      Key: { accountId: body.accountId },
      UpdateExpression: 'ADD balanceCents :amount',
      ExpressionAttributeValues: { ':amount': body.amountCents },
    });
  },
  {
    ...inbox.options,
    schema: PaymentCaptured,
    key: ({ body }) => body.eventId,
    observability: { logger, metrics },
  },
);

// The processor is middy's base handler: the middlewares wrap it and see its response.
export const handler = middy(processor.process)
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics));
