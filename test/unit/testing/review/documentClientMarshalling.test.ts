/**
 * Review of issue 33: `InMemoryDynamoDB.documentClient` marshals with `removeUndefinedValues`
 * always, where the document client a handler builds in production
 * (`DynamoDBDocumentClient.from(new DynamoDBClient({}))`, as examples/testing/ledger.ts does)
 * refuses an undefined value inside a map. The README hands `inbox.dynamo.documentClient` to the
 * handler in its place, so the test passes and the deployed function throws.
 */
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { InMemoryDynamoDB } from '../../../../src/testing/index.js';

const memo = () =>
  new UpdateCommand({
    TableName: 'accounts',
    Key: { accountId: 'acc-1' },
    UpdateExpression: 'SET lastTransfer = :transfer',
    ExpressionAttributeValues: { ':transfer': { eventId: 't-1', note: undefined } },
  });

describe('InMemoryDynamoDB.documentClient, in the place of a production document client', () => {
  it('refuses an undefined value in a map, as DynamoDBDocumentClient.from(client) with its defaults does', async () => {
    const dynamo = new InMemoryDynamoDB().createTable({
      tableName: 'accounts',
      partitionKey: 'accountId',
    });
    const production = DynamoDBDocumentClient.from(dynamo.client);
    const refusal = await production.send(memo()).catch((error: Error) => error);
    expect(refusal).toBeInstanceOf(Error);
    await expect(dynamo.documentClient.send(memo())).rejects.toThrow((refusal as Error).message);
  });
});
