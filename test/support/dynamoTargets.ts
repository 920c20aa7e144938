import { randomUUID } from 'node:crypto';
import {
  CreateTableCommand,
  DeleteTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { SimDocumentClient } from '../../src/testing/dynamo/SimDocumentClient.js';
import { SimDynamoDB } from '../../src/testing/dynamo/SimDynamoDB.js';
import { InMemoryDynamoDB } from '../../src/testing/InMemoryDynamoDB.js';
import { testAws } from '../harness/aws.js';

/** A DynamoDB the conformance suite runs against, through a document client. */
export interface DynamoTarget {
  readonly name: string;
  /** A document client marshalling as the inbox store's does (`removeUndefinedValues`). */
  readonly connect: () => { client: DynamoDBDocumentClient; close: () => void };
}

/**
 * The targets of the conformance suite: the project's emulator (MiniStack in `integration`,
 * DynamoDB Local in `conformance`), the model through the simulation's document client, and the
 * model through the testing kit's SDK client (the SDK's own middleware, wire protocol and
 * exception parsing over `ModelRequestHandler`), a fresh model per connection.
 */
export function dynamoTargets(): DynamoTarget[] {
  const backend = /DynamoDB: ([^;]+)/.exec(inject('aws').backend)?.[1] ?? 'emulator';
  const emulator: DynamoTarget = {
    name: backend,
    connect: () => {
      const aws = testAws();
      const client = DynamoDBDocumentClient.from(aws.dynamodb, {
        marshallOptions: { removeUndefinedValues: true },
      });
      return { client, close: () => void aws.cleanup() };
    },
  };
  const simulator: DynamoTarget = {
    name: 'SimDynamoDB',
    connect: () => ({
      client: new SimDocumentClient({ dynamo: new SimDynamoDB() }).documentClient,
      close: () => {},
    }),
  };
  const sdkOverModel: DynamoTarget = {
    name: 'InMemoryDynamoDB.client',
    connect: () => {
      const client = DynamoDBDocumentClient.from(new InMemoryDynamoDB().client, {
        marshallOptions: { removeUndefinedValues: true },
      });
      return { client, close: () => client.destroy() };
    },
  };
  return [emulator, simulator, sdkOverModel];
}

type KeySpec = ReadonlyArray<
  readonly [name: string, type: 'S' | 'N' | 'B', keyType: 'HASH' | 'RANGE']
>;

/** Creates a uniquely named table through the client (TTL on `ttlAttribute` if given). */
export async function createTable(
  client: DynamoDBDocumentClient,
  prefix: string,
  keys: KeySpec,
  ttlAttribute?: string,
): Promise<string> {
  const TableName = `${prefix}-${randomUUID().slice(0, 8)}`;
  await client.send(
    new CreateTableCommand({
      TableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: keys.map(([AttributeName, AttributeType]) => ({
        AttributeName,
        AttributeType,
      })),
      KeySchema: keys.map(([AttributeName, , KeyType]) => ({ AttributeName, KeyType })),
    }),
  );
  if (ttlAttribute !== undefined) {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName,
        TimeToLiveSpecification: { AttributeName: ttlAttribute, Enabled: true },
      }),
    );
  }
  return TableName;
}

/** Deletes tables, ignoring those already gone. */
export async function deleteTables(client: DynamoDBDocumentClient, names: readonly string[]) {
  await Promise.allSettled(
    names.map((TableName) => client.send(new DeleteTableCommand({ TableName }))),
  );
}

/** A key value no other test uses. */
export function uniqueKey(prefix = 'k'): string {
  return `${prefix}-${randomUUID()}`;
}

/** An SDK error as the tests look at it. */
export type CaughtError = Error & {
  readonly CancellationReasons?: ReadonlyArray<{ Code?: string; Message?: string; Item?: unknown }>;
  readonly Item?: unknown;
};

/** The error a promise rejects with; fails when it resolves. */
export async function caught(promise: Promise<unknown>): Promise<CaughtError> {
  try {
    await promise;
  } catch (error) {
    return error as CaughtError;
  }
  throw new Error('expected a rejection, but the request succeeded');
}

/**
 * Whether a condition holds for an item: puts the item under a fresh key of `table` (key
 * attribute `pk`), then runs the condition as a `ConditionCheck` in a transaction.
 */
export async function holds(
  client: DynamoDBDocumentClient,
  table: string,
  item: Record<string, unknown>,
  condition: {
    expression: string;
    values?: Record<string, unknown>;
    names?: Record<string, string>;
  },
): Promise<boolean> {
  const pk = uniqueKey();
  await client.send(new PutCommand({ TableName: table, Item: { ...item, pk } }));
  const check = new TransactWriteCommand({
    TransactItems: [
      {
        ConditionCheck: {
          TableName: table,
          Key: { pk },
          ConditionExpression: condition.expression,
          ExpressionAttributeValues: condition.values,
          ExpressionAttributeNames: condition.names,
        },
      },
    ],
  });
  try {
    await client.send(check);
    return true;
  } catch (error) {
    if ((error as Error).name === 'TransactionCanceledException') return false;
    throw error;
  }
}
