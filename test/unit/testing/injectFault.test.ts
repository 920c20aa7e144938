import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoFault, InMemoryDynamoDB } from '../../../src/testing/index.js';

function accounts() {
  return new InMemoryDynamoDB().createTable({ tableName: 'accounts', partitionKey: 'accountId' });
}
const put = (accountId: string) => new PutCommand({ TableName: 'accounts', Item: { accountId } });
const transaction = (accountId: string) =>
  new TransactWriteCommand({
    TransactItems: [{ Put: { TableName: 'accounts', Item: { accountId } } }],
  });

describe('InMemoryDynamoDB.injectFault (answers no emulator gives on demand)', () => {
  it('cancels a transaction for a conflict, applying nothing, then lets the next one through', async () => {
    const dynamo = accounts().injectFault({ fault: DynamoFault.Conflict });
    await expect(dynamo.documentClient.send(transaction('a'))).rejects.toMatchObject({
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'TransactionConflict' }],
    });
    expect(dynamo.items('accounts')).toEqual([]);
    await dynamo.documentClient.send(transaction('a'));
    expect(dynamo.items('accounts')).toEqual([{ accountId: 'a' }]);
  });

  it('refuses a single write with TransactionConflictException, and only writes meet a conflict', async () => {
    const dynamo = accounts().injectFault({ fault: DynamoFault.Conflict });
    await dynamo.documentClient.send(
      new GetCommand({ TableName: 'accounts', Key: { accountId: 'a' } }),
    );
    expect(dynamo.pendingFaults).toBe(1);
    await expect(dynamo.documentClient.send(put('a'))).rejects.toMatchObject({
      name: 'TransactionConflictException',
    });
    expect(() =>
      accounts().injectFault({ fault: DynamoFault.Conflict, operation: 'GetItem' }),
    ).toThrow(/only writes meet a transaction conflict/);
  });

  it('throttles the named operation as many times as asked', async () => {
    const dynamo = accounts().injectFault({
      fault: DynamoFault.Throttling,
      operation: 'PutItem',
      times: 2,
    });
    await expect(dynamo.documentClient.send(put('a'))).rejects.toMatchObject({ $fault: 'client' });
    await expect(dynamo.documentClient.send(put('a'))).rejects.toThrow();
    await dynamo.documentClient.send(put('a'));
    expect(dynamo.pendingFaults).toBe(0);
  });

  it('applies a request whose answer is lost, and applies nothing of a timed-out one', async () => {
    const dynamo = accounts()
      .injectFault({ fault: DynamoFault.LostResponse })
      .injectFault({ fault: DynamoFault.Timeout });
    await expect(dynamo.documentClient.send(put('lost'))).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    await expect(dynamo.documentClient.send(put('timed-out'))).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    expect(dynamo.items('accounts')).toEqual([{ accountId: 'lost' }]);
  });

  it('hits only requests to the named table', async () => {
    const dynamo = accounts()
      .createTable({ tableName: 'other', partitionKey: 'id' })
      .injectFault({ fault: DynamoFault.Timeout, tableName: 'other' });
    await dynamo.documentClient.send(put('a'));
    await expect(
      dynamo.documentClient.send(new PutCommand({ TableName: 'other', Item: { id: 'x' } })),
    ).rejects.toMatchObject({ name: 'TimeoutError' });
  });
});
