import {
  CreateTableCommand,
  DescribeTimeToLiveCommand,
  ListTablesCommand,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InboxStatus } from '../../../src/constants/index.js';
import { TransientReason } from '../../../src/errors.js';
import { DynamoDBInboxStore, TransientStoreError } from '../../../src/index.js';
import {
  type DynamoOperation,
  SimDocumentClient,
} from '../../../src/testing/dynamo/SimDocumentClient.js';
import { SimDynamoDB } from '../../../src/testing/dynamo/SimDynamoDB.js';

async function clientWithTable(
  transport?: ConstructorParameters<typeof SimDocumentClient>[0]['transport'],
) {
  const dynamo = new SimDynamoDB();
  const client = new SimDocumentClient({ dynamo, ...(transport && { transport }) });
  dynamo.createTable({
    TableName: 't',
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
  });
  return { dynamo, client };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('SimDocumentClient', () => {
  it('marshals native values in and unmarshals items out, dropping undefined values', async () => {
    const { dynamo, client } = await clientWithTable();
    await client.send(
      new PutCommand({
        TableName: 't',
        Item: { pk: 'a', n: 1, gone: undefined, tags: new Set(['x']) },
      }),
    );
    expect(dynamo.getItem({ TableName: 't', Key: { pk: { S: 'a' } } }).Item).toEqual({
      pk: { S: 'a' },
      n: { N: '1' },
      tags: { SS: ['x'] },
    });
    expect((await client.send(new GetCommand({ TableName: 't', Key: { pk: 'a' } }))).Item).toEqual({
      pk: 'a',
      n: 1,
      tags: new Set(['x']),
    });
    const { Attributes } = await client.send(
      new UpdateCommand({
        TableName: 't',
        Key: { pk: 'a' },
        UpdateExpression: 'ADD n :one',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    expect(Attributes).toEqual({ n: 2 });
    const { Responses } = await client.send(
      new BatchGetCommand({ RequestItems: { t: { Keys: [{ pk: 'a' }] } } }),
    );
    expect(Responses).toEqual({ t: [{ pk: 'a', n: 2, tags: new Set(['x']) }] });
  });

  it('passes table commands through in wire form', async () => {
    const { client } = await clientWithTable();
    const { TimeToLiveDescription } = await client.send(
      new DescribeTimeToLiveCommand({ TableName: 't' }),
    );
    expect(TimeToLiveDescription).toEqual({ TimeToLiveStatus: 'DISABLED' });
  });

  it('leaves the items of cancellation reasons in wire form and throws the SDK class', async () => {
    const { client } = await clientWithTable();
    await client.send(new PutCommand({ TableName: 't', Item: { pk: 'a' } }));
    const transaction = new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: 't',
            Item: { pk: 'a' },
            ConditionExpression: 'attribute_not_exists(pk)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
      ],
    });
    const error = await client.send(transaction).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect((error as TransactionCanceledException).CancellationReasons?.[0]?.Item).toEqual({
      pk: { S: 'a' },
    });
  });

  it.each([
    [
      'a lib-dynamodb command it does not model',
      new BatchWriteCommand({ RequestItems: {} }),
      /does not model BatchWriteCommand/,
    ],
    [
      'a client-dynamodb command it does not model',
      new ListTablesCommand({}),
      /does not model ListTablesCommand/,
    ],
  ])('rejects %s with an Error naming it', async (_case, command, message) => {
    const { client } = await clientWithTable();
    await expect(client.send(command)).rejects.toThrow(message);
  });

  it('rejects a value lib-dynamodb cannot marshal before anything reaches the transport', async () => {
    const transport = vi.fn();
    const { client } = await clientWithTable(transport);
    await expect(
      client.send(new PutCommand({ TableName: 't', Item: { pk: 'a', when: new Date() } })),
    ).rejects.toThrow(/Unsupported type|convertClassInstanceToMap/);
    expect(transport).not.toHaveBeenCalled();
  });

  it('hands the transport the operation, its tables and an apply that runs at the server', async () => {
    const seen: DynamoOperation[] = [];
    const { client } = await clientWithTable((operation) => {
      seen.push(operation);
      return Promise.resolve(operation.apply());
    });
    await client.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: 't', Item: { pk: 'a' } } },
          { Put: { TableName: 't', Item: { pk: 'b' } } },
        ],
      }),
    );
    await client.send(
      new CreateTableCommand({
        TableName: 'u',
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      }),
    );
    expect(seen.map(({ name, tableNames }) => ({ name, tableNames }))).toEqual([
      { name: 'TransactWriteItems', tableNames: ['t'] },
      { name: 'CreateTable', tableNames: ['u'] },
    ]);
  });

  it('lets the transport apply a request later, or apply it and lose the answer', async () => {
    const held: DynamoOperation[] = [];
    const { dynamo, client } = await clientWithTable((operation) => {
      held.push(operation);
      return new Promise(() => {}); // the answer never comes back
    });
    void client.send(new PutCommand({ TableName: 't', Item: { pk: 'late' } }));
    await Promise.resolve();
    expect(dynamo.getItem({ TableName: 't', Key: { pk: { S: 'late' } } }).Item).toBeUndefined();
    held[0]?.apply();
    expect(dynamo.getItem({ TableName: 't', Key: { pk: { S: 'late' } } }).Item).toEqual({
      pk: { S: 'late' },
    });
  });

  it('answers an empty output when the transport resolves with nothing', async () => {
    const { client } = await clientWithTable(() => Promise.resolve(undefined));
    expect(await client.send(new GetCommand({ TableName: 't', Key: { pk: 'a' } }))).toEqual({
      $metadata: { httpStatusCode: 200 },
    });
  });

  it('answers without any timer, even with the clock frozen', async () => {
    vi.useFakeTimers();
    const { client } = await clientWithTable();
    await client.send(new PutCommand({ TableName: 't', Item: { pk: 'a' } }));
    expect((await client.send(new GetCommand({ TableName: 't', Key: { pk: 'a' } }))).Item).toEqual({
      pk: 'a',
    });
  });

  it('is taken by DynamoDBInboxStore as its document client, and injected conflicts become transient errors', async () => {
    const dynamo = new SimDynamoDB();
    const client = new SimDocumentClient({
      dynamo,
      transport: (operation) =>
        operation.name === 'TransactWriteItems'
          ? Promise.reject(dynamo.cancelledBy({ TransactItems: [{}] }, 0, 'TransactionConflict'))
          : Promise.resolve(operation.apply()),
    });
    await client.send(
      new CreateTableCommand({
        TableName: 'inbox',
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      }),
    );
    const store = new DynamoDBInboxStore({ tableName: 'inbox', client: client.documentClient });
    const entry = {
      pk: 'c#k',
      consumer: 'c',
      key: 'k',
      messageId: 'm',
      status: InboxStatus.Completed,
      payloadHash: 'h',
      processedAt: 'p',
      expiresAt: 10,
      formatVersion: 1,
    };
    const error = await store
      .commit({ entry, operations: [], nowEpochSeconds: 1 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransientStoreError);
    expect(error).toMatchObject({ reason: TransientReason.TransactionConflict });
    expect(await store.find('c#k')).toBeUndefined();
    expect(client.config.translateConfig).toBeDefined();
    client.destroy();
  });
});
