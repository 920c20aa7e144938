import { randomUUID } from 'node:crypto';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DynamoDBClient,
  type StreamSpecification,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  type Message,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { receiveMessages } from '../support/receiveMessages.js';

const region = 'us-east-1';
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

/** Clients for the project's backends (see globalSetup), plus helpers that clean up after a file. */
export function testAws() {
  const endpoints = inject('aws');
  const dynamodb = new DynamoDBClient({
    endpoint: endpoints.dynamodb,
    region,
    credentials,
    maxAttempts: 3,
  });
  const documentClient = DynamoDBDocumentClient.from(dynamodb);
  const sqs = new SQSClient({ endpoint: endpoints.sqs, region, credentials });
  const cleanups: Array<() => Promise<unknown>> = [];
  /** A table keyed by `pk` (string) with TTL on `expiresAt`, deleted after the file. */
  const createKeyedByPk = async (name: string, stream?: StreamSpecification) => {
    await createTable(dynamodb, name, [['pk', 'HASH']], stream);
    await dynamodb.send(
      new UpdateTimeToLiveCommand({
        TableName: name,
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      }),
    );
    cleanups.push(() => dynamodb.send(new DeleteTableCommand({ TableName: name })));
    return name;
  };

  return {
    endpoints,
    dynamodb,
    documentClient,
    sqs,
    /** A unique name for a table or queue of this run. */
    uniqueName: (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`,
    /** Creates an inbox table (pk string, TTL on expiresAt) and deletes it after the file. */
    createInboxTable: (name: string): Promise<string> => createKeyedByPk(name),
    /**
     * Creates an outbox table (pk string, TTL on expiresAt, a stream of new images) and
     * deletes it after the file.
     */
    createOutboxTable: (name: string): Promise<string> =>
      createKeyedByPk(name, { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' }),
    /** Creates a business table with string keys and deletes it after the file. */
    async createTable(
      name: string,
      keys: ReadonlyArray<readonly [string, 'HASH' | 'RANGE']>,
    ): Promise<string> {
      await createTable(dynamodb, name, keys);
      cleanups.push(() => dynamodb.send(new DeleteTableCommand({ TableName: name })));
      return name;
    },
    /** Creates a queue (FIFO when the name ends in .fifo) and deletes it after the file. */
    async createQueue(
      name: string,
      attributes: Record<string, string> = {},
    ): Promise<{ url: string; arn: string }> {
      const fifo = name.endsWith('.fifo');
      const { QueueUrl } = await sqs.send(
        new CreateQueueCommand({
          QueueName: name,
          Attributes: { ...(fifo ? { FifoQueue: 'true' } : {}), ...attributes },
        }),
      );
      if (!QueueUrl) throw new Error(`no URL for queue ${name}`);
      cleanups.push(() => sqs.send(new DeleteQueueCommand({ QueueUrl })));
      return { url: QueueUrl, arn: `arn:aws:sqs:${region}:000000000000:${name}` };
    },
    /**
     * Receives what a queue holds (up to 10 messages, every attribute) without deleting it:
     * to see what reached a DLQ.
     */
    receive: (queueUrl: string): Promise<Message[]> => receiveMessages(sqs, queueUrl),
    /** Removes everything created through these helpers. */
    async cleanup(): Promise<void> {
      await Promise.allSettled(cleanups.splice(0).map((cleanup) => cleanup()));
      dynamodb.destroy();
      sqs.destroy();
    },
  };
}

export type TestAws = ReturnType<typeof testAws>;

async function createTable(
  client: DynamoDBClient,
  name: string,
  keys: ReadonlyArray<readonly [string, 'HASH' | 'RANGE']>,
  StreamSpecification?: StreamSpecification,
): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      ...(StreamSpecification ? { StreamSpecification } : {}),
      AttributeDefinitions: keys.map(([AttributeName]) => ({ AttributeName, AttributeType: 'S' })),
      KeySchema: keys.map(([AttributeName, KeyType]) => ({ AttributeName, KeyType })),
    }),
  );
}
