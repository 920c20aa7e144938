/**
 * The document clients of the testing kit translate native values as their production
 * counterparts do: `InMemoryDynamoDB.documentClient` as `DynamoDBDocumentClient.from(client)`
 * with the SDK's defaults (what a handler builds), `createDocumentClient(translateConfig)` as
 * `DynamoDBDocumentClient.from(client, translateConfig)`, and `InboxTest`'s store as the store's
 * own default client (`removeUndefinedValues`). Each is compared with the SDK's own client over
 * the same tables (`InMemoryDynamoDB.client`).
 */
import {
  DynamoDBDocumentClient,
  GetCommand,
  NumberValue,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createBatchProcessor } from '../../../src/index.js';
import { InboxTest, InMemoryDynamoDB, sqsRecord } from '../../../src/testing/index.js';

const accounts = () =>
  new InMemoryDynamoDB().createTable({ tableName: 'accounts', partitionKey: 'accountId' });

/** A memo with an undefined value inside a map, the case where the SDK's defaults throw. */
const memo = () =>
  new UpdateCommand({
    TableName: 'accounts',
    Key: { accountId: 'acc-1' },
    UpdateExpression: 'SET lastTransfer = :transfer',
    ExpressionAttributeValues: { ':transfer': { eventId: 't-1', note: undefined } },
  });

/** The SDK's own refusal of `command` with its default translation, over the same tables. */
async function sdkRefusal(dynamo: InMemoryDynamoDB, command: { input: object }): Promise<Error> {
  const production = DynamoDBDocumentClient.from(dynamo.client);
  const refusal = await production.send(command as never).catch((error: Error) => error);
  if (!(refusal instanceof Error)) throw new Error('the SDK client took the command');
  return refusal;
}

describe('InMemoryDynamoDB.documentClient, in the place of a production document client', () => {
  it('refuses an undefined value in a map with the SDK’s own error, as DynamoDBDocumentClient.from(client) with its defaults does', async () => {
    const dynamo = accounts();
    const refusal = await sdkRefusal(dynamo, memo());
    await expect(dynamo.documentClient.send(memo())).rejects.toThrow(refusal.message);
    expect(dynamo.items('accounts')).toEqual([]);
  });

  it('leaves out an undefined top-level attribute, as the SDK’s client does with its defaults', async () => {
    const dynamo = accounts();
    const put = () =>
      new PutCommand({ TableName: 'accounts', Item: { accountId: 'acc-1', note: undefined } });
    await DynamoDBDocumentClient.from(dynamo.client).send(put());
    const viaSdk = dynamo.items('accounts');
    await dynamo.documentClient.send(put());
    expect(dynamo.items('accounts')).toEqual(viaSdk);
    expect(viaSdk).toEqual([{ accountId: 'acc-1' }]);
  });
});

describe('InMemoryDynamoDB.createDocumentClient', () => {
  it('translates as DynamoDBDocumentClient.from(client, translateConfig): removeUndefinedValues leaves the value out', async () => {
    const dynamo = accounts();
    const client = dynamo.createDocumentClient({
      marshallOptions: { removeUndefinedValues: true },
    });
    await client.send(memo());
    expect(dynamo.item('accounts', { accountId: 'acc-1' })).toEqual({
      accountId: 'acc-1',
      lastTransfer: { eventId: 't-1' },
    });
  });

  it('reads numbers as the unmarshall options say: wrapNumbers gives NumberValues', async () => {
    const dynamo = accounts();
    await dynamo.documentClient.send(
      new PutCommand({ TableName: 'accounts', Item: { accountId: 'acc-1', balanceCents: 1250 } }),
    );
    const wrapped = dynamo.createDocumentClient({ unmarshallOptions: { wrapNumbers: true } });
    const get = new GetCommand({ TableName: 'accounts', Key: { accountId: 'acc-1' } });
    const { Item } = await wrapped.send(get);
    expect(Item?.balanceCents).toEqual(NumberValue.from('1250'));
    expect((await dynamo.documentClient.send(get)).Item?.balanceCents).toBe(1250);
  });

  it('translates as documentClient does without a translateConfig', async () => {
    const dynamo = accounts();
    const refusal = await sdkRefusal(dynamo, memo());
    await expect(dynamo.createDocumentClient().send(memo())).rejects.toThrow(refusal.message);
  });
});

describe('InboxTest’s clients', () => {
  type Transfer = { accountId: string; throughOwnClient?: boolean };
  const memoItem = (accountId: string) => ({
    accountId,
    memo: { eventId: 't-1', note: undefined },
  });

  /** A ledger on the harness's `options`, or on `inboxConfig()` as a handler module reads it. */
  function ledger(config: 'options' | 'inboxConfig()' = 'options') {
    const inbox = new InboxTest({ tables: [{ tableName: 'accounts', partitionKey: 'accountId' }] });
    const options = config === 'options' ? inbox.options : inbox.inboxConfig().options;
    const processor = createBatchProcessor(
      async (message, tx) => {
        const body = message.body as Transfer;
        const write = { TableName: 'accounts', Item: memoItem(body.accountId) };
        if (body.throughOwnClient) await inbox.dynamo.documentClient.send(new PutCommand(write));
        else tx.put(write);
      },
      { ...options, key: ({ messageId }) => messageId },
    );
    return { inbox, processor };
  }

  it.each(['options', 'inboxConfig()'] as const)(
    'commits a tx write with an undefined value in a map, leaving it out, as the store’s default client does in production (the store of %s)',
    async (config) => {
      const { inbox, processor } = ledger(config);
      const run = await inbox.run(processor, [sqsRecord({ accountId: 'acc-1' })]);
      expect(run.records[0]?.status).toBe('processed');
      expect(inbox.dynamo.items('accounts')).toEqual([
        { accountId: 'acc-1', memo: { eventId: 't-1' } },
      ]);
    },
  );

  it('fails a handler’s own write of that value through inbox.dynamo.documentClient with the SDK’s error, as its production client does', async () => {
    const { inbox, processor } = ledger();
    const put = new PutCommand({ TableName: 'accounts', Item: memoItem('acc-1') });
    const refusal = await sdkRefusal(inbox.dynamo, put);
    const run = await inbox.run(processor, [
      sqsRecord({ accountId: 'acc-1', throughOwnClient: true }),
    ]);
    expect(run.records[0]?.status).toBe('failed');
    expect(run.records[0]?.error).toMatchObject({ message: refusal.message });
    expect(inbox.dynamo.items('accounts')).toEqual([]);
  });
});
