import { DescribeTableCommand, DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { testAws } from '../harness/aws.js';

const aws = testAws();
afterAll(() => aws.cleanup());

describe('test harness', () => {
  it('creates an inbox table with TTL on the backend of this project', async () => {
    const name = await aws.createInboxTable(aws.uniqueName('inbox'));
    const { Table } = await aws.dynamodb.send(new DescribeTableCommand({ TableName: name }));
    expect(Table?.KeySchema).toEqual([{ AttributeName: 'pk', KeyType: 'HASH' }]);
    const { TimeToLiveDescription } = await aws.dynamodb.send(
      new DescribeTimeToLiveCommand({ TableName: name }),
    );
    expect(TimeToLiveDescription).toMatchObject({
      AttributeName: 'expiresAt',
      TimeToLiveStatus: 'ENABLED',
    });
  });
});
