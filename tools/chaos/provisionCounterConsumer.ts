import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { businessTableVariable, InboxEnvironment } from 'sqs-inbox/constants';
import { InventoryTable } from '../../functions/inventory/orderPlaced.js';
import type { LocalMapping } from '../local/provisionFromTemplate.js';
import { COUNTERS_TABLE } from './counterConsumer.js';

/**
 * Creates the chaos run's naive counter consumer next to the reference stack: a standard queue
 * whose redrive policy points at a DLQ of its own, a counters table, and the mapping its workers
 * run — on the reference inbox table, under the consumer name `counter`.
 *
 * @example
 * ```ts
 * const counter = await provisionCounterConsumer(clients, inventoryMapping, 100);
 * ```
 */
export async function provisionCounterConsumer(
  clients: { dynamodb: DynamoDBClient; sqs: SQSClient },
  inventory: LocalMapping,
  maxReceiveCount: number,
): Promise<LocalMapping> {
  const prefix = `${inventory.environment[businessTableVariable(InventoryTable.Stock)]}-counter`;
  const deadLetter = await createQueue(clients.sqs, `${prefix}-dlq`, {});
  const queue = await createQueue(clients.sqs, prefix, {
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: deadLetter.arn, maxReceiveCount }),
  });
  await clients.dynamodb.send(
    new CreateTableCommand({
      TableName: `${prefix}s`,
      KeySchema: [{ AttributeName: 'counterId', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'counterId', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  return {
    consumer: 'counter',
    queueUrl: queue.url,
    queueArn: queue.arn,
    deadLetterQueueUrl: deadLetter.url,
    batchSize: 10,
    maxConcurrency: inventory.maxConcurrency,
    environment: {
      [InboxEnvironment.TableName]: inventory.environment[InboxEnvironment.TableName] ?? '',
      [InboxEnvironment.TtlSeconds]: inventory.environment[InboxEnvironment.TtlSeconds] ?? '',
      [InboxEnvironment.Consumer]: 'counter',
      [InboxEnvironment.DeadLetterQueueUrl]: deadLetter.url,
      [InboxEnvironment.MaxReceiveCount]:
        inventory.environment[InboxEnvironment.MaxReceiveCount] ?? '',
      [InboxEnvironment.Sources]: 'sqs',
      [businessTableVariable(COUNTERS_TABLE)]: `${prefix}s`,
    },
  };
}

async function createQueue(
  sqs: SQSClient,
  name: string,
  attributes: Record<string, string>,
): Promise<{ url: string; arn: string }> {
  const { QueueUrl = '' } = await sqs.send(
    new CreateQueueCommand({ QueueName: name, Attributes: attributes }),
  );
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  return { url: QueueUrl, arn: Attributes?.QueueArn ?? '' };
}
