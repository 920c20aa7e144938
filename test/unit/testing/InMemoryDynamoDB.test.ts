import {
  ConditionalCheckFailedException,
  GetItemCommand,
  ListTablesCommand,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { InvalidConfigurationError } from '../../../src/errors.js';
import { DynamoDBInboxStore } from '../../../src/index.js';
import { InMemoryDynamoDB, NotModelledError } from '../../../src/testing/index.js';
import { preparedPayment } from '../../support/preparedCommits.js';

const DAY_MILLIS = 86_400_000;

function ledgerTables(now?: () => number) {
  return new InMemoryDynamoDB(now ? { now } : {})
    .createTable({ tableName: 'inbox', partitionKey: 'pk', timeToLiveAttribute: 'expiresAt' })
    .createTable({ tableName: 'accounts', partitionKey: 'accountId' })
    .createTable({
      tableName: 'versions',
      partitionKey: 'orderId',
      sortKey: { name: 'version', type: 'N' },
    });
}

describe('InMemoryDynamoDB', () => {
  it('commits the inbox store’s transaction and shows the items as native values', async () => {
    const dynamo = ledgerTables().createTable({ tableName: 'ledger', partitionKey: 'paymentId' });
    const store = new DynamoDBInboxStore({ tableName: 'inbox', client: dynamo.documentClient });
    const { request } = preparedPayment('evt-1', 'acc-1', 1250);
    expect(await store.commit(request)).toEqual({ committed: true });
    expect(await store.commit(request)).toMatchObject({ committed: false });
    expect(dynamo.items('accounts')).toEqual([{ accountId: 'acc-1', balanceCents: 1250 }]);
    expect(dynamo.item('inbox', { pk: 'unit#evt-1' })).toMatchObject({ status: 'COMPLETED' });
    expect(dynamo.item('accounts', { accountId: 'acc-2' })).toBeUndefined();
  });

  it('serves one set of tables to the document client and to the SDK client', async () => {
    const dynamo = ledgerTables();
    const viaSdk = DynamoDBDocumentClient.from(dynamo.client);
    await viaSdk.send(
      new PutCommand({ TableName: 'versions', Item: { orderId: 'o', version: 2 } }),
    );
    const read = await dynamo.documentClient.send(
      new GetCommand({ TableName: 'versions', Key: { orderId: 'o', version: 2 } }),
    );
    expect(read.Item).toEqual({ orderId: 'o', version: 2 });
    const low = await dynamo.client.send(
      new GetItemCommand({
        TableName: 'versions',
        Key: { orderId: { S: 'o' }, version: { N: '2' } },
      }),
    );
    expect(low.Item).toEqual({ orderId: { S: 'o' }, version: { N: '2' } });
    const lowThroughDocument = await dynamo.documentClient.send(
      new GetItemCommand({
        TableName: 'versions',
        Key: { orderId: { S: 'o' }, version: { N: '2' } },
      }),
    );
    expect(lowThroughDocument.Item).toEqual(low.Item);
  });

  it('answers through the SDK client with the SDK’s own exceptions and their members', async () => {
    const dynamo = ledgerTables();
    const client = DynamoDBDocumentClient.from(dynamo.client);
    const bytes = new Uint8Array([0, 1, 254, 255]);
    await client.send(new PutCommand({ TableName: 'accounts', Item: { accountId: 'a', bytes } }));
    const refused = client.send(
      new PutCommand({
        TableName: 'accounts',
        Item: { accountId: 'a' },
        ConditionExpression: 'attribute_not_exists(accountId)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    await expect(refused).rejects.toBeInstanceOf(ConditionalCheckFailedException);
    await expect(refused).rejects.toMatchObject({ Item: { bytes: { B: bytes } } });
    const cancelled = client.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: 'accounts', Item: { accountId: 'b' } } },
          {
            Update: {
              TableName: 'accounts',
              Key: { accountId: 'a' },
              UpdateExpression: 'SET n = :n',
              ConditionExpression: 'attribute_not_exists(accountId)',
              ExpressionAttributeValues: { ':n': 1 },
            },
          },
        ],
      }),
    );
    await expect(cancelled).rejects.toBeInstanceOf(TransactionCanceledException);
    await expect(cancelled).rejects.toMatchObject({
      CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }],
    });
    expect(dynamo.item('accounts', { accountId: 'b' })).toBeUndefined();
  });

  it('refuses an operation or a parameter it does not model with a NotModelledError naming it', async () => {
    const dynamo = ledgerTables();
    await expect(dynamo.client.send(new ListTablesCommand({}))).rejects.toMatchObject({
      name: 'NotModelledError',
      operation: 'ListTables',
    });
    await expect(dynamo.documentClient.send(new ListTablesCommand({}))).rejects.toBeInstanceOf(
      NotModelledError,
    );
    const legacy = dynamo.documentClient.send(
      new GetCommand({ TableName: 'accounts', Key: { accountId: 'a' }, AttributesToGet: ['x'] }),
    );
    await expect(legacy).rejects.toMatchObject({
      operation: 'GetItem',
      feature: 'AttributesToGet',
      message: expect.stringMatching(/does not model AttributesToGet of GetItem/),
    });
  });

  it('keeps an expired item readable until deleteExpiredItems runs at a time past its TTL', async () => {
    let nowMillis = Date.UTC(2026, 0, 1);
    const dynamo = ledgerTables(() => nowMillis);
    const expiresAt = Math.floor(nowMillis / 1000) + 60;
    await dynamo.documentClient.send(
      new PutCommand({ TableName: 'inbox', Item: { pk: 'a', expiresAt } }),
    );
    await dynamo.documentClient.send(
      new PutCommand({ TableName: 'inbox', Item: { pk: 'b', expiresAt: expiresAt + DAY_MILLIS } }),
    );
    expect(dynamo.deleteExpiredItems()).toBe(0);
    nowMillis += 61_000;
    expect(dynamo.item('inbox', { pk: 'a' })).toBeDefined();
    expect(dynamo.deleteExpiredItems()).toBe(1);
    expect(dynamo.items('inbox').map((item) => item.pk)).toEqual(['b']);
  });

  it('refuses a table definition without a key name, naming the option', () => {
    expect(() => new InMemoryDynamoDB().createTable({ tableName: 't', partitionKey: '' })).toThrow(
      InvalidConfigurationError,
    );
    expect(() =>
      new InMemoryDynamoDB().createTable({
        tableName: 't',
        partitionKey: 'pk',
        sortKey: { name: 'sk', type: 'X' as never },
      }),
    ).toThrow(/sortKey\.type/);
  });

  it('applies an update expression and a duplicate table refusal as DynamoDB does', async () => {
    const dynamo = ledgerTables();
    await dynamo.documentClient.send(
      new UpdateCommand({
        TableName: 'accounts',
        Key: { accountId: 'a' },
        UpdateExpression: 'SET tags = list_append(if_not_exists(tags, :none), :tag)',
        ExpressionAttributeValues: { ':none': [], ':tag': ['vip'] },
      }),
    );
    expect(dynamo.item('accounts', { accountId: 'a' })).toEqual({ accountId: 'a', tags: ['vip'] });
    expect(() => dynamo.createTable({ tableName: 'accounts', partitionKey: 'id' })).toThrow(
      /Table already exists: accounts/,
    );
  });
});

describe('InMemoryDynamoDB.client', () => {
  it('sends through the SDK without its warning about a body read as a string', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    // The SDK warns at most once a minute: a day later, an earlier send cannot hide this one's.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 86_400_000);
    try {
      const dynamo = ledgerTables();
      await DynamoDBDocumentClient.from(dynamo.client).send(
        new PutCommand({ TableName: 'accounts', Item: { accountId: 'a' } }),
      );
      expect(warn).not.toHaveBeenCalled();
    } finally {
      vi.useRealTimers();
      warn.mockRestore();
    }
  });
});

describe('InMemoryDynamoDB ClientRequestToken', () => {
  it('honours a token for ten minutes by its clock, then applies the same request again', async () => {
    let nowMillis = Date.UTC(2026, 0, 1);
    const dynamo = ledgerTables(() => nowMillis);
    const add = () =>
      dynamo.documentClient.send(
        new TransactWriteCommand({
          ClientRequestToken: 'token-1',
          TransactItems: [
            {
              Update: {
                TableName: 'accounts',
                Key: { accountId: 'a' },
                UpdateExpression: 'ADD n :one',
                ExpressionAttributeValues: { ':one': 1 },
              },
            },
          ],
        }),
      );
    await add();
    nowMillis += 599_000;
    await add();
    expect(dynamo.item('accounts', { accountId: 'a' })?.n).toBe(1);
    nowMillis += 2_000;
    await add();
    expect(dynamo.item('accounts', { accountId: 'a' })?.n).toBe(2);
  });
});
