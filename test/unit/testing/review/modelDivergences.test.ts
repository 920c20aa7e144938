/**
 * Review of issue 33: requests on which the in-memory DynamoDB answers other than DynamoDB Local
 * (2026-01-16 release, the conformance suite's reference) without a NotModelledError. Each
 * test states Local's answer, seen by running the same request on both (a throwaway diff
 * script); DynamoDB's documented limits agree (2,048-byte partition key, 1,024-byte sort key,
 * 32 levels of nesting, no empty string in a key value).
 */
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { InMemoryDynamoDB } from '../../../../src/testing/index.js';

function tables() {
  return new InMemoryDynamoDB()
    .createTable({ tableName: 'accounts', partitionKey: 'accountId' })
    .createTable({ tableName: 'entries', partitionKey: 'accountId', sortKey: { name: 'entryId' } });
}

const clients = [
  { name: 'documentClient', connect: (dynamo: InMemoryDynamoDB) => dynamo.documentClient },
  {
    name: 'DynamoDBDocumentClient.from(client)',
    connect: (dynamo: InMemoryDynamoDB) =>
      DynamoDBDocumentClient.from(dynamo.client, {
        marshallOptions: { removeUndefinedValues: true },
      }),
  },
];

const nested = (levels: number) => {
  let value: unknown = 1;
  for (let level = 0; level < levels; level++) value = { m: value };
  return value;
};

describe.each(clients)('InMemoryDynamoDB through $name, held to DynamoDB Local', ({ connect }) => {
  it('refuses a partition key value over 2,048 bytes, as Local does (ValidationException)', async () => {
    const client = connect(tables());
    const put = client.send(
      new PutCommand({ TableName: 'accounts', Item: { accountId: 'x'.repeat(2049) } }),
    );
    await expect(put).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('refuses a sort key value over 1,024 bytes, as Local does (ValidationException)', async () => {
    const client = connect(tables());
    const put = client.send(
      new PutCommand({ TableName: 'entries', Item: { accountId: 'a', entryId: 'é'.repeat(513) } }),
    );
    await expect(put).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it.each([['begins_with(entryId, :v)'], ['entryId > :v'], ['entryId BETWEEN :v AND :z']])(
    'refuses an empty string as the sort key value of %s, as Local does (ValidationException)',
    async (condition) => {
      const client = connect(tables());
      await client.send(
        new PutCommand({ TableName: 'entries', Item: { accountId: 'a', entryId: 'e-1' } }),
      );
      const query = client.send(
        new QueryCommand({
          TableName: 'entries',
          KeyConditionExpression: `accountId = :a AND ${condition}`,
          ExpressionAttributeValues: {
            ':a': 'a',
            ':v': '',
            ...(condition.includes(':z') ? { ':z': 'z' } : {}),
          },
        }),
      );
      await expect(query).rejects.toMatchObject({ name: 'ValidationException' });
    },
  );

  it('refuses an attribute nested 32 maps deep, as Local does (ValidationException)', async () => {
    const client = connect(tables());
    const put = client.send(
      new PutCommand({ TableName: 'accounts', Item: { accountId: 'a', m: nested(32) } }),
    );
    await expect(put).rejects.toMatchObject({ name: 'ValidationException' });
  });
});
