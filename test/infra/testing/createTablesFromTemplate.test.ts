import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, ProjectionType, Table, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { describe, expect, it } from 'vitest';
import { InboxTable } from '../../../src/cdk/index.js';
import { InMemoryDynamoDB } from '../../../src/testing/index.js';

/** A stack as a user's app defines it: the inbox table, a Table with an index, a TableV2 named. */
function userTemplate() {
  const stack = new Stack(new App(), 'Payments');
  new InboxTable(stack, 'Inbox');
  const orders = new Table(stack, 'Orders', {
    partitionKey: { name: 'orderId', type: AttributeType.STRING },
    sortKey: { name: 'version', type: AttributeType.NUMBER },
  });
  orders.addGlobalSecondaryIndex({
    indexName: 'byCustomer',
    partitionKey: { name: 'customerId', type: AttributeType.STRING },
    projectionType: ProjectionType.ALL,
  });
  new TableV2(stack, 'Accounts', {
    tableName: 'accounts',
    partitionKey: { name: 'accountId', type: AttributeType.STRING },
    timeToLiveAttribute: 'purgeAt',
  });
  return Template.fromStack(stack).toJSON();
}

describe('InMemoryDynamoDB.createTablesFromTemplate', () => {
  it('creates each table of a synthesized stack with its key schema and TTL, named by TableName or logical id', async () => {
    const dynamo = new InMemoryDynamoDB();
    // A minute ago: TTL leaves alone expiry times more than five years old, as DynamoDB's does.
    const expiredAt = Math.floor(Date.now() / 1000) - 60;
    const names = dynamo.createTablesFromTemplate(userTemplate());
    const byLogicalId = Object.entries(names);
    expect(byLogicalId).toHaveLength(3);
    expect(byLogicalId).toContainEqual([expect.stringMatching(/^Accounts/), 'accounts']);
    const orders = byLogicalId.find(([logicalId]) => logicalId.startsWith('Orders'))?.[1] ?? '';
    expect(orders).toMatch(/^Orders/);
    await dynamo.documentClient.send(
      new PutCommand({ TableName: orders, Item: { orderId: 'o-1', version: 3 } }),
    );
    expect(dynamo.item(orders, { orderId: 'o-1', version: 3 })).toEqual({
      orderId: 'o-1',
      version: 3,
    });
    const inbox = byLogicalId.find(([logicalId]) => logicalId.startsWith('Inbox'))?.[1] ?? '';
    await dynamo.documentClient.send(
      new PutCommand({ TableName: inbox, Item: { pk: 'a', expiresAt: expiredAt } }),
    );
    await dynamo.documentClient.send(
      new PutCommand({ TableName: 'accounts', Item: { accountId: 'x', purgeAt: expiredAt } }),
    );
    expect(dynamo.deleteExpiredItems()).toBe(2);
  });

  it('leaves secondary indexes out: a query by index is refused as not modelled', async () => {
    const dynamo = new InMemoryDynamoDB();
    const names = Object.values(dynamo.createTablesFromTemplate(userTemplate()));
    const orders = names.find((name) => name.startsWith('Orders')) ?? '';
    const byIndex = dynamo.documentClient.send(
      new QueryCommand({
        TableName: orders,
        IndexName: 'byCustomer',
        KeyConditionExpression: 'customerId = :c',
        ExpressionAttributeValues: { ':c': 'c-1' },
      }),
    );
    await expect(byIndex).rejects.toMatchObject({ name: 'NotModelledError' });
  });

  it('refuses a template without Resources, naming the option', () => {
    expect(() => new InMemoryDynamoDB().createTablesFromTemplate({})).toThrow(/"template"/);
  });
});
