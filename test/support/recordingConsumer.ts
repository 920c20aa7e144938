import type { InboxOptions } from '../../src/batch/InboxOptions.js';
import {
  createBatchProcessor,
  DynamoDBInboxStore,
  type InboxMessage,
  type MessageHandler,
  Precheck,
} from '../../src/index.js';
import { InMemoryDynamoDB } from '../../src/testing/index.js';
import { recordingLogger } from './sqsRecords.js';

/**
 * A consumer over an in-memory inbox table that records each message its handler ran for,
 * then runs `then` (to fail or to write); the logger keeps its lines. It reads the inbox before
 * any handler runs (`Precheck.Before`), so a known duplicate never runs its handler.
 */
export function recordingConsumer(
  options: Omit<InboxOptions, 'store' | 'consumer'> = {},
  then: MessageHandler<unknown> = () => {},
) {
  const dynamo = new InMemoryDynamoDB().createTable({
    tableName: 'inbox',
    partitionKey: 'pk',
    timeToLiveAttribute: 'expiresAt',
  });
  const store = new DynamoDBInboxStore({ tableName: 'inbox', client: dynamo.documentClient });
  const logger = recordingLogger();
  const seen: Array<InboxMessage<unknown>> = [];
  const processor = createBatchProcessor(
    async (message, tx) => {
      seen.push(message);
      await then(message, tx);
    },
    {
      store,
      consumer: 'consumer',
      performance: { precheck: Precheck.Before },
      observability: { logger, metrics: false },
      ...options,
    },
  );
  return { dynamo, logger, seen, processor };
}
